"""Benchmark: one uvicorn process holding 100 / 1,000 / 3,000 / 10,000 idle waiting clients. A script
that prints JSON, not a test.

    python -m bench.streams_ladder                                    # PostgreSQL, postgres channel
    python -m bench.streams_ladder --steps 100 1000 --channel redis://127.0.0.1:6379/3

It migrates a fresh PostgreSQL database, starts one uvicorn process of the run command
(``maumau.asgi:application``, the pool's default bounds), signs up ``--players`` guests and deals
``--games`` rounds between them (without a turn clock: a timeout is a move, not idling), then climbs the
ladder. At each step it opens more idle clients
until the step's count is reached: 45 % ``/me/stream`` and 45 % game streams, spread over every
player and round (each a topic of its own), and 10 % long-polls (``?wait=60``, asked again when they
run out). Then, the clients idle, it reads from ``/proc`` over ``--idle-seconds``: the server's
threads, resident memory and CPU; from PostgreSQL the connections of the service; and then it plays
``--moves`` moves of a round whose game stream a watcher holds, and times each from the move's
request to its event at the watcher (p50/p99), checking that the watcher gets every ledger row once,
in order. Also: how many PostgreSQL connections the moves opened (the pool keeps them: none).

The client side is one asyncio process with a bare ``asyncio.Protocol`` per connection (no task, no
HTTP library), so that 10,000 connections fit on a small machine next to the server; it raises its
open-files limit (and the server's, which inherits it) with ``resource.setrlimit``. Everything runs
on 127.0.0.1. Compare figures of one run: a shared machine is noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench import harness

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/maumau_bench_ladder"


def raise_open_files(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else wanted
    target = max(soft, min(target, max(wanted, soft)))
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


# --- the server, seen from /proc and PostgreSQL -------------------------------------------------------


def proc_status(pid: int) -> dict[str, int]:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("Threads", "VmRSS"):
            values[key] = int(rest.split()[0])
    return values


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def ledger_rows(database_url: str) -> int:
    """Moves in the ledger: an idle window must add none (else it measured play, not idle clients)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        return int(conn.execute("SELECT count(*) FROM games_move").fetchone()[0])


def service_connections(database_url: str) -> tuple[int, set[int]]:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                            "AND application_name LIKE 'maumau%%' AND pid <> pg_backend_pid()").fetchall()
    return len(rows), {row[0] for row in rows}


# --- idle clients: one bare protocol each ----------------------------------------------------------------


class Waiting(asyncio.Protocol):
    """A GET held open. A stream: the status line proves it opened, the rest is read and dropped (a
    watcher notes each ``id:`` line's arrival). A long-poll: asked again each time it is answered."""

    def __init__(self, request: bytes, *, long_poll: bool = False, watch: dict[int, list[float]] | None = None) -> None:
        self.request, self.long_poll, self.watch = request, long_poll, watch
        self.opened: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.closed = False
        self.answers = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)
        if self.long_poll:
            self.opened.set_result(200)

    def data_received(self, data: bytes) -> None:
        if not self.opened.done():
            self.buffer += data
            if b"\r\n" in self.buffer:
                status = int(self.buffer.split(b" ", 2)[1])
                self.opened.set_result(status)
                if self.watch is None:
                    self.buffer = b""
            if self.watch is None:
                return
        if self.long_poll:
            self.buffer += data
            head, sep, body = self.buffer.partition(b"\r\n\r\n")
            if not sep:
                return
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            if len(body) >= length:
                self.buffer = b""
                self.answers += 1
                assert self.transport is not None
                self.transport.write(self.request)  # the same connection: keep-alive
            return
        if self.watch is not None:
            now = time.monotonic()
            self.buffer += data
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                if line.startswith(b"id: "):
                    self.watch.setdefault(int(line[4:]), []).append(now)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_result(0)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def get(path: str, token: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {token}\r\n\r\n".encode()


async def open_waiting(port: int, protocol: Waiting) -> Waiting:
    loop = asyncio.get_running_loop()
    await loop.create_connection(lambda: protocol, "127.0.0.1", port)
    status = await asyncio.wait_for(protocol.opened, 60)
    if status != 200:
        raise RuntimeError(f"a waiting client got {status}")
    return protocol


# --- the ladder -----------------------------------------------------------------------------------------


async def sign_up(http: httpx.AsyncClient, name: str) -> dict[str, Any]:
    response = await http.post("/api/v1/players", json={"name": name})
    response.raise_for_status()
    return response.json()


def auth(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Token {player['token']}"}


async def deal(http: httpx.AsyncClient, host: dict[str, Any], guest: dict[str, Any]) -> int:
    # No turn clock: with one, every round's deadline would pass during the ladder and its timeout
    # (a move, waking the round's streams) would run in the "idle" window.
    table = (await http.post("/api/v1/tables", json={"rules": "classic", "max_players": 2,
                                                     "options": {"turn_seconds": 0}},
                             headers=auth(host))).json()
    await http.post(f"/api/v1/tables/{table['id']}/join", headers=auth(guest))
    response = await http.post(f"/api/v1/tables/{table['id']}/rounds", json={}, headers=auth(host))
    response.raise_for_status()
    return int(response.json()["id"])


async def gather_bounded(jobs: list[Any], limit: int = 16) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def run(job: Any) -> Any:
        async with gate:
            return await job

    return await asyncio.gather(*(run(job) for job in jobs))


class Watched:
    """Ada and Bo play; Bo's game stream is the watcher, opened again for each new round."""

    def __init__(self, http: httpx.AsyncClient, port: int, ada: dict[str, Any], bo: dict[str, Any]) -> None:
        self.http, self.port, self.ada, self.bo = http, port, ada, bo
        self.game = 0
        self.arrivals: dict[int, list[float]] = {}
        self.watcher: Waiting | None = None

    async def new_round(self) -> None:
        if self.watcher is not None:
            self.watcher.close()
        self.game = await deal(self.http, self.ada, self.bo)
        self.arrivals = {}
        self.watcher = await open_waiting(self.port, Waiting(get(f"/api/v1/games/{self.game}/stream?after=0",
                                                                 self.bo["token"]), watch=self.arrivals))

    async def moves(self, count: int) -> dict[str, Any]:
        latencies: list[float] = []
        repeated = lost = 0
        done = 0
        while done < count:
            view = (await self.http.get(f"/api/v1/games/{self.game}", headers=auth(self.ada))).json()
            if view["status"] != "active":
                repeated += sum(len(times) - 1 for times in self.arrivals.values())
                lost += sum(1 for seq in range(1, view["version"] + 1) if seq not in self.arrivals)
                await self.new_round()
                continue
            mover = self.ada if view["turn"] == view["seat"] else self.bo
            mine = view if mover is self.ada else (await self.http.get(f"/api/v1/games/{self.game}",
                                                                       headers=auth(self.bo))).json()
            sent = time.monotonic()
            response = await self.http.post(f"/api/v1/games/{self.game}/actions", json=mine["legal_actions"][0],
                                            headers=auth(mover))
            if response.status_code != 200:
                continue
            version = response.json()["version"]
            limit = time.monotonic() + 10
            while version not in self.arrivals and time.monotonic() < limit:
                await asyncio.sleep(0.001)
            if version in self.arrivals:
                latencies.append((self.arrivals[version][0] - sent) * 1000)
            done += 1
        await asyncio.sleep(0.3)
        version = (await self.http.get(f"/api/v1/games/{self.game}", headers=auth(self.ada))).json()["version"]
        repeated += sum(len(times) - 1 for times in self.arrivals.values())
        lost += sum(1 for seq in range(1, version + 1) if seq not in self.arrivals)
        return {"p50_ms": _round(harness.percentile(latencies, 0.5)),
                "p99_ms": _round(harness.percentile(latencies, 0.99)),
                "max_ms": _round(max(latencies, default=None)), "timed": len(latencies), "lost": lost,
                "repeated": repeated}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


async def ladder(args: argparse.Namespace, port: int, pid: int, database_url: str) -> list[dict[str, Any]]:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(60)) as http:
        players = await gather_bounded([sign_up(http, f"P{n}") for n in range(args.players)])
        pairs = [(players[(2 * n) % len(players)], players[(2 * n + 1) % len(players)]) for n in range(args.games)]
        games = await gather_bounded([deal(http, host, guest) for host, guest in pairs], 8)
        seated = [(gid, pair[n % 2]) for n, (gid, pair) in enumerate(zip(games, pairs, strict=True))]
        watched = Watched(http, port, await sign_up(http, "Ada"), await sign_up(http, "Bo"))
        await watched.new_round()
        clients: list[Waiting] = []
        results = []
        for step in args.steps:
            started = time.monotonic()
            jobs = []
            for n in range(len(clients), step):
                kind = n % 20
                if kind < 9:
                    player = players[n % len(players)]
                    protocol = Waiting(get("/api/v1/me/stream", player["token"]))
                elif kind < 18:
                    gid, player = seated[n % len(seated)]
                    protocol = Waiting(get(f"/api/v1/games/{gid}/stream", player["token"]))
                else:
                    gid, player = seated[n % len(seated)]
                    protocol = Waiting(get(f"/api/v1/games/{gid}?wait=60", player["token"]), long_poll=True)
                jobs.append(open_waiting(port, protocol))
            clients.extend(await gather_bounded(jobs, args.open_concurrency))
            opened_in = time.monotonic() - started
            await asyncio.sleep(args.settle)
            rows0 = ledger_rows(database_url)
            cpu0, wall0 = cpu_seconds(pid), time.monotonic()
            await asyncio.sleep(args.idle_seconds)
            idle_cpu = (cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0)
            moves_while_idle = ledger_rows(database_url) - rows0
            status = proc_status(pid)
            connections, before = service_connections(database_url)
            moves = await watched.moves(args.moves)
            _after_count, after = service_connections(database_url)
            results.append({
                "idle_clients": step, "still_open": sum(1 for c in clients if not c.closed),
                "threads": status["Threads"], "rss_mb": round(status["VmRSS"] / 1024, 1),
                "idle_cpu_cores": round(idle_cpu, 3), "moves_while_idle": moves_while_idle,
                "long_polls_answered": sum(c.answers for c in clients),
                "postgresql_connections": connections,
                "connections_opened_by_moves": len(after - before),
                "move_to_watcher": moves, "seconds_to_open": round(opened_in, 1),
            })
            print(json.dumps(results[-1]), flush=True)
        if args.hold:
            print(json.dumps({"holding_seconds": args.hold, "server_pid": pid}), flush=True)
            await asyncio.sleep(args.hold)
        for client in clients:
            client.close()
        return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, nargs="+", default=[100, 1000, 3000, 10000])
    parser.add_argument("--moves", type=int, default=50, help="moves timed at each step")
    parser.add_argument("--players", type=int, default=1000, help="guests holding the idle clients")
    parser.add_argument("--games", type=int, default=500, help="rounds whose streams are held idle")
    parser.add_argument("--idle-seconds", type=float, default=60.0,
                        help="window of the idle CPU figure; at least the long-polls' wait (60 s), so that each "
                             "long-poll is asked again once in it however fast the step opened")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds after opening, before measuring")
    parser.add_argument("--open-concurrency", type=int, default=50, help="clients being opened at once")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE, help="PostgreSQL URL (dropped and created)")
    parser.add_argument("--channel", default="postgres", help="postgres | redis://... | poll")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--hold", type=float, default=0.0,
                        help="seconds to keep the last step's clients open at the end (to profile the server)")
    args = parser.parse_args()
    files = raise_open_files(max(args.steps) + 1000)
    with tempfile.TemporaryDirectory(prefix="streams-ladder-") as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
        env.update({"DJANGO_SETTINGS_MODULE": "maumau.settings", "MAUMAU_VAR_DIR": tmp,
                    "DATABASE_URL": args.database_url,
                    "MAUMAU_WRITE_RATE": "1000000/min", "MAUMAU_SIGNUP_RATE": "1000000/min",
                    "STREAMS_CHANNEL": args.channel, "PYTHONPATH": str(harness.ROOT)})
        harness.database_create(args.database_url, fresh=True)
        harness.migrate(env)
        port = args.port or harness.free_port()
        server = harness.uvicorn("maumau.asgi:application", port, env=env, log=Path(tmp) / "uvicorn.log",
                                 options=["--timeout-keep-alive", "120", "--backlog", "4096"])
        try:
            server.wait_for_http(port)
            results = asyncio.run(ladder(args, port, server.pid, args.database_url))
        finally:
            server.stop()
    print(json.dumps({"server": "uvicorn maumau.asgi:application, 1 process", "channel": args.channel,
                      "open_files_limit": files, "mix": "45% /me/stream, 45% game streams, 10% long-polls (wait=60)",
                      "ladder": results}, indent=2))


if __name__ == "__main__":
    main()
