"""Fault drill (a script, not a test): bot-versus-person rounds over HTTP while the service is hurt.

    python -m bench.drill --short        # CI: about a minute of traffic and recovery
    python -m bench.drill                # people: four minutes of traffic, the faults again every 40 s

Starts the real service on PostgreSQL (``--database-url``, dropped and created afresh: the checks read
every round in it) and Redis (``--broker-url``, ``--cache-url``): uvicorn as the run command does
(``--workers 2``) and gunicorn (``maumau.wsgi``, two workers), the Celery workers as the Procfile has
them (one per queue: clocks, bots, deliveries) and beat, all with ``bench.drill_settings`` (the
product's settings, its queues named for this run, a shorter webhook sweep period). Every table has
a short turn clock (``--turn-seconds``). Each person is a client thread: it signs up, registers a
webhook to a receiver this script runs on 127.0.0.1, opens a table
(classic, tavern or house, some in a league) with one or two bots, and plays round after round,
choosing among its ``legal_actions``, with or without ``expected_version``, and now and then leaving
a turn to run out. Beside them a flooding guest (``bench.flood``, off with ``--no-flood``) plays practice
moves against a bot with its ten webhooks pointing at a receiver that accepts connections and never
answers: every move queues ten deliveries that each hold a delivery process for the whole webhook
timeout; at the end of the traffic it deletes its webhooks. Requests that fail on the connection or
with a 5xx are sent again, a move with the same Idempotency-Key and body. Meanwhile, on a schedule, the drill

- kills the Celery workers (SIGKILL, with their pools) and starts them again,
- kills a uvicorn worker and a gunicorn worker (SIGKILL) mid-traffic,
- terminates the service's database connections (``pg_terminate_backend``),
- runs ``manage.py verify_ledger`` while the rounds move,
- stops the Redis of the service (broker and cache: a ``redis-server`` of the drill's own on a port of
  its own, never the machine's) for ``--redis-outage-seconds`` and starts it again,
- cuts the service's database connections for ``--database-cut-seconds``: the service reaches
  PostgreSQL through a TCP proxy of the drill's, which drops every connection and refuses new ones.

After each of the last two the service must answer ``/readyz`` (both servers) within
``--recovery-bound`` seconds of the fault's end.

Then the persons leave (the bots finish their rounds), and the drill waits, bounded, for the webhook
deliveries to settle, stops everything and asserts:

1. every move answered 200 is in the ledger exactly once (and no person's move is there that no
   client was answered for, beyond requests given up);
2. no 5xx answer at all (a connection cut by a killed worker is allowed and counted, within
   ``--cut-window`` seconds of a kill of that server; a 503 while Redis or the database is away, or
   within the recovery bound after, is counted apart: the client is told to come back, never a 500);
3. every passed deadline resolved exactly once, none early, none missing (a replay of the ledger
   with the deadlines set as the service sets them); the clock lag (deadline to its timeout's
   ledger row) is reported as p50/p99/max (``clock_lag_ms``);
4. every webhook delivery delivered or failed, none stuck; every delivered one reached the receiver;
5. ``manage.py verify_ledger`` (live and at the end), ``verify_standings`` and ``verify_ratings`` pass.

It prints the counts as JSON and exits 1 if any assertion fails (the problems are listed).
``--faults`` names the faults to bring; ``--faults ""`` is a control run, which must pass.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import harness
from bench.drill_checks import (
    Ack,
    ClockMark,
    PlayerRow,
    Report,
    Timeline,
    Unanswered,
    acknowledged_moves_check,
    cuts_split,
    deadlines_check,
    deliveries_check,
    server_errors_split,
)
from bench.flood import SilentReceiver, WebhookFlood
from games import engine

SETTINGS = "bench.drill_settings"
VERIFY = ("verify_ledger", "verify_standings", "verify_ratings")
RULES = ["classic", "tavern", "house"]
POLICIES = ["autoplay", "penalty", "skip"]

#: What one cycle of faults does, at these shares of the cycle (``--cycle-seconds``).
FAULTS = [
    (0.05, "celery_worker_kill"),
    (0.10, "redis_outage"),  # back after --redis-outage-seconds (15); the schedule goes on meanwhile
    (0.30, "uvicorn_worker_kill"),
    (0.43, "database_connections_terminate"),
    (0.57, "gunicorn_worker_kill"),
    (0.67, "verify_ledger_live"),
    (0.70, "database_cut"),  # back after --database-cut-seconds (4)
    (0.80, "database_connections_terminate"),
]


def log(message: str) -> None:
    print(f"[drill {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- what the clients saw ------------------------------------------------------------------------------


class Journal:
    """Everything the clients were told, shared by their threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.acks: list[Ack] = []
        self.unanswered: list[Unanswered] = []
        self.answers: Counter[str] = Counter()
        self.server_errors: list[tuple[float, int, str]] = []  # (monotonic time, status, what)
        self.cuts: list[tuple[float, str, str]] = []  # (monotonic time, server, error)
        self.unexpected: list[str] = []
        self.counts: Counter[str] = Counter()

    def count(self, name: str, by: int = 1) -> None:
        with self.lock:
            self.counts[name] += by

    def add(self, items: list[Any], item: Any) -> None:
        with self.lock:
            items.append(item)


class Api:
    """One keep-alive connection of one client to one server; requests sent again on connection
    errors, 5xx, 429 and ``idempotency_in_progress`` until ``retry_seconds`` have passed."""

    def __init__(self, server: str, port: int, journal: Journal, retry_seconds: float) -> None:
        self.server, self.port, self.journal, self.retry_seconds = server, port, journal, retry_seconds
        self.token: str | None = None
        self.connection: http.client.HTTPConnection | None = None

    def _once(self, method: str, path: str, body: Any, key: str | None) -> tuple[int, Any, dict[str, str]]:
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
        headers = {"Accept": "application/json", "Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if key:
            headers["Idempotency-Key"] = key
        payload = json.dumps(body).encode() if body is not None else None
        try:
            self.connection.request(method, path, body=payload, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = None
            raise
        if response.getheader("Connection", "").lower() == "close":
            self.connection.close()
            self.connection = None
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = {"unparsed": data[:200].decode(errors="replace")}
        return response.status, parsed, {k.lower(): v for k, v in response.getheaders()}

    def call(self, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any, dict] | None:
        """The first definitive answer, or None when the retries ran out."""
        give_up = time.monotonic() + self.retry_seconds
        pause = 0.1
        while True:
            try:
                status, data, headers = self._once(method, path, body, key)
            except (OSError, http.client.HTTPException) as exc:
                self.journal.add(self.journal.cuts, (time.monotonic(), self.server, f"{type(exc).__name__}: {exc}"))
                status, data, headers = 0, None, {}
            self.journal.count(f"{status or 'cut'}")
            code = data.get("error", {}).get("code") if isinstance(data, dict) and "error" in data else None
            if status >= 500:
                what = f"{self.server} {method} {path} -> {status} {json.dumps(data)[:300]}"
                self.journal.add(self.journal.server_errors, (time.monotonic(), status, what))
            elif status and status != 429 and code != "idempotency_in_progress":
                return status, data, headers
            if time.monotonic() + pause > give_up:
                return None
            self.journal.count("retries")
            time.sleep(pause)
            pause = min(pause * 2, 1.0)


def error_code(data: Any) -> str:
    return str(data.get("error", {}).get("code")) if isinstance(data, dict) and "error" in data else ""


class Person:
    """One person at a table of their own with one or two bots, on one server."""

    def __init__(self, index: int, server: str, port: int, hook_url: str, secrets: dict[int, str],
                 journal: Journal, args: argparse.Namespace) -> None:
        self.index, self.journal, self.args = index, journal, args
        self.rng = random.Random(f"drill-{args.seed}-{index}")
        self.api = Api(server, port, journal, args.retry_seconds)
        self.rules = RULES[index % len(RULES)]
        self.options: dict[str, Any] = {"turn_seconds": args.turn_seconds,
                                        "timeout_policy": POLICIES[(index // len(RULES)) % len(POLICIES)]}
        if self.rules == "house":
            self.options["hermann_seconds"] = args.hermann_seconds
        self.bots = ["basic"] if index % 2 == 0 else ["basic", "random"]
        self.hook_url, self.secrets = hook_url, secrets
        self.player = 0
        self.table = 0

    def must(self, method: str, path: str, body: Any = None, expect: tuple[int, ...] = (200, 201)) -> Any:
        answer = self.api.call(method, path, body)
        if answer is None or answer[0] not in expect:
            raise RuntimeError(f"set-up {method} {path} answered {answer and answer[:2]}")
        return answer[1]

    def sign_up(self) -> None:
        """A player with a token and a webhook for every kind of notification."""
        data = self.must("POST", "/api/v1/players", {"name": f"Drill {self.index}"})
        self.api.token, self.player = data["token"], data["id"]
        hook = self.must("POST", "/api/v1/webhooks", {"url": f"{self.hook_url}/{self.player}", "events": ["*"]})
        self.secrets[self.player] = hook["secret"]

    def table_open(self, league: int | None) -> None:
        body: dict[str, Any] = {"rules": self.rules, "options": self.options, "max_players": 1 + len(self.bots)}
        if league is not None:
            body["league"] = league
        self.table = self.must("POST", "/api/v1/tables", body, expect=(201,))["id"]
        for level in self.bots:
            self.must("POST", f"/api/v1/tables/{self.table}/bots", {"level": level}, expect=(201,))

    def run(self, stop: float) -> None:
        try:
            while time.monotonic() < stop:
                view = self.round_start()
                if view is None:
                    time.sleep(0.5)
                    continue
                self.journal.count("rounds_started")
                self.play(view, stop)
        except Exception as exc:  # a client's own bug must show, not hang the drill
            self.journal.add(self.journal.unexpected, f"person {self.index} stopped: {type(exc).__name__}: {exc}")
        self.leave()

    def round_start(self) -> dict[str, Any] | None:
        answer = self.api.call("POST", f"/api/v1/tables/{self.table}/rounds", {})
        if answer is None:
            return None
        status, data, _ = answer
        if status == 201:
            return data
        if status == 409 and error_code(data) == "league_finished":
            self.table_open(None)
            return None
        if status == 409 and error_code(data) == "table_state":  # an earlier attempt started it
            table = self.api.call("GET", f"/api/v1/tables/{self.table}")
            if table and table[0] == 200 and table[1].get("current_game"):
                return self.view(table[1]["current_game"])
            return None
        self.journal.add(self.journal.unexpected, f"round start at table {self.table}: {status} {data}")
        return None

    def view(self, game: int) -> dict[str, Any] | None:
        answer = self.api.call("GET", f"/api/v1/games/{game}")
        if answer is None:
            return None
        if answer[0] != 200:
            self.journal.add(self.journal.unexpected, f"GET game {game}: {answer[0]} {answer[1]}")
            return None
        return answer[1]

    def play(self, view: dict[str, Any], stop: float) -> None:
        game = view["id"]
        stalled = False
        while time.monotonic() < stop:
            if view is None:
                view = self.view(game)
                continue
            if view["status"] != "active":
                return
            legal = view.get("legal_actions") or []
            if not legal:  # a Hermann race or a clock of someone else's: look again
                time.sleep(0.25)
                view = self.view(game)
                continue
            race = any(a.get("word") == "hermann" for a in legal)  # let half the races run out too
            if not stalled and view.get("deadline") and self.rng.random() < (0.5 if race else self.args.stall_share):
                stalled = True
                self.stall(view, stop)
                view = self.view(game)
                continue
            stalled = False
            view = self.move(view, legal)
            time.sleep(self.args.think)

    def stall(self, view: dict[str, Any], stop: float) -> None:
        """Leave this turn to the clock: no request until well after its deadline, so that the
        clock sweep resolves it, not the next GET."""
        deadline = datetime.fromisoformat(view["deadline"].replace("Z", "+00:00"))
        wait = (deadline - datetime.now(UTC)).total_seconds() + self.args.stall_extra
        self.journal.count("turns_left_to_the_clock")
        time.sleep(max(0.0, min(wait, stop - time.monotonic() + self.args.stall_extra)))

    def move(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        action = dict(self.rng.choice(legal))
        if isinstance(action.get("as"), dict):
            action["as"] = {k: self.rng.choice(v) if isinstance(v, list) else v for k, v in action["as"].items()}
        body = dict(action)
        if self.rng.random() < 0.5:
            body["expected_version"] = view["version"]
        key = uuid.uuid4().hex
        game = view["id"]
        answer = self.api.call("POST", f"/api/v1/games/{game}/actions", body, key=key)
        if answer is None:
            self.journal.add(self.journal.unanswered, Unanswered(game, self.player, view["version"], key))
            return None
        status, data, headers = answer
        if status == 200:
            self.journal.add(self.journal.acks, Ack(game, self.player, view["version"], data["version"],
                                                    engine.parse_action(action), key))
            if headers.get("idempotent-replayed") == "true":
                self.journal.count("replayed_answers")
            return data
        code = error_code(data)
        expected = {409: {"version_conflict", "not_your_turn", "game_finished"}, 422: {"illegal_move"}}
        if code in expected.get(status, set()):
            self.journal.count(f"refused_{code}")
        else:
            self.journal.add(self.journal.unexpected, f"move {body} in game {game}: {status} {data}")
        return None

    def leave(self) -> None:
        """Leave the table: a bot takes the seat and finishes the round at once."""
        answer = self.api.call("POST", f"/api/v1/tables/{self.table}/leave")
        if answer is not None and (answer[0] == 200 or error_code(answer[1]) == "permission_denied"):
            return  # permission_denied: an earlier attempt left already
        self.journal.add(self.journal.unexpected, f"leave table {self.table}: {answer and answer[:2]}")


# --- the webhook receiver --------------------------------------------------------------------------------


class Receiver:
    """Webhook receiver on 127.0.0.1: checks the signature, refuses the first attempt of every fifth
    delivery (503: the service must retry it) and accepts the rest.

    A request whose body ends before its Content-Length is not a signed request but one cut short:
    the sender (a Celery worker the drill killed) died between writing the headers and the body. It
    is counted apart (``cut_requests``), never as a bad signature, and gets no answer."""

    def __init__(self, secrets: dict[int, str]) -> None:
        self.secrets = secrets
        self.lock = threading.Lock()
        self.accepted: list[int] = []
        self.refused: Counter[int] = Counter()
        self.bad_signatures = 0
        self.cut_requests = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if len(body) < length:
                    with receiver.lock:
                        receiver.cut_requests += 1
                    self.close_connection = True
                    return
                status = receiver.receive(self.path, dict(self.headers), body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def receive(self, path: str, headers: dict[str, str], body: bytes) -> int:
        secret = self.secrets.get(int(path.rstrip("/").rsplit("/", 1)[-1] or 0), "")
        stamp = headers.get("X-MauMau-Timestamp", "")
        expected = "sha256=" + hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
        delivery = int(headers.get("X-MauMau-Delivery") or 0)
        with self.lock:
            if not secret or not hmac.compare_digest(expected, headers.get("X-MauMau-Signature", "")):
                self.bad_signatures += 1
                return 401
            if delivery % 5 == 0 and not self.refused[delivery]:
                self.refused[delivery] += 1
                return 503
            self.accepted.append(delivery)
            return 200

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- the service and the faults ------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    """Live child processes of ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return sorted(found)


def web_workers(process: harness.Process) -> list[int]:
    """The worker processes of a uvicorn or gunicorn master (not multiprocessing's resource tracker)."""
    workers = []
    for pid in children(process.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" not in command:
            workers.append(pid)
    return workers


class Service:
    """The processes of the run command (and gunicorn) on the drill's database and broker."""

    #: The Procfile's workers: its name, the setting that names its queue, its pool size here (deliveries
    #: wait on far ends, the flood's for 3 s each: sized by the deliveries in flight, not by cores).
    WORKERS = (("clocks", "MAUMAU_CLOCK_QUEUE", 2), ("bots", "MAUMAU_BOT_QUEUE", 1),
               ("deliveries", "MAUMAU_DELIVERY_QUEUE", 4))

    def __init__(self, env: dict[str, str], tmp: Path, queue: str) -> None:
        self.env, self.tmp, self.queue = env, tmp, queue
        self.uvicorn_port, self.gunicorn_port = harness.free_port(), harness.free_port()
        self.web: dict[str, harness.Process] = {}
        self.workers: dict[str, harness.Process] = {}
        self.beat: harness.Process | None = None
        self.workers_started = 0

    def start(self) -> None:
        self.web["uvicorn"] = harness.uvicorn("maumau.asgi:application", self.uvicorn_port, env=self.env,
                                              log=self.tmp / "uvicorn.log",
                                              options=["--workers", "2", "--timeout-keep-alive", "75"])
        self.web["gunicorn"] = harness.gunicorn("maumau.wsgi:application", self.gunicorn_port, workers=2, threads=4,
                                                env=self.env, log=self.tmp / "gunicorn.log")
        self.beat = harness.celery("beat", ["--schedule", str(self.tmp / "beat-schedule"), "--max-interval", "1",
                                            "--loglevel", "INFO"], env=self.env, log=self.tmp / "beat.log")
        self.worker_start()
        self.web["uvicorn"].wait_for_http(self.uvicorn_port, timeout=60)
        self.web["gunicorn"].wait_for_http(self.gunicorn_port, timeout=60)

    def worker_start(self) -> None:
        """The three workers at once; returns when all take tasks."""
        self.workers_started += 1
        for name, setting, size in self.WORKERS:
            self.workers[name] = harness.celery(
                "worker", ["-Q", self.env[setting], "-n", f"{self.queue}-{name}-{self.workers_started}@%h",
                           "--concurrency", str(size), "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
                env=self.env, log=self.tmp / f"worker-{name}-{self.workers_started}.log")
        for worker in self.workers.values():
            worker.wait_for_output(" ready.", timeout=60)

    def port(self, server: str) -> int:
        return self.uvicorn_port if server == "uvicorn" else self.gunicorn_port

    def ready_after(self, limit: float) -> float | None:
        """Seconds until both servers answer ``/readyz`` 200 (None: not within ``limit``)."""
        began = time.monotonic()
        waiting = {self.uvicorn_port, self.gunicorn_port}
        while waiting and time.monotonic() - began < limit:
            for port in list(waiting):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
                try:
                    connection.request("GET", "/readyz")
                    if connection.getresponse().status == 200:
                        waiting.discard(port)
                except (OSError, http.client.HTTPException):
                    pass
                finally:
                    connection.close()
            if waiting:
                time.sleep(0.2)
        return None if waiting else time.monotonic() - began

    def exited(self) -> dict[str, int]:
        """The processes that ended on their own (their exit codes): a supervisor would restart them,
        the drill does not, so one that is gone explains work left undone."""
        processes = {**self.web, **{f"worker {name}": p for name, p in self.workers.items()}, "beat": self.beat}
        return {name: code for name, process in processes.items()
                if process is not None and (code := process.popen.poll()) is not None}

    def stop(self) -> None:
        """All at once: each stop may wait for a graceful shutdown."""
        stopping = [threading.Thread(target=p.stop, kwargs={"timeout": 10})
                    for p in [*self.web.values(), *self.workers.values(), self.beat] if p is not None]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()

    def clock_resolutions(self) -> dict[str, int]:
        """Timeouts the sweep applied, from the worker logs (the rest: requests)."""
        logs = "".join(path.read_text(errors="replace") for path in self.tmp.glob("worker-*.log"))
        # the sweep's own line: Celery's "succeeded" lines of the routine sweep are filtered out
        by_sweep = sum(int(n) for n in re.findall(r"the sweep resolved (\d+) passed deadlines", logs))
        return {"sweep": by_sweep,
                "sweep_ticks_expired_in_the_queue": len(re.findall(r"Discarding revoked task: games\.deadlines_sweep",
                                                                   logs))}

    def log_excerpts(self, last: int = 25) -> dict[str, list[str]]:
        """The last warnings and errors of the Celery processes: what a failed run's report shows, since
        its log directory is gone with the machine that ran it."""
        wanted = re.compile(r"^\[[^\]]+: (?:WARNING|ERROR|CRITICAL)/|ready\.|Connected to")
        excerpts = {}
        for path in sorted([*self.tmp.glob("worker-*.log"), self.tmp / "beat.log"]):
            if path.exists():
                lines = [line[:300] for line in path.read_text(errors="replace").splitlines() if wanted.search(line)]
                excerpts[path.name] = lines[-last:]
        return excerpts


class Faults:
    """The faults of the schedule, each logged with what it hit."""

    def __init__(self, service: Service, database_url: str, env: dict[str, str], args: argparse.Namespace,
                 redis: harness.RedisServer | None = None, database_proxy: harness.DroppingProxy | None = None) -> None:
        self.service, self.database_url, self.env, self.args = service, database_url, env, args
        self.redis, self.database_proxy = redis, database_proxy
        self.outages: list[tuple[float, float]] = []  # (from, until) monotonic: a 503 then is no 500
        self.recoveries: list[threading.Thread] = []
        self.recovered: list[dict[str, Any]] = []
        self.done: list[dict[str, Any]] = []
        self.kills: list[tuple[float, str]] = []  # (monotonic time, server) of web worker kills
        self.last_worker_kill: float | None = None
        self.worker_kills = 0
        self.problems: list[str] = []

    def run(self, name: str, started: float) -> None:
        at = round(time.monotonic() - started, 1)
        try:
            detail = getattr(self, name)()
        except Exception as exc:  # a fault that could not be injected is a drill failure, not a crash
            detail = f"failed: {type(exc).__name__}: {exc}"
            self.problems.append(f"fault {name} at {at}s could not run: {exc}")
        log(f"{at:6.1f}s {name}: {detail}")
        self.done.append({"at": at, "fault": name, "detail": detail})

    def celery_worker_kill(self) -> str:
        pids = []
        for worker in self.service.workers.values():
            pids += [worker.pid, *children(worker.pid)]
            worker.kill()
        self.last_worker_kill = time.monotonic()
        self.worker_kills += 1
        time.sleep(1.0)  # deadlines fall due meanwhile: the sweep and the requests must cope
        self.service.worker_start()
        return f"SIGKILL to pids {pids}, restarted"

    def _web_worker_kill(self, server: str) -> str:
        workers = web_workers(self.service.web[server])
        if not workers:
            raise RuntimeError(f"{server} has no worker process to kill")
        victim = workers[0]
        os.kill(victim, signal.SIGKILL)
        self.kills.append((time.monotonic(), server))
        return f"SIGKILL to worker {victim} of {workers}"

    def uvicorn_worker_kill(self) -> str:
        return self._web_worker_kill("uvicorn")

    def gunicorn_worker_kill(self) -> str:
        return self._web_worker_kill("gunicorn")

    def database_connections_terminate(self) -> str:
        import psycopg

        name = urlsplit(self.database_url).path.lstrip("/")
        with psycopg.connect(harness.database_url_named(self.database_url, "postgres"), autocommit=True) as conn:
            row = conn.execute("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                               "WHERE datname = %s AND pid <> pg_backend_pid()", (name,)).fetchone()
        return f"{row[0] if row else 0} connections terminated"

    def redis_outage(self) -> str:
        if self.redis is None:
            raise RuntimeError("the service runs on no Redis of the drill's own")
        self.redis.stop()
        self._back_after("redis_outage", self.args.redis_outage_seconds, self.redis.start)
        return f"Redis on port {self.redis.port} stopped for {self.args.redis_outage_seconds:.0f}s"

    def database_cut(self) -> str:
        if self.database_proxy is None:
            raise RuntimeError("the service reaches PostgreSQL through no proxy of the drill's")
        self.database_proxy.drop()
        self._back_after("database_cut", self.args.database_cut_seconds, self.database_proxy.restore)
        return f"database connections cut, new ones refused for {self.args.database_cut_seconds:.0f}s"

    def _back_after(self, name: str, seconds: float, restore: Callable[[], None]) -> None:
        """In a thread (the schedule goes on): after ``seconds`` undo the fault, then time how long
        the service takes to answer /readyz again on both servers."""
        began = time.monotonic()

        def run() -> None:
            time.sleep(seconds)
            try:
                restore()
            except Exception as exc:  # noqa: BLE001 - a drill failure, reported
                self.problems.append(f"{name}: could not undo the fault: {exc}")
                self.outages.append((began, time.monotonic() + 600))
                return
            ended = time.monotonic()
            self.outages.append((began, ended + self.args.recovery_bound))
            took = self.service.ready_after(self.args.recovery_bound + 20)
            self.recovered.append({"fault": name, "seconds_back": None if took is None else round(took, 1)})
            if took is None or took > self.args.recovery_bound:
                self.problems.append(f"{name}: the service answered /readyz {took and round(took, 1)}s after the "
                                     f"fault ended (bound {self.args.recovery_bound:.0f}s)")

        thread = threading.Thread(target=run, name=f"undo-{name}", daemon=True)
        thread.start()
        self.recoveries.append(thread)

    def recoveries_join(self) -> None:
        for thread in self.recoveries:
            thread.join(timeout=self.args.redis_outage_seconds + self.args.recovery_bound + 60)

    def verify_ledger_live(self) -> str:
        done = manage(self.env, "verify_ledger")
        if done.returncode:
            self.problems.append(f"verify_ledger while the rounds moved: exit {done.returncode}: "
                                 f"{tail(done.stderr + done.stdout)}")
        return f"exit {done.returncode}: {tail(done.stdout + done.stderr, 300)}"


class ConnectionCount:
    """The service's PostgreSQL connections, sampled every second from the server's ``postgres``
    database (so that terminating the drill database's connections does not end this one)."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.samples: list[int] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        import psycopg

        name = urlsplit(self.database_url).path.lstrip("/")
        with psycopg.connect(harness.database_url_named(self.database_url, "postgres"), autocommit=True) as conn:
            while not self.stopping.wait(1.0):
                row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)).fetchone()
                self.samples.append(int(row[0]) if row else 0)

    def stop(self) -> dict[str, Any]:
        self.stopping.set()
        self.thread.join(timeout=5)
        return {"peak": max(self.samples, default=None), "last": self.samples[-1] if self.samples else None}


def manage(env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *command], cwd=harness.ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def tail(text: str, length: int = 1200) -> str:
    return text.strip()[-length:]


def schedule(seconds: float, cycle: float, wanted: set[str] | None = None) -> list[tuple[float, str]]:
    """The faults (``wanted``, default all) at their times (seconds after the traffic starts), one
    cycle after another."""
    plan = []
    start = 0.0
    while start < seconds:
        plan += [(start + share * cycle, name) for share, name in FAULTS
                 if start + share * cycle < seconds and (wanted is None or name in wanted)]
        start += cycle
    return plan


# --- the checks on the database --------------------------------------------------------------------------


def timelines(now: datetime) -> tuple[list[Timeline], list[str]]:
    """Every round's ledger replayed for the deadline check (Django is set up by then)."""
    from games import ledger
    from games.models import Game

    lines, problems = [], []
    for game in Game.objects.order_by("pk").iterator():
        state = ledger.initial_state(game)
        marks = []
        for move in game.moves.order_by("seq"):
            before = (state.turns, state.turn)
            try:
                ledger.replay_action(state, move.actor, move.seat, move.action)
            except (engine.ActionError, engine.IllegalAction) as exc:
                problems.append(f"game {game.pk} seq {move.seq}: the replay refuses the row: {exc}")
                break
            marks.append(ClockMark(seq=move.seq, actor=move.actor, kind=str(move.action.get("type")),
                                   created_at=move.created_at, turns_before=before[0],
                                   turn_passed=before != (state.turns, state.turn),
                                   hermann_open_after=state.hermann_open, active_after=state.status == "active"))
        rules = engine.RuleSet.from_json(game.rules)
        lines.append(Timeline(game=game.pk, started_at=game.created_at, turn_seconds=rules.turn_seconds,
                              hermann_seconds=rules.hermann_seconds, marks=marks, active=game.status == "active",
                              deadline=game.deadline, hermann_deadline=game.hermann_deadline))
    return lines, problems


def database_settled(grace: float) -> tuple[int, int, int]:
    """(deliveries not delivered or failed, rounds still running, of those with a deadline passed > grace)."""
    from django.db.models import Q

    from games.models import Game
    from streams.models import WebhookDelivery

    now = datetime.now(UTC)
    open_deliveries = WebhookDelivery.objects.exclude(status__in=("delivered", "failed")).count()
    active = Game.objects.filter(status="active")
    late = now - timedelta(seconds=grace)
    overdue = active.filter(Q(deadline__lt=late) | Q(hermann_deadline__lt=late)).count()
    return open_deliveries, active.count(), overdue


# --- the run ------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", action="store_true",
                        help="CI: 6 tables, 30 s of traffic, one cycle of faults (the default: 10 tables, 240 s)")
    parser.add_argument("--tables", type=int, help="persons, each at a table of their own with bots")
    parser.add_argument("--seconds", type=float, help="traffic time")
    parser.add_argument("--cycle-seconds", type=float, default=40.0, help="the faults come again after this")
    parser.add_argument("--turn-seconds", type=int, default=3)
    parser.add_argument("--hermann-seconds", type=int, default=2)
    parser.add_argument("--stall-share", type=float, default=0.12, help="turns a person leaves to the clock")
    parser.add_argument("--stall-extra", type=float, default=2.5,
                        help="seconds a person waits past a deadline it left (the sweep runs every 1 s)")
    parser.add_argument("--think", type=float, default=0.15, help="seconds between a person's moves")
    parser.add_argument("--retry-seconds", type=float, default=30.0, help="a client gives a request up after this")
    parser.add_argument("--cut-window", type=float, default=10.0,
                        help="connection errors this long after a web worker kill are the kill's")
    parser.add_argument("--drain-seconds", type=float, default=30.0,
                        help="after the traffic, wait at most this long for the deliveries to settle ...")
    parser.add_argument("--recovery-seconds", type=float, default=70.0,
                        help="... or until this long after the last Celery worker kill or outage (the webhook sweep "
                             "re-queues deliveries whose message was lost after 60 s), whichever is later")
    parser.add_argument("--faults", default=",".join(dict.fromkeys(name for _share, name in FAULTS)),
                        help="which faults to bring (comma-separated; empty: none, a control run)")
    parser.add_argument("--no-flood", action="store_true", help="without the slow-webhook flood beside the persons")
    parser.add_argument("--flood-think", type=float, default=1.5,
                        help="seconds between the flooding guest's moves (each queues ten 3 s deliveries)")
    parser.add_argument("--redis-outage-seconds", type=float, default=15.0)
    parser.add_argument("--database-cut-seconds", type=float, default=4.0)
    parser.add_argument("--recovery-bound", type=float, default=10.0,
                        help="after a Redis outage or a database cut, the service answers /readyz within this")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default=os.environ.get(
        "DRILL_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_drill"))
    parser.add_argument("--broker-url", default=os.environ.get("DRILL_BROKER_URL", "redis://127.0.0.1:6379/4"))
    parser.add_argument("--cache-url", default=os.environ.get("DRILL_CACHE_URL", "redis://127.0.0.1:6379/5"))
    args = parser.parse_args(argv)
    args.tables = args.tables or (6 if args.short else 10)
    args.seconds = args.seconds or (30.0 if args.short else 240.0)
    args.faults = {name for name in args.faults.split(",") if name.strip()}
    unknown = args.faults - {name for _share, name in FAULTS}
    if unknown:
        parser.error(f"unknown faults: {', '.join(sorted(unknown))}")
    if not args.database_url.startswith(("postgres://", "postgresql://")):
        parser.error("the drill needs PostgreSQL (--database-url): it terminates the service's connections")
    return Drill(args).run()


class Drill:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.tmp = Path(tempfile.mkdtemp(prefix="maumau-drill-"))
        self.queue = f"drill-{uuid.uuid4().hex[:8]}"
        # With the Redis outage, broker and cache are a Redis of the drill's own (--broker-url and
        # --cache-url are then unused); with the database cut, the service reaches PostgreSQL through a proxy.
        self.redis = harness.RedisServer(self.tmp) if "redis_outage" in args.faults else None
        self.broker_url = self.redis.url(0) if self.redis else args.broker_url
        cache_url = self.redis.url(1) if self.redis else args.cache_url
        self.database_proxy: harness.DroppingProxy | None = None
        service_database_url = args.database_url
        if "database_cut" in args.faults:
            parts = urlsplit(args.database_url)
            self.database_proxy = harness.DroppingProxy(parts.port or 5432, parts.hostname or "127.0.0.1")
            user = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
            service_database_url = parts._replace(netloc=f"{user}127.0.0.1:{self.database_proxy.port}").geturl()
        self.env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
        self.env.update({
            "DJANGO_SETTINGS_MODULE": SETTINGS, "DATABASE_URL": service_database_url,
            "CELERY_BROKER_URL": self.broker_url, "CACHE_URL": cache_url,
            "DRILL_QUEUE": self.queue, "MAUMAU_CLOCK_QUEUE": f"{self.queue}-clocks",
            "MAUMAU_BOT_QUEUE": f"{self.queue}-bots", "MAUMAU_DELIVERY_QUEUE": f"{self.queue}-deliveries",
            "DRILL_WEBHOOK_SWEEP_SECONDS": "5",
            "MAUMAU_VAR_DIR": str(self.tmp), "MAUMAU_WRITE_RATE": "100000/min", "MAUMAU_SIGNUP_RATE": "100000/min",
            "WEBHOOK_ALLOW_PRIVATE": "1", "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8", "WEBHOOK_BACKOFF_SECONDS": "1",
            # A delivery claimed by a worker that died is sent again once its lease runs out; the lease
            # must outlast the longest attempt (the task's hard time limit), so both are short here.
            "WEBHOOK_TIMEOUT_SECONDS": "3", "CELERY_TASK_SOFT_TIME_LIMIT": "8", "CELERY_TASK_TIME_LIMIT": "10",
            "WEBHOOK_LEASE_SECONDS": "15",
            # A delivery whose queue message was lost is sent again by the (5 s) sweep after 10 s.
            "WEBHOOK_REQUEUE_AFTER_SECONDS": "10",
            "LOG_LEVEL": "WARNING", "PYTHONPATH": str(harness.ROOT), "PYTHONUNBUFFERED": "1",
        })
        self.journal = Journal()
        self.secrets: dict[int, str] = {}
        self.service = Service(self.env, self.tmp, self.queue)
        self.faults = Faults(self.service, args.database_url, self.env, args, self.redis, self.database_proxy)
        self.setup_seconds = 0.0
        self.flood_player = 0  # the flooding guest's moves are no person's of the move check

    def run(self) -> int:
        args = self.args
        began = time.monotonic()
        log(f"database {urlsplit(args.database_url).path}, queue {self.queue}, logs in {self.tmp}")
        harness.database_create(args.database_url, fresh=True)
        harness.migrate(self.env)
        receiver = Receiver(self.secrets)
        try:
            if self.redis is not None:
                self.redis.start()
            self.service.start()
            self.setup_seconds = time.monotonic() - began
            log(f"service up after {self.setup_seconds:.1f}s: uvicorn :{self.service.uvicorn_port}, "
                f"gunicorn :{self.service.gunicorn_port}, Celery worker and beat")
            connections = ConnectionCount(args.database_url)
            traffic = self.traffic(receiver)
            self.faults.recoveries_join()
            traffic["database_connections"] = connections.stop()
            traffic["web_workers_at_the_end"] = {name: len(web_workers(process))
                                                 for name, process in self.service.web.items()}
            settle = self.settle()
            data = self.collect()
            data["exited"] = self.service.exited()
        finally:
            self.service.stop()
            receiver.close()
            self.queue_drop()
            if self.redis is not None:
                self.redis.stop()
        data["clock_resolutions"] = self.service.clock_resolutions()
        with ThreadPoolExecutor(2) as pool:  # two Django start-ups at once
            verify = dict(zip(VERIFY, pool.map(lambda name: manage(self.env, name), VERIFY), strict=True))
        result = self.report(began, traffic, settle, data, receiver, verify)
        print(json.dumps(result, indent=2, default=str))
        return 0 if result["ok"] else 1

    def traffic(self, receiver: Receiver) -> dict[str, Any]:
        args = self.args
        hook_url = f"http://127.0.0.1:{receiver.port}/hook"
        persons = [Person(index, server, self.service.port(server), hook_url, self.secrets, self.journal, args)
                   for index, server in ((i, ("uvicorn", "gunicorn")[i % 2]) for i in range(args.tables))]
        with ThreadPoolExecutor(len(persons)) as pool:
            list(pool.map(Person.sign_up, persons))
            made = persons[0].must("POST", "/api/v1/leagues", {"name": "Drill league", "rules": "classic",
                                                                "options": {"turn_seconds": args.turn_seconds}},
                                   expect=(201,))
            league = made["id"]
            # only members play at a league's tables: every person joins it with its invite code first
            list(pool.map(lambda p: p.must("POST", f"/api/v1/leagues/{league}/join", {"code": made["invite_code"]},
                                           expect=(200,)), persons[1:]))
            # the classic tables play in the league
            list(pool.map(lambda p: p.table_open(league if p.rules == "classic" else None), persons))
        silent = SilentReceiver()
        flood = None
        if not args.no_flood:
            flood = WebhookFlood(f"http://127.0.0.1:{self.service.port('uvicorn')}", silent.port,
                                 think=args.flood_think, seed=args.seed)
            flood.sign_up()
            self.flood_player = flood.player
        started = time.monotonic()
        stop = started + args.seconds
        if flood is not None:
            flood.start()
        threads = [threading.Thread(target=p.run, args=(stop,), name=f"person-{p.index}", daemon=True) for p in persons]
        for thread in threads:
            thread.start()
        log(f"{len(persons)} persons playing for {args.seconds:.0f}s")
        for at, name in schedule(args.seconds, min(args.cycle_seconds, args.seconds), args.faults):
            time.sleep(max(0.0, started + at - time.monotonic()))
            self.faults.run(name, started)
        for thread in threads:
            thread.join(timeout=max(0.0, stop - time.monotonic()) + args.retry_seconds + 20)
        flooded = flood.stop(webhooks_remove=True) if flood is not None else None
        silent.close()
        hung = [t.name for t in threads if t.is_alive()]
        if hung:
            self.journal.add(self.journal.unexpected, f"clients still running after the traffic: {hung}")
        return {"started": started, "ended": time.monotonic(), "league": league, "webhook_flood": flooded}

    def settle(self) -> dict[str, Any]:
        """Wait (bounded) until every delivery is delivered or failed and every round is over."""
        os.environ.update({k: self.env[k] for k in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL",
                                                   "CACHE_URL", "DRILL_QUEUE", "MAUMAU_VAR_DIR")})
        import django

        django.setup()
        from django.db import connections

        began = time.monotonic()
        end = began + self.args.drain_seconds
        if self.faults.last_worker_kill is not None:
            end = max(end, self.faults.last_worker_kill + self.args.recovery_seconds)
        if self.flood_player:  # the persons' deliveries wait behind the flood's (which end with its webhooks)
            end = max(end, began + self.args.recovery_seconds)
        if self.faults.outages:  # a Redis without persistence loses queued messages: the sweep re-queues them
            end = max(end, max(until for _from, until in self.faults.outages) + self.args.recovery_seconds)
        state = database_settled(grace=5)
        while time.monotonic() < end and state[:2] != (0, 0):
            time.sleep(1.0)
            state = database_settled(grace=5)
        connections.close_all()
        log(f"settled after {time.monotonic() - began:.1f}s: {state[0]} deliveries open, {state[1]} rounds running")
        return {"seconds": round(time.monotonic() - began, 1), "bound_seconds": round(end - began, 1),
                "deliveries_open": state[0], "rounds_running": state[1], "rounds_overdue": state[2]}

    def collect(self) -> dict[str, Any]:
        from games.models import Move
        from streams.models import WebhookDelivery

        now = datetime.now(UTC)
        rows = [PlayerRow(game=g, seq=s, player=p, action=a) for g, s, p, a in
                Move.objects.filter(actor="player").exclude(player_id=self.flood_player)
                .values_list("game_id", "seq", "player_id", "action")]
        lines, replay_problems = timelines(now)
        statuses = dict(WebhookDelivery.objects.values_list("pk", "status"))
        actors = Counter(Move.objects.values_list("actor", flat=True))
        return {"rows": rows, "timelines": lines, "replay_problems": replay_problems, "statuses": statuses,
                "now": now, "actors": dict(actors)}

    def queue_drop(self) -> None:
        try:
            import redis

            redis.Redis.from_url(self.broker_url, socket_connect_timeout=2).delete(
                self.queue, *(self.env[setting] for _name, setting, _size in Service.WORKERS))
        except Exception as exc:  # noqa: BLE001 - cleanup only
            log(f"could not drop the queue {self.queue}: {exc}")

    def report(self, began: float, traffic: dict[str, Any], settle: dict[str, Any], data: dict[str, Any],
               receiver: Receiver, verify: dict[str, subprocess.CompletedProcess[str]]) -> dict[str, Any]:
        journal, args = self.journal, self.args
        moves = acknowledged_moves_check(journal.acks, data["rows"], journal.unanswered)
        clocks = deadlines_check(data["timelines"], now=data["now"], grace=timedelta(seconds=5))
        clocks.problems[:0] = data["replay_problems"]
        clocks.counts["applied_by"] = data["clock_resolutions"]
        hooks = deliveries_check(data["statuses"], receiver.accepted, receiver.bad_signatures,
                                 cut_requests=receiver.cut_requests, worker_kills=self.faults.worker_kills)
        hooks.counts["first_attempts_refused_by_the_receiver"] = len(receiver.refused)
        during, wrong = server_errors_split(journal.server_errors, self.faults.outages)
        errors = Report(counts={"answers_5xx": len(wrong), "answers_503_during_an_outage": len(during)})
        if wrong:  # when, in seconds of traffic: compare with the faults' times
            errors.problems = [f"{len(wrong)} answers with a 5xx status"]
            errors.problems += [f"at {at - traffic['started']:.1f}s: {what}" for at, what in wrong[:10]]
        explained, unexplained = cuts_split(journal.cuts, self.faults.kills, args.cut_window)
        errors.counts.update({"connection_errors_after_a_kill": len(explained),
                              "connection_errors_otherwise": len(unexplained)})
        errors.problems += [f"a connection error with no web worker killed just before: {cut}"
                            for cut in unexplained[:10]]
        commands = Report(counts={name: done.returncode for name, done in verify.items()})
        for name, done in verify.items():
            if done.returncode:
                commands.problems.append(f"{name}: exit {done.returncode}: {tail(done.stderr + done.stdout)}")
        commands.problems += self.faults.problems
        clients = Report(counts={"unexpected_answers": len(journal.unexpected)},
                         problems=[f"unexpected: {u}" for u in journal.unexpected[:10]])
        processes = Report(counts={"exited_on_their_own": data["exited"]},
                           problems=[f"{name} exited on its own (code {code})"
                                     for name, code in data["exited"].items()])
        checks = {"moves_acknowledged_once": moves, "no_5xx": errors, "deadlines_resolved_once": clocks,
                  "webhooks_settled": hooks, "verify_commands": commands, "clients": clients,
                  "processes_kept_running": processes}
        ok = not any(check.problems for check in checks.values())
        return {
            "drill": "short" if args.short else "long",
            "ok": ok,
            "failed": sorted(name for name, check in checks.items() if check.problems),
            "seconds": {"total": round(time.monotonic() - began, 1), "start": round(self.setup_seconds, 1),
                        "traffic": round(traffic["ended"] - traffic["started"], 1), "settle": settle},
            "tables": args.tables,
            "database_connections_during_the_traffic": traffic["database_connections"],
            "web_workers_at_the_end": traffic["web_workers_at_the_end"],
            "answers": dict(sorted(journal.counts.items())),
            "ledger_rows_by_actor": data["actors"],
            "clock_lag_ms": clocks.counts["lag_ms"],
            "webhook_flood": traffic["webhook_flood"],
            "faults": self.faults.done,
            "recovered": self.faults.recovered,
            "checks": {name: {"counts": check.counts, "problems": check.problems[:20],
                              "more_problems": max(0, len(check.problems) - 20)}
                       for name, check in checks.items()},
            "logs": str(self.tmp),
            **({} if ok else {"log_excerpts": self.service.log_excerpts()}),
        }


if __name__ == "__main__":
    sys.exit(main())
