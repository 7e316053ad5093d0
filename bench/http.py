"""HTTP benchmark (a script, not a test): bot-vs-bot games through the API under gunicorn.

    python -m bench.http --games 8 16 32 --seconds 20 --repeat 3

Starts gunicorn with ``bench.settings`` (the product plus the floor endpoint) on PostgreSQL
(``--database-url``, default a ``maumau_bench`` database on 127.0.0.1, created and migrated if missing;
``--fresh-database`` drops it first). For each ``--games`` count it plays that many games at
once for ``--seconds`` and hits the floor endpoint with as many clients for as long, in ``--slices``
windows that alternate (games, floor, games, floor, ...: both meet the same drift of the machine's
speed), and prints JSON per run and, with ``--repeat``, the median of the runs.

What one "move" is: one ``POST /api/v1/games/{id}/actions`` answered 200, i.e. one action of one
person applied and written to the ledger. Each game is two API players (two tokens) on one table,
both seats driven by one client thread; the "bot" runs in the client, so every move crosses HTTP.
The seat on turn picks a random legal action and POSTs it with ``expected_version``. When the answer
says the same seat is still on turn (after a draw, say), its ``legal_actions`` are in that answer and
the next POST follows at once; when the turn passed, the other seat first GETs its own view (only
that view holds its hand and legal actions). Those GETs are load on the server but not moves: they
are reported apart (``gets_per_move``, their latency). A finished round is followed by the next
("Nochmal!"); round starts are neither moves nor GETs. Sign-up and table set-up happen before the
timed window.

The floor (``bench.urls``): the same stack (token auth, throttle, JSON, one row locked and updated in
one transaction), one POST after another per client, as many clients as games.

The client shares the machine with the server, so it is kept cheap: keep-alive sockets with a
minimal HTTP/1.1 client (the server does exactly the work of any other client), and the games are
spread over ``--client-processes`` processes so that Python's GIL in one client process does not
queue the answers (which would count as server latency). ``cpu`` in the report splits the CPU time
of the timed window into the client processes, the gunicorn workers and the rest (PostgreSQL,
the system), in cores. Only loopback traffic; the server it started is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench import harness


def summary(latencies: list[float], seconds: float, errors: int) -> dict[str, Any]:
    def milliseconds(share: float) -> float:
        return round((harness.percentile(latencies, share) or 0.0) * 1000, 2)

    return {
        "requests": len(latencies),
        "per_second": round(len(latencies) / seconds, 1) if seconds else 0.0,
        "p50_ms": milliseconds(0.50),
        "p99_ms": milliseconds(0.99),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 2) if latencies else 0.0,
        "errors": errors,
    }


# --- drivers: set up, wait for the start, run until the stop -----------------------------------------


class GameDriver:
    """Two seats of one table, driven by one thread (see the module docstring for what is counted)."""

    def __init__(self, port: int, index: int, rules: str, options: dict[str, Any]) -> None:
        (self.host, self.guest), self.table_id = harness.table_for_two(port, f"host{index}", f"guest{index}",
                                                                       rules=rules, options=options)
        self.rng = random.Random(index)
        self.moves: list[float] = []
        self.gets: list[float] = []
        self.errors = self.rounds = 0

    def run(self, stop: float) -> None:
        seats, rng = [self.host, self.guest], self.rng
        while time.monotonic() < stop:
            status, game, _ = self.host.call("POST", f"/api/v1/tables/{self.table_id}/rounds",
                                             {"seed": rng.randrange(10**9)})
            assert status == 201, game
            self.rounds += 1
            state = game  # the host's view (seat 0)
            path = f"/api/v1/games/{game['id']}"
            while time.monotonic() < stop and state["status"] == "active":
                client = seats[state["turn"]]
                if state["seat"] != state["turn"]:  # the turn passed: the mover needs its own view
                    status, state, elapsed = client.call("GET", path)
                    self.gets.append(elapsed)
                    if status != 200 or state["status"] != "active":
                        break
                if not state["legal_actions"]:
                    time.sleep(0.001)
                    continue
                action = harness.action_chosen(state, rng)
                status, body, elapsed = client.call("POST", path + "/actions", action)
                if status == 200:
                    self.moves.append(elapsed)
                    state = body
                else:
                    self.errors += 1
                    status, state, _ = client.call("GET", path)


class FloorDriver:
    def __init__(self, port: int, index: int) -> None:
        self.client = harness.sign_up(port, f"floor{index}")
        self.moves: list[float] = []
        self.gets: list[float] = []
        self.errors = self.rounds = 0

    def run(self, stop: float) -> None:
        while time.monotonic() < stop:
            status, _body, elapsed = self.client.call("POST", "/api/v1/bench/floor", {})
            if status == 200:
                self.moves.append(elapsed)
            else:
                self.errors += 1


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def client_process(kind: str, port: int, indices: list[int], rules: str, options: dict[str, Any],
                   ready: Any, start: Any, seconds: float, results: Any) -> None:
    """Set up this process's drivers, report ready, wait for the common start, play, report."""
    drivers = [GameDriver(port, i, rules, options) if kind == "game" else FloorDriver(port, i) for i in indices]
    ready.put(len(drivers))
    start.wait()
    stop = time.monotonic() + seconds
    cpu = _cpu_seconds()
    threads = [threading.Thread(target=d.run, args=(stop,)) for d in drivers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put({
        "moves": [x for d in drivers for x in d.moves], "gets": [x for d in drivers for x in d.gets],
        "errors": sum(d.errors for d in drivers), "rounds": sum(d.rounds for d in drivers),
        "cpu": _cpu_seconds() - cpu,
    })


# --- CPU accounting of the timed window -----------------------------------------------------------------


def _machine_busy_seconds() -> float:
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / harness.CLOCK_TICKS




def run_phase(kind: str, port: int, clients: int, seconds: float, processes: int, server_pid: int,
              rules: str = "classic", options: dict[str, Any] | None = None) -> dict[str, Any]:
    """One timed window of games (``kind="game"``) or floor clients: raw latencies, CPU seconds."""
    ctx = mp.get_context("fork")
    processes = max(1, min(processes, clients))
    ready, results, start = ctx.Queue(), ctx.Queue(), ctx.Event()
    shares = [list(range(clients))[p::processes] for p in range(processes)]
    workers = [ctx.Process(target=client_process, args=(kind, port, share, rules, options or {}, ready, start,
                                                         seconds, results)) for share in shares]
    for worker in workers:
        worker.start()
    for _ in workers:
        ready.get(timeout=120)
    busy, server = _machine_busy_seconds(), harness.process_tree_cpu(server_pid)
    started = time.monotonic()
    start.set()
    parts = [results.get(timeout=seconds + 120) for _ in workers]
    elapsed = time.monotonic() - started
    busy, server = _machine_busy_seconds() - busy, harness.process_tree_cpu(server_pid) - server
    for worker in workers:
        worker.join()
    client_cpu = sum(p["cpu"] for p in parts)
    return {
        "seconds": elapsed,
        "moves": [x for p in parts for x in p["moves"]],
        "gets": [x for p in parts for x in p["gets"]],
        "errors": sum(p["errors"] for p in parts),
        "rounds": sum(p["rounds"] for p in parts),
        "cpu": {"client": client_cpu, "gunicorn": server, "rest": max(0.0, busy - client_cpu - server)},
    }


def phase_summary(windows: list[dict[str, Any]]) -> dict[str, Any]:
    """The windows of one kind taken together: counts over their summed time, CPU in cores."""
    seconds = sum(w["seconds"] for w in windows)
    moves = [x for w in windows for x in w["moves"]]
    gets = [x for w in windows for x in w["gets"]]
    cpu = {part: sum(w["cpu"][part] for w in windows) / seconds for part in ("client", "gunicorn", "rest")}
    return {
        "seconds": round(seconds, 1),
        "requests": summary(moves, seconds, sum(w["errors"] for w in windows)),
        "gets": summary(gets, seconds, 0),
        "rounds": sum(w["rounds"] for w in windows),
        "cpu_cores": {**{part: round(value, 2) for part, value in cpu.items()}, "machine": os.cpu_count()},
    }


# --- the runs ---------------------------------------------------------------------------------------


def one_run(args: argparse.Namespace, games: int, server_pid: int) -> dict[str, Any]:
    """``--slices`` windows of games, each followed by a window of the floor, ``--seconds`` in all per
    kind: the machine's speed drifts (other tenants, frequency), and windows that alternate meet the
    same drift, so the ratio compares like with like."""
    options = {"turn_seconds": args.turn_seconds}
    window = args.seconds / args.slices
    plays, floors = [], []
    for _slice in range(args.slices):
        plays.append(run_phase("game", args.port, games, window, args.client_processes, server_pid, args.rules,
                               options))
        floors.append(run_phase("floor", args.port, games, window, args.client_processes, server_pid))
    play, floor = phase_summary(plays), phase_summary(floors)
    moves, gets = play["requests"], play["gets"]
    return {
        "concurrent_games": games,
        "moves_per_second": moves["per_second"],
        "move_p50_ms": moves["p50_ms"],
        "move_p99_ms": moves["p99_ms"],
        "floor_per_second": floor["requests"]["per_second"],
        "floor_p50_ms": floor["requests"]["p50_ms"],
        "floor_p99_ms": floor["requests"]["p99_ms"],
        "moves_vs_floor": round(moves["per_second"] / floor["requests"]["per_second"], 3)
        if floor["requests"]["per_second"] else None,
        "gets_per_move": round(gets["requests"] / moves["requests"], 3) if moves["requests"] else None,
        "get_p50_ms": gets["p50_ms"],
        "get_p99_ms": gets["p99_ms"],
        "detail": {"moves": moves, "gets": gets, "rounds_started": play["rounds"], "cpu_cores": play["cpu_cores"],
                   "floor": floor["requests"], "floor_cpu_cores": floor["cpu_cores"]},
    }


def medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    keys = [k for k, v in runs[0].items() if isinstance(v, (int, float)) and k != "concurrent_games"]
    out: dict[str, Any] = {"concurrent_games": runs[0]["concurrent_games"], "runs": len(runs)}
    for key in keys:
        values = [r[key] for r in runs if r[key] is not None]
        out[key] = round(statistics.median(values), 3) if values else None
    out["goal"] = {"moves_at_least_half_floor": (out["moves_vs_floor"] or 0) >= 0.5,
                   "move_p99_under_100ms": out["move_p99_ms"] < 100}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="+", default=[32],
                        help="concurrent games (and floor clients); several counts run one after another")
    parser.add_argument("--seconds", type=float, default=20.0, help="duration of each phase")
    parser.add_argument("--slices", type=int, default=4,
                        help="windows each phase is cut into, games and floor alternating (see one_run)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per games count; the report gives medians")
    parser.add_argument("--rules", default="classic", choices=["classic", "tavern", "house"])
    parser.add_argument("--turn-seconds", type=int, default=0,
                        help="turn clock of the tables (0 = none; >0: each turn has a deadline in its game row)")
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_bench"))
    parser.add_argument("--fresh-database", action="store_true",
                        help="drop the benchmark database (--database-url) and create it anew first")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=2, help="threads per gunicorn worker")
    parser.add_argument("--client-processes", type=int, default=os.cpu_count() or 2,
                        help="client processes the games are spread over (threads inside each)")
    args = parser.parse_args(argv)

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench.settings", "DATABASE_URL": args.database_url,
           "MAUMAU_WRITE_RATE": "1000000/min", "MAUMAU_SIGNUP_RATE": "1000000/min", "DEBUG": "false",
           "CONN_MAX_AGE": "600", "LOG_LEVEL": "ERROR"}
    if args.database_url.startswith("postgres"):
        harness.database_create(args.database_url, fresh=args.fresh_database)
    harness.migrate(env)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as scratch:
        server = harness.gunicorn("maumau.wsgi:application", args.port, workers=args.workers, threads=args.threads,
                                  env=env, log=Path(scratch) / "gunicorn.log")
        try:
            server.wait_for_http(args.port)
            for games in args.games:
                runs = [one_run(args, games, server.pid) for _ in range(args.repeat)]
                results.append({"median": medians(runs), "runs": runs})
        finally:
            server.stop(timeout=20)
    report = {
        "benchmark": "move endpoint vs one-row floor, over HTTP under gunicorn",
        "move": "one POST /games/{id}/actions answered 200; GETs of the seat whose turn it became are counted apart",
        "database": args.database_url.split("@")[-1],
        "rules": args.rules,
        "turn_seconds": args.turn_seconds,
        "seconds_per_phase": args.seconds,
        "slices": args.slices,
        "gunicorn": {"workers": args.workers, "threads": args.threads, "worker_class": "gthread"},
        "client_processes": args.client_processes,
        "results": results,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
