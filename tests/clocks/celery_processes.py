"""Real Celery worker and beat subprocesses on the test database, for the clock integration tests.

They need a database the test process and the worker share (PostgreSQL: pytest-django's test
database, committed by ``transaction=True`` tests) and a broker with a server (Redis). Each run
uses its own queue, so nothing else on the broker takes its tasks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


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
        url = urlsplit(os.environ["DATABASE_URL"])
        test_db = connection.settings_dict["NAME"]
        self.env = {
            **os.environ,
            "DATABASE_URL": urlunsplit(url._replace(path=f"/{test_db}")),
            "MAUMAU_CLOCK_QUEUE": self.queue,
            "MAUMAU_CLOCK_SWEEP_SECONDS": str(sweep_seconds),
            "PYTHONPATH": str(ROOT),
        }
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def _start(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "maumau", *args], cwd=ROOT, env=self.env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs[name] = proc
        return proc

    def start_worker(self, name: str = "worker") -> None:
        node = f"{name}-{self.queue}@%h"
        self._start(name, ["worker", "-Q", self.queue, "-n", node, "--concurrency", "2", "--loglevel", "INFO",
                           "--without-gossip", "--without-mingle"])
        self._wait_ready(name)

    def start_beat(self) -> None:
        self._start("beat", ["beat", "--schedule", str(self.tmp / "beat-schedule"), "--max-interval", "1",
                             "--loglevel", "INFO"])

    def _wait_ready(self, name: str, timeout: float = 30.0) -> None:
        log = self.tmp / f"{name}.log"
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.procs[name].poll() is not None:
                raise RuntimeError(f"celery {name} exited:\n{log.read_text()}")
            if " ready." in log.read_text(errors="replace"):
                return
            time.sleep(0.1)
        raise RuntimeError(f"celery {name} not ready after {timeout}s:\n{log.read_text()}")

    def kill(self, name: str) -> None:
        """kill -9 the process and its pool children (its process group), as a crash would."""
        proc = self.procs.pop(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop(self, name: str) -> None:
        proc = self.procs.pop(name)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def stop_all(self) -> None:
        for name in list(self.procs):
            self.stop(name)
        try:  # leftover (stale) clock tasks of this private queue
            import redis

            redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(self.queue)
        except Exception:  # noqa: BLE001 - cleanup only
            pass

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in self.tmp.glob("*.log"))
