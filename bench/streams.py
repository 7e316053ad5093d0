"""Benchmark: how fast a committed move reaches a waiting stream and a long-poll client, and
whether 200 idle streams slow the move endpoint. A script that prints JSON, not a test.

    python -m bench.streams                       # embedded default: SQLite file, poll channel
    python -m bench.streams --database-url postgres://postgres@127.0.0.1:5432/maumau_bench
    python -m bench.streams --database-url postgres://... --channel redis://127.0.0.1:6379/3

It migrates a fresh database (the SQLite file in a temporary folder; the PostgreSQL database is
dropped and created), starts one uvicorn serving the whole app (moves on the sync path in
threads, waits on the async path), and plays two people against each other over HTTP. The
observer Bo holds a game stream and a long-poll open; for every move the latency is the time
from sending the move to its arrival (an upper bound of commit-to-arrival: it includes the move's
own processing) and, second, from the mover's 200 to the arrival (a lower bound, may be < 0).
Phase 1 has only these two waiters; phase 2 adds ``--idle`` idle streams (game streams of idle
rounds and ``/me/stream``s) and repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench import harness


def summary(values: list[float]) -> dict[str, Any]:
    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    return {"n": len(values), "p50": rounded(harness.percentile(values, 0.5)),
            "p99": rounded(harness.percentile(values, 0.99)), "max": rounded(max(values, default=None))}


def prepare(database_url: str | None, var_dir: Path, channel: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update({"DJANGO_SETTINGS_MODULE": "maumau.settings", "MAUMAU_VAR_DIR": str(var_dir),
                "MAUMAU_WRITE_RATE": "1000000/min", "MAUMAU_SIGNUP_RATE": "1000000/min",
                "STREAMS_CHANNEL": channel, "PYTHONPATH": str(harness.ROOT)})
    if database_url:
        harness.database_create(database_url, fresh=True)
        env["DATABASE_URL"] = database_url
    harness.migrate(env)
    return env


class Person:
    def __init__(self, http: httpx.AsyncClient, body: dict[str, Any]) -> None:
        self.id, self.token = body["id"], body["token"]
        self.headers = {"Authorization": f"Token {self.token}"}
        self.http = http

    async def get(self, path: str, **kw: Any) -> httpx.Response:
        return await self.http.get(path, headers=self.headers, **kw)

    async def post(self, path: str, body: Any = None) -> httpx.Response:
        return await self.http.post(path, json=body, headers=self.headers)


async def sign_up(http: httpx.AsyncClient, name: str) -> Person:
    return Person(http, (await http.post("/api/v1/players", json={"name": name})).json())


async def new_round(host: Person, guest: Person) -> int:
    table = (await host.post("/api/v1/tables", {"rules": "classic", "max_players": 2})).json()
    await guest.post(f"/api/v1/tables/{table['id']}/join")
    return int((await host.post(f"/api/v1/tables/{table['id']}/rounds", {})).json()["id"])


async def read_stream(http: httpx.AsyncClient, path: str, headers: dict[str, str],
                      arrivals: dict[int, float] | None, opened: asyncio.Event | None = None) -> None:
    async with http.stream("GET", path, headers=headers) as response:
        if opened is not None:
            opened.set()
        async for line in response.aiter_lines():
            if arrivals is not None and line.startswith("id: "):
                arrivals[int(line[4:])] = time.monotonic()


async def long_poll(bo: Person, game: dict[str, int], arrivals: dict[int, float]) -> None:
    after = 0
    while True:
        gid = game["id"]
        response = await bo.get(f"/api/v1/games/{gid}", params={"wait": 30, "after": after})
        if gid != game["id"]:
            after = 0
            continue
        if response.status_code == 200:
            version = response.json()["version"]
            arrivals[version] = time.monotonic()
            after = version


async def play(args: argparse.Namespace, base: str) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=args.idle + 50, max_keepalive_connections=args.idle + 50)
    async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(30, read=120), limits=limits) as http:
        ada, bo = await sign_up(http, "Ada"), await sign_up(http, "Bo")
        game = {"id": await new_round(ada, bo)}
        stream_at: dict[int, float] = {}
        poll_at: dict[int, float] = {}
        tasks: list[asyncio.Task[None]] = []

        async def observe() -> None:
            stream_at.clear()
            poll_at.clear()
            for task in tasks:
                task.cancel()
            tasks.clear()
            opened = asyncio.Event()
            tasks.append(asyncio.create_task(read_stream(http, f"/api/v1/games/{game['id']}/stream?after=0",
                                                         bo.headers, stream_at, opened)))
            tasks.append(asyncio.create_task(long_poll(bo, game, poll_at)))
            await opened.wait()
            await asyncio.sleep(0.2)

        async def phase(moves: int) -> dict[str, Any]:
            move_ms: list[float] = []
            stream_ms: list[float] = []
            poll_ms: list[float] = []
            stream_after_ms: list[float] = []
            poll_after_ms: list[float] = []
            await observe()
            done = 0
            while done < moves:
                view = (await ada.get(f"/api/v1/games/{game['id']}")).json()
                if view["status"] != "active":
                    game["id"] = await new_round(ada, bo)
                    await observe()
                    continue
                mover = ada if view["turn"] == view["seat"] else bo
                mine = view if mover is ada else (await bo.get(f"/api/v1/games/{game['id']}")).json()
                action = mine["legal_actions"][0]
                sent = time.monotonic()
                response = await mover.post(f"/api/v1/games/{game['id']}/actions", action)
                answered = time.monotonic()
                if response.status_code != 200:
                    continue
                version = response.json()["version"]
                move_ms.append((answered - sent) * 1000)
                limit = answered + 5
                while (version not in stream_at or version not in poll_at) and time.monotonic() < limit:
                    await asyncio.sleep(0.001)
                if version in stream_at:
                    stream_ms.append((stream_at[version] - sent) * 1000)
                    stream_after_ms.append((stream_at[version] - answered) * 1000)
                if version in poll_at:
                    poll_ms.append((poll_at[version] - sent) * 1000)
                    poll_after_ms.append((poll_at[version] - answered) * 1000)
                done += 1
            return {"move_ms": summary(move_ms), "stream_arrival_ms": summary(stream_ms),
                    "longpoll_arrival_ms": summary(poll_ms),
                    "stream_after_response_ms": summary(stream_after_ms),
                    "longpoll_after_response_ms": summary(poll_after_ms),
                    "lost": {"stream": len(move_ms) - len(stream_ms), "longpoll": len(move_ms) - len(poll_ms)}}

        without = await phase(args.moves)
        cy, dee = await sign_up(http, "Cy"), await sign_up(http, "Dee")
        idle_games = [await new_round(cy, dee) for _ in range(10)]
        idle: list[asyncio.Task[None]] = []
        for n in range(args.idle):
            path = "/api/v1/me/stream" if n % 2 else f"/api/v1/games/{idle_games[n % len(idle_games)]}/stream"
            opened = asyncio.Event()
            idle.append(asyncio.create_task(read_stream(http, path, cy.headers, None, opened)))
            await opened.wait()
        with_idle = await phase(args.moves)
        open_idle = sum(1 for t in idle if not t.done())
        for task in [*idle, *tasks]:
            task.cancel()
        with_idle["idle_streams_open"] = open_idle
        return {"without_idle_streams": without, f"with_{args.idle}_idle_streams": with_idle}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=200, help="moves per phase")
    parser.add_argument("--idle", type=int, default=200, help="idle streams in phase 2")
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL (dropped and created); default SQLite")
    parser.add_argument("--channel", default="", help="poll | postgres | redis://... (default: by database)")
    args = parser.parse_args()
    channel = args.channel or ("postgres" if args.database_url else "poll")
    with tempfile.TemporaryDirectory(prefix="streams-bench-") as tmp:
        env = prepare(args.database_url, Path(tmp), channel)
        port = harness.free_port()
        server = harness.uvicorn("maumau.asgi:application", port, env=env, log=Path(tmp) / "uvicorn.log",
                                 options=["--timeout-keep-alive", "120"])
        try:
            server.wait_for_http(port)
            started = time.monotonic()
            result = asyncio.run(play(args, f"http://127.0.0.1:{port}"))
        finally:
            server.stop()
    print(json.dumps({
        "server": "uvicorn maumau.asgi:application (1 process: moves and waits)",
        "database": "postgresql" if args.database_url else "sqlite",
        "channel": channel, "moves_per_phase": args.moves, "seconds": round(time.monotonic() - started, 1),
        **result,
    }, indent=2))


if __name__ == "__main__":
    main()
