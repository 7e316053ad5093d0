"""Many waiting clients on one process: no thread per stream, keep-alives without database work,
a missed wake-up recovered by one batched read, and a move that reaches a stream held by another process."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from accounts import authentication
from live import views
from tests.streams.streams_helpers import SseReader, act, client, two_player_round

ADA = ["KH", "8C", "10S", "AD", "QC"]
BO = ["7C", "8D", "9D", "AS", "10D"]
STARTER, STOCK_TOP = "9H", ["QS", "7S"]


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no thread count")


async def _open_waiting_clients(port: int, paths: list[str], token: str) -> list[asyncio.StreamWriter]:
    """Raw HTTP/1.1 requests held open: each answers its headers and then waits."""
    writers = []
    for path in paths:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {token}\r\n\r\n".encode())
        await writer.drain()
        status = await asyncio.wait_for(reader.readline(), 10) if not path.endswith("wait=30") else b"HTTP/1.1 200"
        assert status.startswith(b"HTTP/1.1 200"), (path, status)
        writers.append(writer)
    return writers


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="counts threads through /proc")
def test_open_streams_and_long_polls_hold_no_thread_each(poll_server: str, poll_server_pid: int) -> None:
    _ada, bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP)
    port = int(poll_server.rsplit(":", 1)[1])
    before = _threads(poll_server_pid)
    paths = [[f"/api/v1/games/{gid}/stream", "/api/v1/me/stream", f"/api/v1/games/{gid}?wait=30"][n % 3]
             for n in range(120)]

    async def hold() -> int:
        writers = await _open_waiting_clients(port, paths, bo.token)
        await asyncio.sleep(1.0)
        during = _threads(poll_server_pid)
        for writer in writers:
            writer.close()
        return during

    during = asyncio.run(hold())
    assert during - before < 20, f"{during - before} more threads with 120 waiting clients"


@pytest.mark.django_db(transaction=True)
def test_keep_alives_cost_no_database_work(make_player: Any) -> None:
    reads: list[int] = []
    original = views._ledger_after

    def counted(*args: Any) -> Any:
        reads.append(1)
        return original(*args)

    async def keep_alives(game_id: int) -> list[bytes]:
        out = []
        events = views._game_events(game_id, None, 0, token=token)
        async for chunk in events:
            out.append(chunk)
            if sum(1 for c in out if c == b": keep-alive\n\n") == 4:
                break
        await events.aclose()
        return out

    from games.models import Game, Table

    host = make_player("Ada")
    token = authentication.authenticate(host.token)
    table = Table.objects.create(host_id=host.player_id, rules="classic", options={}, max_players=2)
    game = Game.objects.create(table=table, number=1, rules={}, state={}, seed="s")
    with override_settings(STREAMS_KEEPALIVE_SECONDS=0.05, STREAMS_CHANNEL="poll", STREAMS_POLL_INTERVAL=0.02):
        views._ledger_after = counted  # type: ignore[assignment]
        try:
            chunks = asyncio.run(keep_alives(game.pk))
        finally:
            views._ledger_after = original  # type: ignore[assignment]
    assert chunks.count(b": keep-alive\n\n") == 4
    assert len(reads) == 1, f"{len(reads)} ledger reads for one stream's 4 keep-alives"


def test_a_move_posted_to_one_process_reaches_streams_held_by_another(two_servers: tuple[str, str]) -> None:
    first, second = two_servers
    ada, bo, gid = two_player_round(first, [ADA, BO], STARTER, STOCK_TOP)
    game_stream = SseReader(second, f"/api/v1/games/{gid}/stream", bo.token).start()
    notes = SseReader(second, "/api/v1/me/stream", bo.token).start()
    try:
        time.sleep(0.3)
        act(ada, gid, {"type": "play", "cards": ["KH"]})
        moved = time.monotonic()
        move = game_stream.next(5)
        note = notes.next(5)
        assert move.event == "move" and move.id == "1" and move.at - moved < 1.0
        assert note.event == "your_turn" and note.at - moved < 1.0, "woken by the backstop, not the channel"
        # and a long-poll on the second process answers a move posted to the first
        ada_there = client(second, ada.token)
        version = ada_there.get(f"/api/v1/games/{gid}").json()["version"]
        answer: dict[str, Any] = {}
        waiter = threading.Thread(target=lambda: answer.update(response=ada_there.get(
            f"/api/v1/games/{gid}", params={"wait": 10, "after": version}), at=time.monotonic()))
        waiter.start()
        time.sleep(0.3)
        action = bo.http.get(f"/api/v1/games/{gid}").json()["legal_actions"][0]
        act(bo, gid, action)
        moved = time.monotonic()
        waiter.join(10)
        assert answer["response"].status_code == 200 and answer["response"].json()["version"] > version
        assert answer["at"] - moved < 1.0
    finally:
        game_stream.close()
        notes.close()


@pytest.mark.django_db(transaction=True)
def test_a_missed_wake_up_is_recovered_by_one_batched_read_for_all_waiters(make_player: Any) -> None:
    from games.models import Game, Table
    from streams import channels

    host = make_player("Ada")
    table = Table.objects.create(host_id=host.player_id, rules="classic", options={}, max_players=2)
    games = [Game.objects.create(table=table, number=n, rules={}, state={}, seed="s") for n in range(1, 21)]
    polls: list[int] = []
    original = channels._topic_values

    def counted(topics: list[str]) -> Any:
        polls.append(len(topics))
        return original(topics)

    async def scenario() -> tuple[list[int], list[bool]]:
        hub = channels.hub()
        subs = [hub.subscribe(channels.game_topic(game.pk)) for game in games]
        for sub in subs:
            sub.seen = 0
        await asyncio.sleep(0.3)  # the backstop has looked: nothing changed, nobody woken
        quiet = [sub._woken for sub in subs]
        # a move whose wake-up got lost: the version moves on, nobody publishes
        await channels.db(lambda: Game.objects.filter(pk=games[3].pk).update(version=1))
        woken = await asyncio.gather(*(sub.wait(1.0) for sub in subs))
        for sub in subs:
            sub.close()
        for task in hub.tasks:
            task.cancel()
        return [n for n, flag in enumerate(quiet) if flag], list(woken)

    with override_settings(STREAMS_CHANNEL="redis://127.0.0.1:9/0", STREAMS_BACKSTOP_INTERVAL=0.1):
        channels._topic_values = counted  # type: ignore[assignment]
        try:
            quiet, woken = asyncio.run(scenario())
        finally:
            channels._topic_values = original  # type: ignore[assignment]
    assert quiet == [], "a waiter was woken although its topic did not change"
    assert [n for n, flag in enumerate(woken) if flag] == [3]
    assert polls and set(polls) == {20}, "each backstop read covers every topic at once"


@pytest.mark.django_db
def test_opening_a_long_poll_takes_no_lock_while_no_deadline_passed(make_player: Any) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.models import Game, Player, Table

    host = make_player("Ada")
    table = Table.objects.create(host_id=host.player_id, rules="classic", options={}, max_players=2)
    table.seats.create(position=0, player_id=host.player_id)
    game = Game.objects.create(table=table, number=1, rules={}, state={}, seed="s", positions=[0])
    player = Player.objects.get(pk=host.player_id)
    with CaptureQueriesContext(connection) as queries:
        version, current, etag, delay, _due = views._game_open(game.pk, None, player)
    assert (version, current, delay) == (0, 0, None) and etag == f'"g{game.pk}-v0-p{host.player_id}"'
    assert len(queries) == 1, [q["sql"] for q in queries]


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_whose_client_left_is_released_at_once_not_after_its_wait(make_player: Any) -> None:
    from games.models import Game, Table
    from live import asgi as streams_asgi
    from streams import channels

    host = make_player("Ada")
    table = Table.objects.create(host_id=host.player_id, rules="classic", options={}, max_players=2)
    table.seats.create(position=0, player_id=host.player_id)
    game = Game.objects.create(table=table, number=1, rules={}, state={}, seed="s", positions=[0])
    scope = {"type": "http", "method": "GET", "path": f"/api/v1/games/{game.pk}", "query_string": b"wait=60",
             "headers": [(b"authorization", f"Token {host.token}".encode())], "http_version": "1.1",
             "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5000), "root_path": ""}
    sent: list[dict[str, Any]] = []

    async def scenario() -> tuple[int, int, bool]:
        hub = channels.hub()
        left = asyncio.Event()
        messages = iter([{"type": "http.request", "body": b"", "more_body": False}])

        async def receive() -> dict[str, Any]:
            for message in messages:
                return message
            await left.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        serving = asyncio.ensure_future(streams_asgi.app(scope, receive, send))
        for _ in range(500):  # until the long-poll waits on its game
            if hub.open_waiters and sub_seen(hub):
                break
            await asyncio.sleep(0.01)
        waiting = hub.open_waiters
        left.set()  # the phone went away
        done, _pending = await asyncio.wait({serving}, timeout=10)  # its wait was 60 s
        for task in hub.tasks:
            task.cancel()
        return waiting, hub.open_waiters, serving in done

    def sub_seen(hub: channels.Hub) -> bool:
        return all(sub.seen is not None for subs in hub.waiters.values() for sub in subs)

    with override_settings(STREAMS_CHANNEL="poll", STREAMS_POLL_INTERVAL=0.05):
        waiting, after, released = asyncio.run(scenario())
    assert waiting == 1, "the long-poll never waited"
    assert released, "the long-poll kept waiting after its client left"
    assert after == 0, "the long-poll's waiter stayed subscribed"
    assert sent == [], "an answer was sent to a client that had left"


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_whose_wait_runs_out_without_a_move_answers_304_without_reading_again(
        make_player: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from games.models import Game, Table
    from live import asgi as streams_asgi
    from streams import channels

    host = make_player("Ada")
    table = Table.objects.create(host_id=host.player_id, rules="classic", options={}, max_players=2)
    table.seats.create(position=0, player_id=host.player_id)
    game = Game.objects.create(table=table, number=1, rules={}, state={}, status="active", seed="s", positions=[0])
    opened: list[int] = []
    original = views._game_open
    monkeypatch.setattr(views, "_game_open", lambda *args: opened.append(1) or original(*args))
    scope = {"type": "http", "method": "GET", "path": f"/api/v1/games/{game.pk}", "query_string": b"wait=0.3",
             "headers": [(b"authorization", f"Token {host.token}".encode())], "http_version": "1.1",
             "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5000), "root_path": ""}
    sent: list[dict[str, Any]] = []

    async def scenario() -> None:
        messages = iter([{"type": "http.request", "body": b"", "more_body": False}])

        async def receive() -> dict[str, Any]:
            for message in messages:
                return message
            await asyncio.Event().wait()  # the client stays
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await asyncio.wait_for(streams_asgi.app(scope, receive, send), 10)
        for task in channels.hub().tasks:
            task.cancel()

    with override_settings(STREAMS_CHANNEL="poll", STREAMS_POLL_INTERVAL=0.05):
        asyncio.run(scenario())
    assert sent[0]["status"] == 304
    assert (b"ETag", f'"g{game.pk}-v0-p{host.player_id}"'.encode()) in sent[0]["headers"]
    assert len(opened) == 1, "the long-poll read the round again when its wait ran out, with no move and no deadline"


@pytest.mark.django_db
def test_the_backstop_reads_each_rounds_version_and_each_players_last_notification(make_player: Any) -> None:
    from games.models import Game, Table
    from streams import channels
    from streams.models import Notification

    ada, bo, eve = make_player("Ada"), make_player("Bo"), make_player("Eve")
    table = Table.objects.create(host_id=ada.player_id, rules="classic", options={}, max_players=2)
    first = Game.objects.create(table=table, number=1, rules={}, state={}, seed="s", version=7)
    second = Game.objects.create(table=table, number=2, rules={}, state={}, seed="s", version=0)
    notes = [Notification.objects.create(player_id=player, kind="your_turn", game=first)
             for player in (ada.player_id, bo.player_id, ada.player_id)]
    topics = [channels.game_topic(first.pk), channels.game_topic(second.pk), channels.game_topic(10**9),
              channels.player_topic(ada.player_id), channels.player_topic(bo.player_id),
              channels.player_topic(eve.player_id)]
    assert channels._topic_values(topics) == {
        f"game:{first.pk}": 7, f"game:{second.pk}": 0,
        f"player:{ada.player_id}": notes[2].pk, f"player:{bo.player_id}": notes[1].pk,
    }  # an unknown round and a player told nothing yet have no value (the hub reads 0)
    assert channels._topic_values([]) == {}
