"""Real Celery worker and beat subprocesses on the test database, for the clock integration tests.

They need a database the test process and the worker share (PostgreSQL: pytest-django's test
database, committed by ``transaction=True`` tests) and a broker with a server (Redis). Each run
uses its own queue, so nothing else on the broker takes its tasks.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

from django.conf import settings
from django.db import connection

from bench import harness


def integration_skip_reason() -> str | None:
    """Why the worker tests cannot run here (None: they can)."""
    database = os.environ.get("DATABASE_URL", "")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        return "needs DATABASE_URL on PostgreSQL: the worker subprocess must share the test database"
    if not broker.startswith(("redis://", "rediss://")):
        return "needs CELERY_BROKER_URL on Redis: a broker a separate worker process can reach"
    return None


class CeleryProcesses:
    """Start and stop ``celery worker`` / ``celery beat`` on the test database and a private queue."""

    def __init__(self, sweep_seconds: float = 1.0) -> None:
        self.queue = f"clocks-test-{uuid.uuid4().hex[:8]}"
        self.tmp = Path(tempfile.mkdtemp(prefix="clocks-"))
        self.env = {
            **os.environ,
            "DATABASE_URL": harness.database_url_named(os.environ["DATABASE_URL"], connection.settings_dict["NAME"]),
            # one worker consumes the three queues (the flood test runs the Procfile's workers instead)
            "MAUMAU_CLOCK_QUEUE": self.queue, "MAUMAU_BOT_QUEUE": self.queue, "MAUMAU_DELIVERY_QUEUE": self.queue,
            "MAUMAU_CLOCK_SWEEP_SECONDS": str(sweep_seconds),
            "PYTHONPATH": str(harness.ROOT),
        }
        self.procs: dict[str, harness.Process] = {}

    def start_worker(self, name: str = "worker") -> None:
        node = f"{name}-{self.queue}@%h"
        self.procs[name] = harness.celery("worker", ["-Q", self.queue, "-n", node, "--concurrency", "2",
                                                     "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
                                          env=self.env, log=self.tmp / f"{name}.log")
        self.procs[name].wait_for_output(" ready.")

    def start_beat(self) -> None:
        self.procs["beat"] = harness.celery("beat", ["--schedule", str(self.tmp / "beat-schedule"),
                                                     "--max-interval", "1", "--loglevel", "INFO"],
                                            env=self.env, log=self.tmp / "beat.log")
        # its first tick goes out once it has started: on a busy machine the import alone takes seconds,
        # which a one-second turn clock must not count against the sweep
        self.procs["beat"].wait_for_output("beat: Starting...")

    def kill(self, name: str) -> None:
        """kill -9 the process and its pool children (its process group), as a crash would."""
        self.procs.pop(name).kill()

    def stop(self, name: str) -> None:
        self.procs.pop(name).stop()

    def stop_all(self) -> None:
        for name in list(self.procs):
            self.stop(name)
        try:  # leftover tasks (sweep ticks, retries) of this private queue
            import redis

            redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(self.queue)
        except Exception:  # noqa: BLE001 - cleanup only
            pass

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in self.tmp.glob("*.log"))
