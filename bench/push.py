"""Push benchmark (a script, not a test): moves over HTTP at a steady rate, and from each move's commit
to the push service's receipt of the ``your_turn`` (and ``round_over``) pushes it causes.

    python -m bench.push                                   # 200 moves/s for 60 s, 1,000 players
    python -m bench.push --seconds 15 --players 200 --rate 50        # a short run
    python -m bench.push --stall 20 --stall-at 10 --seconds 45       # the push service stalls 20 s
    python -m bench.push --base-dir /tmp/base --base-rate 20 --base-seconds 15   # and today's code

What runs: a uvicorn web process (``--web-workers``) and ONE Celery worker process for the deliveries
(``--pool solo``: the deliveries go out on its event loop), on PostgreSQL (``--database-url``, a
``maumau_bench_push`` database, dropped and migrated for each phase) and Redis (``--broker-url``,
``--cache-url``: databases nobody else uses; they are emptied), and a push service on 127.0.0.1
(bench.push_service, HTTP/1.1 with kept connections) that answers after ``--delay`` seconds (100 ms),
checks each VAPID JWT, decrypts each payload and keeps what arrived and when.

``--players`` players (not watching) and ``--watching`` more, each with a push subscription, sit in
games of two (a watcher's opponent does not watch). A watcher holds a long-poll of its game open on
the web process the whole time, so the service really sees them looking: they must get no push.
Client processes (``--client-processes``) drive every game's seats with random legal actions, paced
so that all games together make ``--rate`` moves a second for ``--seconds``; a finished round is
followed by the next. ``NOTIFY_RECENT_MOVE_SECONDS`` is 0 here: every player moves every few
seconds, which would otherwise count as looking at the game.

``--stall S --stall-at T``: T seconds into the moves the push service holds every request unanswered
for S seconds (a sender that gave up by then is not served). Reported: how long after the service's
return the last push of a notification made before it arrived (``drained_after_return_s``), the
most pushes one player got for one game from the notifications of the stalled period, and whether
every player's newest notification of each game reached them (none lost that was still due).

``--base-dir``: a checkout of another commit (e.g. ``git archive 9ddc49a | tar -x -C /tmp/base``): a
second phase runs the same load on ITS web and worker code (its worker with the prefork pool and
concurrency 1: one process doing the sends), at ``--base-rate`` for ``--base-seconds`` (it cannot keep
up with the full rate, and the CPU it spends per push does not depend on the rate). Both phases print
the worker's CPU seconds per push received. ``--base-worker this``: the base phase's worker is this
phase's (an A/B of two commits of the outbox's code, at the same rate and length).

``received_though_recorded_not_sent``: pushes the service got of deliveries the worker recorded as
not sent (``replaced``, ``watching``, ...): the bookkeeping must be true, so 0.

Prints JSON. Every figure is measured: commit time is the notification row's ``created_at`` (written
in the move's transaction, a little before its commit: the latency is rather over- than under-stated).
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing as mp
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench import harness
from bench.harness import Client
from bench.push_service import PushService, vapid_key_pem

# --- the players' side: set-up, watchers, paced moves (in client processes) ---------------------------


class Seat:
    def __init__(self, client: Client, player_id: int) -> None:
        self.client, self.player_id = client, player_id


def _game_set_up(port: int, index: int, subs: list[dict[str, Any]]) -> dict[str, Any]:
    subscriptions = iter(subs)

    def subscribe(client: Client) -> None:
        status, body, _ = client.call("POST", "/api/v1/me/push-subscriptions", {**next(subscriptions), "name": "bench"})
        assert status == 201, (status, body)

    clients, table = harness.table_for_two(port, f"push{index}a", f"push{index}b", options={"turn_seconds": 0},
                                           before_table=subscribe)
    seats = [Seat(client, client.call("GET", "/api/v1/me")[1]["id"]) for client in clients]
    return {"seats": seats, "table": table, "index": index}


def _watch(port: int, token: str, game: list[int], stop: threading.Event,
           polls: list[tuple[int, float, float]]) -> None:
    """Hold a long-poll of the seat's current game the whole time: a poll answered (a move) is made
    again at once; a finished game's poll waits for the next round's id, so no poll idles on a game
    that is over while the next one is played. ``polls``: (game, opened, answered) of each poll,
    wall-clock, to tell whether a push found the player looking."""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=40,
                      headers={"Authorization": f"Token {token}"}) as http:
        version: int | None = None
        current = 0
        while not stop.is_set():
            if game[0] != current:
                current, version = game[0], None
            opened = time.time()
            try:
                params = {"wait": 25} if version is None else {"wait": 25, "after": version}
                answer = http.get(f"/api/v1/games/{current}", params=params)
            except httpx.HTTPError:
                time.sleep(0.2)
                continue
            polls.append((current, opened, time.time()))
            if answer.status_code == 200:
                view = answer.json()
                version = view["version"]
                if view["status"] != "active":
                    while game[0] == current and not stop.is_set():
                        time.sleep(0.01)


def _play(game: dict[str, Any], port: int, start: float, period: float, offset: float, stop: float,
          counts: collections.Counter, games_made: list[tuple[int, int, int]], watched: list[int] | None) -> None:
    """Both seats of one table, one move per ``period`` (a round's start is no move)."""
    rng = random.Random(game["index"])
    seats = game["seats"]
    slot = start + offset
    while time.monotonic() < stop:
        status, state, _ = seats[0].client.call("POST", f"/api/v1/tables/{game['table']}/rounds",
                                                {"seed": rng.randrange(10**9)})
        if status != 201:
            counts["round_start_errors"] += 1
            time.sleep(0.5)
            continue
        games_made.append((state["id"], seats[0].player_id, seats[1].player_id))
        if watched is not None:
            watched[0] = state["id"]
        path = f"/api/v1/games/{state['id']}"
        while state["status"] == "active":
            slot += period
            wait = slot - time.monotonic()
            if slot > stop:
                return
            if wait > 0:
                time.sleep(wait)
            client = seats[state["turn"]].client
            if state["seat"] != state["turn"]:
                status, state, _ = client.call("GET", path)
                if status != 200 or state["status"] != "active":
                    break
            if not state["legal_actions"]:
                continue
            action = harness.action_chosen(state, rng)
            status, body, _ = client.call("POST", path + "/actions", action)
            if status == 200:
                counts["moves"] += 1
                state = body
            else:
                counts["move_errors"] += 1
                status, state, _ = client.call("GET", path)
                if status != 200:
                    break


def client_process(port: int, games: list[tuple[int, list[dict[str, Any]], bool]], rate_each: float,
                   ready: Any, begin: Any, seconds: float, results: Any) -> None:
    made = [(_game_set_up(port, index, subs), watching) for index, subs, watching in games]
    stop_watching = threading.Event()
    watched: dict[int, list[int]] = {}
    for game, watching in made:
        if watching:  # the second seat (b) looks at its current game the whole time
            watched[game["index"]] = [0]
    ready.put([(g["index"], [s.player_id for s in g["seats"]]) for g, _w in made])
    begin.wait()
    start = time.monotonic()
    stop = start + seconds
    counts: collections.Counter = collections.Counter()
    games_made: list[tuple[int, int, int]] = []
    period = len(made) / rate_each
    threads = [threading.Thread(target=_play, args=(g, port, start, period, period * i / len(made), stop, counts,
                                                    games_made, watched.get(g["index"])), daemon=True)
               for i, (g, _w) in enumerate(made)]
    for thread in threads:
        thread.start()
    polls: dict[str, list[tuple[int, float, float]]] = {}
    watchers = []
    for game, _watching in made:
        if game["index"] in watched:
            polls[f"p{game['index']}b"] = []
            watchers.append(threading.Thread(target=_watch_current, daemon=True, args=(
                port, game, watched[game["index"]], stop_watching, polls[f"p{game['index']}b"])))
            watchers[-1].start()
    for thread in threads:
        thread.join()
    results.put({"counts": dict(counts), "games": games_made})
    time.sleep(15)  # watchers keep looking while the last pushes go out
    stop_watching.set()
    for thread in watchers:
        thread.join(timeout=45)
    results.put({"polls": polls})


def _watch_current(port: int, game: dict[str, Any], current: list[int], stop: threading.Event,
                   polls: list[tuple[int, float, float]]) -> None:
    token = game["seats"][1].client.head.split(b"Token ")[1].split(b"\r\n")[0].decode()
    while not current[0] and not stop.is_set():
        time.sleep(0.05)
    _watch(port, token, current, stop, polls)


# --- one phase: servers, set-up, moves, drain, figures ----------------------------------------------


def _worker_answers(broker_url: str, worker: harness.Process, queue: str, timeout: float = 60.0) -> None:
    """Until the worker took a probe (the backstop sweep) from its queue: at WARNING it logs nothing
    when ready."""
    import redis
    from celery import Celery

    worker.wait_for_output("[queues]", timeout=timeout)
    Celery("bench-push", broker=broker_url).send_task("notify.sweep", queue=queue)
    broker = redis.Redis.from_url(broker_url)
    end = time.monotonic() + timeout
    while broker.llen(queue) and time.monotonic() < end:
        if worker.popen.poll() is not None:
            raise RuntimeError(f"the worker exited:\n{worker.output()}")
        time.sleep(0.1)


def _sql(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url) as conn:
        return list(conn.execute(query, params).fetchall())


def one_phase(args: argparse.Namespace, *, label: str, code: Path, rate: float, seconds: float,
              worker_options: list[str], stall: float) -> dict[str, Any]:
    import redis

    tmp = Path(tempfile.mkdtemp(prefix=f"bench-push-{label}-"))
    for url in (args.broker_url, args.cache_url):
        redis.Redis.from_url(url).flushdb()
    pem = vapid_key_pem()
    env = {**os.environ, "DATABASE_URL": args.database_url, "CELERY_BROKER_URL": args.broker_url,
           "CACHE_URL": args.cache_url, "VAPID_PRIVATE_KEY": pem, "PUSH_ALLOW_LOOPBACK": "true",
           "NOTIFY_RECENT_MOVE_SECONDS": "0", "MAUMAU_VAR_DIR": str(tmp), "LOG_LEVEL": "WARNING",
           "DJANGO_SETTINGS_MODULE": "maumau.settings", "PYTHONPATH": str(code), **harness.UNTHROTTLED}
    harness.database_create(args.database_url, fresh=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=code, env=env, check=True)
    from cryptography.hazmat.primitives import serialization

    from bench.push_service import b64url

    public = b64url(serialization.load_pem_private_key(pem.encode(), None).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
    service = PushService(server_key=public, delay=args.delay, keep_alive=True).start()
    port = harness.free_port()
    web = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / "web.log", cwd=code,
                          options=["--workers", str(args.web_workers)])
    worker = harness.celery("worker", ["-n", f"bench-push-{label}-{os.getpid()}@%h", "--without-gossip",
                                       "--without-mingle", "--without-heartbeat", "--loglevel", "WARNING",
                                       *worker_options], env=env, log=tmp / "worker.log", cwd=code)
    games = (args.players + args.watching) // 2
    layout = []
    for index in range(games):
        subs = [service.subscribe(f"p{index}{side}").browser_json() for side in "ab"]
        layout.append((index, subs, index < args.watching))
    ctx = mp.get_context("fork")
    ready, results, begin = ctx.Queue(), ctx.Queue(), ctx.Event()
    shares = [layout[i::args.client_processes] for i in range(args.client_processes)]
    procs = []
    try:
        web.wait_for_http(port, timeout=60)
        _worker_answers(args.broker_url, worker, worker_options[1].split(",")[-1])
        started = time.monotonic()
        procs = [ctx.Process(target=client_process, args=(port, share, rate * len(share) / games, ready, begin,
                                                          seconds, results)) for share in shares]
        for proc in procs:
            proc.start()
        players: dict[int, list[int]] = {}
        for _proc in procs:
            players.update(dict(ready.get(timeout=900)))
        setup_seconds = time.monotonic() - started
        watchers = {f"p{i}b" for i in range(args.watching)}
        time.sleep(2)  # the watchers' long-polls are open before the first move
        cpu_before, wall_before = harness.process_tree_cpu(worker.pid, reaped=True), time.time()
        begin.set()
        stall_window = None
        if stall:
            time.sleep(args.stall_at)
            service.stall(stall)
            stall_window = (time.time(), time.time() + stall)
        reports = [results.get(timeout=seconds + 600) for _proc in procs]
        moved_until = time.time()
        end = time.monotonic() + args.drain_seconds
        while time.monotonic() < end:
            left = _sql(args.database_url, "SELECT count(*) FROM notify_delivery WHERE outcome IN "
                                           "('pending', 'retrying')")[0][0]
            if not left:
                break
            time.sleep(0.5)
        time.sleep(2)  # a late duplicate would arrive now
        cpu = harness.process_tree_cpu(worker.pid, reaped=True) - cpu_before
        polls: dict[str, list[tuple[int, float, float]]] = {}
        for _proc in procs:
            polls.update(results.get(timeout=120)["polls"])
    finally:
        begin.set()
        for proc in procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
        worker.stop()
        web.stop()
        service.close()

    endpoint_of = dict(_sql(args.database_url, "SELECT 'web_push:' || id, endpoint FROM notify_pushsubscription"))
    rows = _sql(args.database_url,
                "SELECT d.id, d.notification_id, d.player_id, d.game_id, d.kind, d.outcome, d.target, "
                "extract(epoch from n.created_at) FROM notify_delivery d "
                "JOIN streams_notification n ON n.id = d.notification_id")
    sub_of_row = {r[0]: endpoint_of.get(r[6], "?").rsplit("/", 1)[-1] for r in rows}
    # A watcher's long-poll moves to its next round a moment after the round starts: the first
    # second of each round is not held against the service.
    game_started = dict(_sql(args.database_url, "SELECT id, extract(epoch from created_at) FROM games_game"))
    made = {r[1]: float(r[7]) for r in rows}
    received = list(service.received)
    keys = collections.Counter((r.subscription, r.payload.get("id")) for r in received)
    sent_rows = {(sub_of_row[r[0]], r[1]) for r in rows if r[5] == "sent"}
    latencies = [(r.at - made[r.payload["id"]]) * 1000 for r in received if r.payload.get("id") in made]
    outcomes = collections.Counter(r[5] for r in rows)
    polled_when = _pushes_while_polled(received, polls, made, wall_before)
    moves = sum(rep["counts"].get("moves", 0) for rep in reports)
    result: dict[str, Any] = {
        "phase": label, "code": str(code), "worker": " ".join(worker_options),
        "players_not_watching": args.players, "players_watching": args.watching,
        "rate_asked_per_s": rate, "seconds": seconds, "moves": moves,
        "moves_per_s": round(moves / seconds, 1),
        "move_errors": sum(rep["counts"].get("move_errors", 0) for rep in reports),
        "push_service_delay_ms": args.delay * 1000,
        "pushes_received": len(received),
        "pushes_due": len(sent_rows) + sum(1 for r in rows if r[5] in ("pending", "retrying", "failed")),
        "pushes_missing": len(sent_rows - set(keys)) + sum(1 for r in rows if r[5] in ("pending", "retrying",
                                                                                       "failed")),
        "duplicates": sum(n - 1 for n in keys.values() if n > 1),
        "received_though_recorded_not_sent": sum(
            1 for r in rows
            if r[5] not in ("sent", "pending", "retrying", "failed") and (sub_of_row[r[0]], r[1]) in keys),
        "your_turn_pushes_to_watching_players": sum(
            1 for r in received if r.subscription in watchers and r.payload.get("kind") == "your_turn"
            and made.get(r.payload["id"], 0) - float(game_started.get(r.payload.get("game"), 0)) > 1.0),
        "your_turn_pushes_while_a_long_poll_of_the_game_was_open": len(polled_when),
        "your_turn_pushes_while_polled_when": polled_when,
        "watchers_long_polls": _poll_figures(polls),
        "refused_by_the_push_service": len(service.refused),
        "commit_to_receipt_ms": {"p50": round(harness.percentile(latencies, 0.50) or 0, 1),
                                 "p99": round(harness.percentile(latencies, 0.99) or 0, 1),
                                 "max": round(max(latencies, default=0), 1)},
        "worker_cpu_s": round(cpu, 2),
        "worker_cpu_ms_per_push": round(1000 * cpu / len(received), 3) if received else None,
        "delivery_outcomes": dict(outcomes),
        "drain_after_moves_s": round(max((r.at for r in received), default=moved_until) - moved_until, 1),
        "setup_seconds": round(setup_seconds, 1), "wall_s": round(time.time() - wall_before, 1),
    }
    if stall_window is not None:
        result["stall"] = stall_figures(stall_window, rows, received, sub_of_row, made)
    return result


#: A long-poll counts as open from this long after its client sent it (the server's mark is written
#: when the request is read) until its answer came back.
POLL_OPENING_SECONDS = 0.5


def _poll_figures(polls: dict[str, list[tuple[int, float, float]]]) -> dict[str, Any]:
    """How long the watchers' long-polls lasted: a move wakes its opponent's poll at once, so at the
    move rate most last well under a second; one that lasts tens of seconds heard of a move late."""
    lasted = [answered - opened for seat in polls.values() for _game, opened, answered in seat]
    return {"count": len(lasted),
            **{name: round(harness.percentile(lasted, q) or 0, 2) for name, q in (("p50_s", 0.5), ("p90_s", 0.9))}}


def _poll_open_since(polls: Any, game: int | None, at: float) -> float | None:
    """When the watcher's latest long-poll of ``game`` open at ``at`` (a notification made then) was
    opened; None if none was open."""
    return max((opened for g, opened, answered in polls if g == game and opened + POLL_OPENING_SECONDS <= at
                <= answered), default=None)


def _pushes_while_polled(received: list[Any], polls: dict[str, list[tuple[int, float, float]]],
                        made: dict[int, float], began: float) -> list[dict[str, float]]:
    """For each ``your_turn`` push made while its player had a long-poll of the game open: when, from
    the phase's start, and how long that poll had been open then (a poll whose mark the server had
    not yet written is one opened moments before)."""
    found = []
    for r in received:
        if r.payload.get("kind") != "your_turn":
            continue
        at = made.get(r.payload.get("id"), 0)
        opened = _poll_open_since(polls.get(r.subscription, ()), r.payload.get("game"), at)
        if opened is not None:
            found.append({"after_start_s": round(at - began, 1), "poll_open_for_s": round(at - opened, 1)})
    return sorted(found, key=lambda item: item["after_start_s"])


def stall_figures(window: tuple[float, float], rows: list[tuple[Any, ...]], received: list[Any],
                  sub_of_row: dict[int, str], made: dict[int, float]) -> dict[str, Any]:
    """What the stall came to: the backlog's drain, one push per player and game, nothing due lost."""
    begin, back = window
    before_return = [r for r in received if made.get(r.payload.get("id"), 1e18) < back]
    in_stall = collections.Counter((r.subscription, r.payload.get("game")) for r in received
                                   if begin <= made.get(r.payload.get("id"), 0) < back
                                   and r.payload.get("kind") == "your_turn")
    newest: dict[tuple[int, int], tuple[Any, ...]] = {}
    for row in rows:
        if row[4] == "your_turn":
            key = (row[2], row[3])
            if key not in newest or row[1] > newest[key][1]:
                newest[key] = row
    got = {(r.subscription, r.payload.get("id")) for r in received}
    lost = [row for row in newest.values() if row[5] not in ("watching", "coalesced")
            and (sub_of_row[row[0]], row[1]) not in got]
    return {
        "stalled_s": round(back - begin, 1),
        "drained_after_return_s": round(max((r.at for r in before_return), default=back) - back, 2),
        "pushes_received_during_stall": sum(1 for r in received if begin <= r.at < back),
        "most_your_turn_pushes_per_player_and_game_for_the_stalled_period": max(in_stall.values(), default=0),
        "players_and_games_of_the_stalled_period_pushed": len(in_stall),
        "of_them_pushed_more_than_once": sum(1 for n in in_stall.values() if n > 1),
        "newest_your_turn_per_player_and_game_lost": len(lost),
        "replaced": sum(1 for r in rows if r[5] == "replaced"),
    }


class PushLoad:
    """bench.push's load beside another benchmark (``python -m bench.clocks --push-load``): a push
    service answering after ``delay``, and ``players`` subscribed players (none watching) in games of
    two making ``rate`` moves a second over HTTP against the service the other benchmark started.
    :attr:`env` goes into that service's environment (the VAPID key, loopback push endpoints)."""

    def __init__(self, *, players: int, rate: float, delay: float = 0.1, client_processes: int = 2) -> None:
        from cryptography.hazmat.primitives import serialization

        from bench.push_service import b64url

        pem = vapid_key_pem()
        public = b64url(serialization.load_pem_private_key(pem.encode(), None).public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
        self.service = PushService(server_key=public, delay=delay, keep_alive=True).start()
        self.players, self.rate, self.client_processes = players, rate, client_processes
        self.env = {"VAPID_PRIVATE_KEY": pem, "PUSH_ALLOW_LOOPBACK": "true", "NOTIFY_RECENT_MOVE_SECONDS": "0"}
        self.procs: list[Any] = []

    def start(self, port: int, seconds: float) -> PushLoad:
        """Sign the players up, then let them move for ``seconds`` (returns when the moves begin)."""
        games = max(1, self.players // 2)
        layout = [(index, [self.service.subscribe(f"p{index}{side}").browser_json() for side in "ab"], False)
                  for index in range(games)]
        ctx = mp.get_context("fork")
        ready, self.results, begin = ctx.Queue(), ctx.Queue(), ctx.Event()
        shares = [layout[i::self.client_processes] for i in range(self.client_processes)]
        self.procs = [ctx.Process(target=client_process, args=(port, share, self.rate * len(share) / games, ready,
                                                               begin, seconds, self.results)) for share in shares]
        for proc in self.procs:
            proc.start()
        for _proc in self.procs:
            ready.get(timeout=900)
        self.seconds, self.began = seconds, time.monotonic()
        begin.set()
        return self

    def stop(self) -> dict[str, Any]:
        """Wait for the moves to end; what the load came to."""
        reports = [self.results.get(timeout=self.seconds + 600) for _proc in self.procs]
        for proc in self.procs:
            proc.kill()  # its watchers' 15 s after the moves are not waited for
            proc.join(timeout=10)
        self.service.close()
        moves = sum(rep["counts"].get("moves", 0) for rep in reports)
        return {"players": self.players, "rate_asked_per_s": self.rate, "seconds": self.seconds, "moves": moves,
                "moves_per_s": round(moves / self.seconds, 1), "pushes_received": len(self.service.received),
                "push_service_delay_ms": self.service.delay * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=1000, help="subscribed players not watching")
    parser.add_argument("--watching", type=int, default=50, help="subscribed players watching their game")
    parser.add_argument("--rate", type=float, default=200.0, help="moves a second, all games together")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--delay", type=float, default=0.1, help="the push service's answer time, seconds")
    parser.add_argument("--stall", type=float, default=0.0, help="seconds the push service stalls (0: none)")
    parser.add_argument("--stall-at", type=float, default=10.0, help="seconds into the moves the stall begins")
    parser.add_argument("--drain-seconds", type=float, default=90.0, help="longest wait for the last pushes")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--queues", default="deliveries,celery", help="the deliveries worker's queues")
    parser.add_argument("--base-dir", type=Path, help="a checkout of the code to compare with (its own phase)")
    parser.add_argument("--base-rate", type=float, default=20.0)
    parser.add_argument("--base-seconds", type=float, default=15.0)
    parser.add_argument("--base-worker", choices=("prefork", "this"), default="prefork",
                        help="the base phase's worker: prefork on the celery queue (the code before the outbox), "
                             "or this phase's (an A/B of two commits of the outbox's code)")
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_bench_push"))
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6380/4"))
    parser.add_argument("--cache-url", default=os.environ.get("BENCH_CACHE_URL", "redis://127.0.0.1:6380/5"))
    args = parser.parse_args(argv)
    if args.players <= 0 or args.watching < 0 or args.players < args.watching or args.rate <= 0:
        parser.error("--players > 0, 0 <= --watching <= --players, --rate > 0")

    this_worker = ["-Q", args.queues, "--pool", "solo", "--prefetch-multiplier", "16"]
    phases = [one_phase(args, label="this", code=harness.ROOT, rate=args.rate, seconds=args.seconds,
                        worker_options=this_worker, stall=args.stall)]
    if args.base_dir:
        phases.append(one_phase(args, label="base", code=args.base_dir.resolve(), rate=args.base_rate,
                                seconds=args.base_seconds, stall=0.0,
                                worker_options=this_worker if args.base_worker == "this"
                                else ["-Q", "celery", "--pool", "prefork", "--concurrency", "1"]))
    out: dict[str, Any] = {"benchmark": "push: moves over HTTP -> your_turn received by a push service",
                           "phases": phases}
    if len(phases) == 2 and phases[0]["worker_cpu_ms_per_push"] and phases[1]["worker_cpu_ms_per_push"]:
        out["cpu_per_push_base_over_this"] = round(phases[1]["worker_cpu_ms_per_push"]
                                                   / phases[0]["worker_cpu_ms_per_push"], 1)
    print(json.dumps(out, indent=2))
    first = phases[0]
    kept = first["duplicates"] == 0 and first["received_though_recorded_not_sent"] == 0
    return 0 if kept and first["your_turn_pushes_to_watching_players"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
