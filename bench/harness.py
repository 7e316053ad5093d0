"""What the benchmarks share with each other and with the tests that start real servers and workers:
percentiles, scratch PostgreSQL databases, and child processes (gunicorn, uvicorn, Celery) started
from the repository root, waited for, and stopped together with their own children.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent

# --- figures --------------------------------------------------------------------------------------------


#: clock ticks a second, the unit of /proc/<pid>/stat's CPU times
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_tree_cpu(pid: int, *, reaped: bool = False) -> float:
    """User + system CPU seconds of a process and its living children (a prefork pool, gunicorn's
    workers); with ``reaped``, also what its children that ended and were waited for had used."""
    total, pids = 0.0, [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            pids += [int(p) for p in children.read().split()]
    except OSError:
        pass
    for each in pids:
        try:
            with open(f"/proc/{each}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used = int(fields[11]) + int(fields[12])
        if reaped:
            used += int(fields[13]) + int(fields[14])
        total += used / CLOCK_TICKS
    return total

def percentile(values: Iterable[float], share: float) -> float | None:
    """The nearest-rank percentile (the smallest value with ``share`` of all at or below it); None
    without values, so that a report says "no figure" rather than a made-up zero."""
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


# --- databases ------------------------------------------------------------------------------------------


def database_url_named(url: str, name: str) -> str:
    """``url`` pointing at the database ``name`` of the same server."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def _server(url: str) -> tuple[str, str]:
    """The database's name and the URL of the server's ``postgres`` database, to create and drop it from."""
    return urlsplit(url).path.lstrip("/"), database_url_named(url, "postgres")


def database_create(url: str, *, fresh: bool = False) -> None:
    """Create the PostgreSQL database of ``url`` if missing; ``fresh``: drop it first (a database
    grows with every run, and runs to compare must start from the same state)."""
    import psycopg
    from psycopg import sql

    name, admin = _server(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        if fresh:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def database_drop(url: str) -> None:
    """Drop the PostgreSQL database of ``url``, closing the connections still open to it."""
    import psycopg
    from psycopg import sql

    name, admin = _server(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def postgres_url() -> str | None:
    """``DATABASE_URL`` when it names a PostgreSQL server (whoever starts servers then makes a database
    of its own there), else None (they use an SQLite file)."""
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


#: Throttles a live test or benchmark would trip by design (many sign-ups and moves from one address).
UNTHROTTLED = {"MAUMAU_WRITE_RATE": "100000/min", "MAUMAU_SIGNUP_RATE": "100000/min"}


def server_env(tmp: Path, database_url: str | None = None, **settings: str) -> dict[str, str]:
    """The environment of a server a test or benchmark starts: this process's, less the database,
    broker and cache it was given (the server gets ``database_url``, or an SQLite file under ``tmp``),
    with the project's settings and ``settings`` on top."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update({"DJANGO_SETTINGS_MODULE": "maumau.settings", "MAUMAU_VAR_DIR": str(tmp), "PYTHONPATH": str(ROOT),
                **settings})
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


@contextmanager
def scratch_database(name: str) -> Iterator[None]:
    """Django set up in this process on a database of its own, made empty and migrated, dropped after:
    for the benchmarks that measure in-process (an SQLite file in a scratch folder, or ``<name>_<pid>``
    on the PostgreSQL server DATABASE_URL names). The test client is let in (``testserver``)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
    import django
    from django.conf import settings

    django.setup()
    from django.db import connection

    database = settings.DATABASES["default"]
    scratch = tempfile.mkdtemp(prefix=f"{name}-")
    if connection.vendor == "sqlite":
        database.setdefault("TEST", {})["NAME"] = os.path.join(scratch, "bench.sqlite3")
    else:
        database.setdefault("TEST", {})["NAME"] = f"{name}_{os.getpid()}"
    settings.ALLOWED_HOSTS = ["testserver", *settings.ALLOWED_HOSTS]
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0, keepdb=False)
        shutil.rmtree(scratch, ignore_errors=True)


def migrate(env: Mapping[str, str]) -> None:
    """``manage.py migrate`` in a child process, on the database its ``env`` names."""
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=dict(env),
                   check=True)


# --- processes ------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Process:
    """``python -m ARGS`` from the repository root, its output appended to ``log``. It runs in a
    session of its own, so that stopping it reaches the children it forked (gunicorn's and Celery's
    workers) and a Ctrl-C meant for the caller does not."""

    def __init__(self, args: list[str], env: Mapping[str, str], log: Path, name: str = "", cwd: Path = ROOT) -> None:
        self.name = name or args[0]
        self.log = log
        with log.open("ab") as output:  # the child holds its own copy of the file
            self.popen = subprocess.Popen([sys.executable, "-m", *args], cwd=cwd, env=dict(env), stdout=output,
                                          stderr=subprocess.STDOUT, start_new_session=True)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def output(self, last: int = 4000) -> str:
        """The last ``last`` characters of its log."""
        return self.log.read_text(errors="replace")[-last:] if self.log.exists() else ""

    def _wait(self, ready: Callable[[], bool], what: str, timeout: float) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.popen.poll() is not None:
                raise RuntimeError(f"{self.name} exited while starting:\n{self.output()}")
            if ready():
                return
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} {what} after {timeout}s:\n{self.output()}")

    def wait_for_output(self, text: str, timeout: float = 30.0) -> None:
        """Until ``text`` shows in its log (Celery's worker writes " ready." when it takes tasks)."""
        self._wait(lambda: text in self.output(last=1 << 20), f"did not write {text!r}", timeout)

    def wait_for_http(self, port: int, timeout: float = 30.0) -> None:
        """Until ``GET /api/v1/me`` on ``port`` answers 401: the app is loaded, routed and checks tokens."""

        def answers() -> bool:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            try:
                connection.request("GET", "/api/v1/me")
                return connection.getresponse().status == 401
            except OSError:
                return False
            finally:
                connection.close()

        self._wait(answers, f"did not answer on port {port}", timeout)

    def _signal_group(self, number: signal.Signals) -> None:
        try:
            os.killpg(self.popen.pid, number)
        except ProcessLookupError:
            pass

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM to it and its children; SIGKILL if they are not gone after ``timeout``."""
        if self.popen.poll() is None:
            self._signal_group(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
                return
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def kill(self) -> None:
        """SIGKILL to it and its children, as a crash would end them."""
        self._signal_group(signal.SIGKILL)
        self.popen.wait()


def gunicorn(application: str, port: int, *, workers: int, threads: int, env: Mapping[str, str],
             log: Path) -> Process:
    """gunicorn with threaded workers (gthread) and keep-alive sockets, on 127.0.0.1."""
    return Process(["gunicorn", application, "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
                    "--threads", str(threads), "--worker-class", "gthread", "--keep-alive", "30",
                    "--log-level", "warning"], env, log)


def uvicorn(application: str, port: int, *, env: Mapping[str, str], log: Path, options: Iterable[str] = (),
            cwd: Path = ROOT) -> Process:
    """One uvicorn process on 127.0.0.1; ``options``: more of its command-line options. Forwarded headers
    are left to the app (``MAUMAU_NUM_PROXIES``), as the Procfile does."""
    return Process(["uvicorn", application, "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
                    "--no-proxy-headers", *options], env, log, cwd=cwd)


def celery(kind: str, args: list[str], *, env: Mapping[str, str], log: Path, cwd: Path = ROOT) -> Process:
    """``celery -A maumau KIND ARGS``: ``worker`` or ``beat``; ``cwd``: another checkout's code."""
    return Process(["celery", "-A", "maumau", kind, *args], env, log, name=f"celery {kind}", cwd=cwd)


class ProcfileProcess(Process):
    """One line of the Procfile, run as honcho runs it (``sh -c``, its ``${VAR:-default}`` expanded from
    ``env``) in ``cwd``, with ``.venv/bin`` first on the PATH: the processes the run command starts, as
    it starts them, whatever the Procfile says at this commit."""

    def __init__(self, name: str, env: Mapping[str, str], log: Path, cwd: Path) -> None:
        self.name = name
        self.log = log
        command = procfile()[name]
        env = {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.defpath)}"}
        with log.open("ab") as output:
            self.popen = subprocess.Popen(["/bin/sh", "-c", f"exec {command}"], cwd=cwd, env=env, stdout=output,
                                          stderr=subprocess.STDOUT, start_new_session=True)


def procfile() -> dict[str, str]:
    """The Procfile's processes: name -> command."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    return {name.strip(): command.strip() for name, command in (line.split(":", 1) for line in lines if ":" in line)}


def procfile_celery(env: Mapping[str, str], tmp: Path) -> list[ProcfileProcess]:
    """Every Celery process of the Procfile (its workers and beat) in ``tmp`` (beat's schedule file goes
    under ``tmp/var``); each worker waited for until it takes tasks."""
    (tmp / "var").mkdir(parents=True, exist_ok=True)
    names = [name for name, command in procfile().items() if command.startswith("celery ")]
    started = [ProcfileProcess(name, env, tmp / f"{name}.log", tmp) for name in names]
    for process, name in zip(started, names, strict=True):
        if " worker" in procfile()[name]:
            process.wait_for_output(" ready.", timeout=90)
    return started


class RedisServer:
    """A ``redis-server`` of the caller's own (no persistence) on a free port, to stop and start again
    as an outage would (the fault drill, the broker-outage test): never the machine's shared Redis."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.tmp = tmp
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        with (self.tmp / "redis.log").open("ab") as output:
            self.process = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                             "--save", "", "--appendonly", "no", "--daemonize", "no",
                                             "--dir", str(self.tmp)], stdout=output, stderr=subprocess.STDOUT)
        import redis

        end = time.monotonic() + 15
        while True:
            try:
                if redis.Redis(port=self.port, socket_connect_timeout=1).ping():
                    return
            except redis.RedisError:
                if time.monotonic() > end or self.process.poll() is not None:
                    raise RuntimeError(f"redis-server on port {self.port} did not start") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class DroppingProxy:
    """A TCP proxy on 127.0.0.1 in front of a server that can cut every connection through it and
    refuse new ones for a while: a phone going through a tunnel (the browser tests), or the network
    between the service and its database (the fault drill)."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target_port, self.target_host = target_port, target_host
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.blocked = threading.Event()
        self.sockets: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:  # refused, or registered before a drop() that follows can cut it
                if self.blocked.is_set():
                    client.close()
                    continue
                upstream = socket.create_connection((self.target_host, self.target_port))
                self.sockets.update((client, upstream))
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                target.sendall(data)
        for end in (source, target):
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def drop(self) -> None:
        """Cut every open connection and refuse new ones until :meth:`restore`."""
        with self.lock:
            self.blocked.set()
            for end in self.sockets:
                with suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
            self.sockets.clear()

    def restore(self) -> None:
        self.blocked.clear()

    def close(self) -> None:
        self.drop()
        self.listener.close()


# --- the players' side of the HTTP benchmarks (bench.http, bench.push) ------------------------------


class Client:
    """One keep-alive HTTP/1.1 connection with a token; answers must carry a Content-Length."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.buffer = b""
        self.head = b"Host: 127.0.0.1\r\nAccept: application/json\r\n"
        if token:
            self.head += b"Authorization: Token " + token.encode() + b"\r\n"

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        payload = json.dumps(body).encode() if body is not None else b""
        request = b"".join([
            f"{method} {path} HTTP/1.1\r\n".encode(), self.head,
            b"Content-Type: application/json\r\nContent-Length: ", str(len(payload)).encode(), b"\r\n\r\n", payload,
        ])
        started = time.perf_counter()
        for attempt in range(2):
            try:
                if self.sock is None:
                    self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
                    self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.sock.sendall(request)
                status, data = self._answer()
                break
            except OSError:
                self.close()
                if attempt:
                    raise
        elapsed = time.perf_counter() - started
        return status, (json.loads(data) if data else None), elapsed

    def _answer(self) -> tuple[int, bytes]:
        assert self.sock is not None
        buffer = self.buffer
        while (end_of_head := buffer.find(b"\r\n\r\n")) < 0:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionResetError("closed by the server")
            buffer += chunk
        lines = buffer[:end_of_head].decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length, close = 0, False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection":
                close = "close" in value.lower()
            elif name == "transfer-encoding":
                raise RuntimeError("chunked answers are not expected here")
        end = end_of_head + 4 + length
        while len(buffer) < end:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionResetError("closed by the server")
            buffer += chunk
        self.buffer = buffer[end:]
        if close:
            self.close()
        return status, buffer[end_of_head + 4:end]


def sign_up(port: int, name: str) -> Client:
    status, body, _ = Client(port).call("POST", "/api/v1/players", {"name": name})
    assert status == 201, (status, body)
    return Client(port, body["token"])


def table_for_two(port: int, host: str, guest: str, *, rules: str = "classic", options: dict[str, Any] | None = None,
                  before_table: Callable[[Client], None] | None = None) -> tuple[list[Client], int]:
    """Two new players at a new table of two (``host`` made it, ``guest`` joined): their clients and
    the table's id. ``before_table``: what each does first, once signed up (a push subscription)."""
    seats = [sign_up(port, host), sign_up(port, guest)]
    if before_table is not None:
        for client in seats:
            before_table(client)
    status, table, _ = seats[0].call("POST", "/api/v1/tables",
                                     {"rules": rules, "options": options or {}, "max_players": 2})
    assert status == 201, table
    assert seats[1].call("POST", f"/api/v1/tables/{table['id']}/join")[0] == 200
    return seats, table["id"]


def action_chosen(state: dict[str, Any], rng: Any) -> dict[str, Any]:
    """A random legal action of a game view, with the suit or names it asks for and the view's version."""
    action = dict(rng.choice(state["legal_actions"]))
    names = action.get("as")
    if isinstance(names, dict):
        action["as"] = {k: rng.choice(v) if isinstance(v, list) else v for k, v in names.items()}
    action["expected_version"] = state["version"]
    return action
