"""HTTP benchmark (a script, not a test): bot-vs-bot games through the API under gunicorn.

    python -m games.bench_http --games 32 --seconds 20

Starts gunicorn on PostgreSQL (``--database-url``, default a ``maumau_bench`` database on
127.0.0.1, created and migrated if missing), then for ``--seconds`` plays ``--games`` games at
once: each game is two API players on one table, driven by one client thread that GETs the view
of the seat on turn and POSTs a random legal action with ``expected_version`` (the "bot" runs in
the client, so every move crosses HTTP). A finished round is followed by the next ("Nochmal!").
Then the same number of threads hit the floor endpoint (same stack: token auth, throttle, JSON,
one row locked and updated in one transaction) for the same time. Prints JSON: moves/s and
p50/p99 latency of the move endpoint, and the same figures for the floor. Only loopback traffic;
the server it started is stopped at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class Client:
    """One keep-alive HTTP/1.1 connection with a token."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.token = token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        payload = json.dumps(body) if body is not None else None
        started = time.perf_counter()
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=payload, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt:
                    raise
        elapsed = time.perf_counter() - started
        return response.status, (json.loads(data) if data else None), elapsed


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def summary(latencies: list[float], seconds: float, errors: int) -> dict[str, Any]:
    return {
        "requests": len(latencies),
        "per_second": round(len(latencies) / seconds, 1),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 2) if latencies else 0.0,
        "errors": errors,
    }


def sign_up(port: int, name: str) -> Client:
    status, body, _ = Client(port).call("POST", "/api/v1/players", {"name": name})
    assert status == 201, (status, body)
    return Client(port, body["token"])


def game_driver(port: int, index: int, options: dict[str, Any], rules: str, stop: float,
                move_latencies: list[float], counters: dict[str, int], lock: threading.Lock) -> None:
    host, guest = sign_up(port, f"host{index}"), sign_up(port, f"guest{index}")
    status, table, _ = host.call("POST", "/api/v1/tables", {"rules": rules, "options": options, "max_players": 2})
    assert status == 201, table
    assert guest.call("POST", f"/api/v1/tables/{table['id']}/join")[0] == 200
    seats = [host, guest]
    rng = random.Random(index)
    mine: list[float] = []
    errors = rounds = 0
    while time.perf_counter() < stop:
        status, game, _ = host.call("POST", f"/api/v1/tables/{table['id']}/rounds", {"seed": rng.randrange(10**9)})
        assert status == 201, game
        rounds += 1
        state = game  # the host's view (seat 0)
        while time.perf_counter() < stop:
            if state["status"] != "active":
                break
            client = seats[state["turn"]]
            if state["seat"] != state["turn"]:  # the view we hold is the other seat's: fetch the mover's
                status, state, _ = client.call("GET", f"/api/v1/games/{game['id']}")
                if status != 200 or state["status"] != "active":
                    break
            if not state["legal_actions"]:
                time.sleep(0.001)
                continue
            action = dict(rng.choice(state["legal_actions"]))
            names = action.get("as")
            if isinstance(names, dict):
                action["as"] = {k: rng.choice(v) if isinstance(v, list) else v for k, v in names.items()}
            action["expected_version"] = state["version"]
            status, body, elapsed = client.call("POST", f"/api/v1/games/{game['id']}/actions", action)
            if status == 200:
                mine.append(elapsed)
                state = body
            else:
                errors += 1
                status, state, _ = client.call("GET", f"/api/v1/games/{game['id']}")
    with lock:
        move_latencies.extend(mine)
        counters["errors"] += errors
        counters["rounds"] += rounds


def floor_driver(port: int, index: int, stop: float, latencies: list[float], counters: dict[str, int],
                 lock: threading.Lock) -> None:
    client = sign_up(port, f"floor{index}")
    mine: list[float] = []
    errors = 0
    while time.perf_counter() < stop:
        status, _body, elapsed = client.call("POST", "/api/v1/bench/floor", {})
        if status == 200:
            mine.append(elapsed)
        else:
            errors += 1
    with lock:
        latencies.extend(mine)
        counters["errors"] += errors


def run_phase(target: Any, threads: int, seconds: float, *args: Any) -> tuple[list[float], dict[str, int], float]:
    latencies: list[float] = []
    counters = {"errors": 0, "rounds": 0}
    lock = threading.Lock()
    started = time.perf_counter()
    stop = started + seconds
    workers = [threading.Thread(target=target, args=(args[0], i, *args[1:], stop, latencies, counters, lock))
               for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return latencies, counters, time.perf_counter() - started


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1].split("?")[0]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def wait_ready(port: int, server: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if server.poll() is not None:
            raise SystemExit("gunicorn exited during start-up")
        try:
            status, _, _ = Client(port).call("GET", "/api/schema/")
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("gunicorn did not answer in time")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=32, help="concurrent games (and floor threads)")
    parser.add_argument("--seconds", type=float, default=20.0, help="duration of each phase")
    parser.add_argument("--rules", default="classic", choices=["classic", "tavern", "house"])
    parser.add_argument("--turn-seconds", type=int, default=0,
                        help="turn clock of the tables (0 = none; >0 also schedules a Celery clock task per move)")
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_bench"))
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=16, help="threads per gunicorn worker")
    args = parser.parse_args(argv)

    env = {**os.environ, "DATABASE_URL": args.database_url, "MAUMAU_BENCH_ENDPOINTS": "1",
           "MAUMAU_WRITE_RATE": "1000000/min", "MAUMAU_SIGNUP_RATE": "1000000/min", "DEBUG": "false",
           "CONN_MAX_AGE": "600", "LOG_LEVEL": "ERROR"}
    if args.database_url.startswith("postgres"):
        ensure_database(args.database_url)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "maumau.wsgi:application", "--bind", f"127.0.0.1:{args.port}",
         "--workers", str(args.workers), "--threads", str(args.threads), "--worker-class", "gthread",
         "--keep-alive", "30", "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        wait_ready(args.port, server)
        options = {"turn_seconds": args.turn_seconds}
        moves, move_counts, move_time = run_phase(game_driver, args.games, args.seconds, args.port, options, args.rules)
        floor, floor_counts, floor_time = run_phase(floor_driver, args.games, args.seconds, args.port)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    move_summary = summary(moves, move_time, move_counts["errors"])
    floor_summary = summary(floor, floor_time, floor_counts["errors"])
    report = {
        "benchmark": "move endpoint vs one-row floor, over HTTP under gunicorn",
        "database": args.database_url.split("@")[-1],
        "concurrent_games": args.games,
        "rules": args.rules,
        "turn_seconds": args.turn_seconds,
        "gunicorn": {"workers": args.workers, "threads": args.threads, "worker_class": "gthread"},
        "seconds": round(move_time, 1),
        "rounds_started": move_counts["rounds"],
        "moves": {**move_summary, "moves_per_second": move_summary["per_second"]},
        "floor": floor_summary,
        "moves_vs_floor": round(move_summary["per_second"] / floor_summary["per_second"], 3)
        if floor_summary["per_second"] else None,
        "goal": {"moves_at_least_half_floor": move_summary["per_second"] >= floor_summary["per_second"] / 2,
                 "p99_under_100ms": move_summary["p99_ms"] < 100},
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
