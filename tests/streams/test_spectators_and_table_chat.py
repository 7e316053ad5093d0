"""Watchers and table chat over a real ASGI server (issue 14): a spectator's long-poll answers with
the delayed view of no seat once a move makes a new position visible; chat arrives on the game
stream as ``event: message``, the players' lines to the players (and their watchers), the
spectators' lines to the spectators only, and nothing a watcher receives names a card they may not see."""

from __future__ import annotations

import threading
import time
from typing import Any

from tests.streams.streams_helpers import Person, SseReader, act, sign_up, two_player_round

# Ada (seat 0) opens with KH on the 9H starter; Bo must draw QS, which does not fit, so his turn
# passes. Every card but the starter and Ada's KH stays hidden from watchers.
ADA = ["KH", "8C", "10S", "AD", "QC"]
BO = ["7C", "8D", "9D", "AS", "10D"]
STARTER, STOCK_TOP = "9H", ["QS", "7S"]
HIDDEN_FROM_WATCHERS = set(ADA[1:]) | set(BO) | set(STOCK_TOP)


def _cards_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_cards_in(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def _long_poll(person: Person, gid: int, answer: dict[str, Any], **params: Any) -> threading.Thread:
    def wait() -> None:
        response = person.http.get(f"/api/v1/games/{gid}", params={"wait": 20, **params})
        answer.update(status=response.status_code, body=response.json() if response.status_code == 200 else None,
                      etag=response.headers.get("ETag"), at=time.monotonic())

    waiter = threading.Thread(target=wait)
    waiter.start()
    return waiter


def test_a_spectators_long_poll_answers_with_the_delayed_view_once_a_move_makes_it_visible(server: str) -> None:
    ada, bo, gid = two_player_round(server, [ADA, BO], STARTER, STOCK_TOP, spectator_delay=1)
    eve = sign_up(server, "Eve")
    act(ada, gid, {"type": "play", "cards": ["KH"]})
    seen = eve.http.get(f"/api/v1/games/{gid}").json()
    assert (seen["version"], seen["delay"], seen["top_card"]) == (0, 1, STARTER)

    answer: dict[str, Any] = {}
    waiter = _long_poll(eve, gid, answer, after=seen["version"])
    time.sleep(0.5)
    assert "status" not in answer, "the long-poll answered with a view Eve has already seen"
    act(bo, gid, {"type": "draw"})  # version 2: Ada's KH (version 1) becomes visible to watchers
    moved = time.monotonic()
    waiter.join(5)

    assert answer["status"] == 200 and answer["at"] - moved < 1.0
    view = answer["body"]
    assert (view["version"], view["delay"], view["top_card"], view["spectator"]) == (1, 1, "KH", True)
    assert "hand" not in view and view["legal_actions"] == [] and view["seat"] is None
    assert not (_cards_in(view) & HIDDEN_FROM_WATCHERS), "a spectator sees a card no seat shows"
    assert answer["etag"] == eve.http.get(f"/api/v1/games/{gid}").headers["ETag"]


def test_a_spectators_long_poll_by_etag_waits_for_the_next_visible_move(poll_server: str) -> None:
    ada, bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP, spectator_delay=1)
    eve = sign_up(poll_server, "Eve")
    act(ada, gid, {"type": "play", "cards": ["KH"]})
    first = eve.http.get(f"/api/v1/games/{gid}")
    unchanged = eve.http.get(f"/api/v1/games/{gid}", params={"wait": "0.6"},
                             headers={"If-None-Match": first.headers["ETag"]})
    assert unchanged.status_code == 304 and unchanged.headers["ETag"] == first.headers["ETag"]
    assert eve.http.get(f"/api/v1/games/{gid}", headers={"If-None-Match": first.headers["ETag"]}).status_code == 304

    act(bo, gid, {"type": "draw"})
    later = eve.http.get(f"/api/v1/games/{gid}", params={"wait": 5},
                         headers={"If-None-Match": first.headers["ETag"]})
    assert later.status_code == 200 and later.json()["version"] == 1 and "hand" not in later.json()


def test_an_invited_spectators_long_poll_takes_the_invite_code(poll_server: str) -> None:
    ada, bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP, spectators="invited")
    code = ada.http.get(f"/api/v1/tables/{ada.http.get(f'/api/v1/games/{gid}').json()['table']}").json()["invite_code"]
    eve = sign_up(poll_server, "Eve")
    assert eve.http.get(f"/api/v1/games/{gid}", params={"wait": 1}).status_code == 404
    answer: dict[str, Any] = {}
    waiter = _long_poll(eve, gid, answer, after=0, invite_code=code)
    time.sleep(0.3)
    act(ada, gid, {"type": "play", "cards": ["KH"]})
    waiter.join(5)
    assert answer["status"] == 200 and answer["body"]["top_card"] == "KH" and "hand" not in answer["body"]


def _messages(stream: SseReader, wanted: int, timeout: float = 5.0) -> list[Any]:
    found = []
    deadline = time.monotonic() + timeout
    while len(found) < wanted and time.monotonic() < deadline:
        try:
            event = stream.next(max(0.05, deadline - time.monotonic()))
        except Exception:
            break
        if event.event == "message":
            found.append(event)
    return found


def _no_more_messages(stream: SseReader, seconds: float = 0.6) -> bool:
    time.sleep(seconds)
    while not stream.events.empty():
        if stream.events.get_nowait().event == "message":
            return False
    return True


def test_table_chat_reaches_players_and_spectators_apart_on_the_game_stream(server: str) -> None:
    """The players' chat reaches the players and the watchers (lobby.selectors.messages_for); the
    spectators' chat reaches only the spectators."""
    ada, bo, gid = two_player_round(server, [ADA, BO], STARTER, STOCK_TOP)
    table_id = ada.http.get(f"/api/v1/games/{gid}").json()["table"]
    eve = sign_up(server, "Eve")
    ada_stream = SseReader(server, f"/api/v1/games/{gid}/stream", ada.token).start()
    eve_stream = SseReader(server, f"/api/v1/games/{gid}/stream", eve.token).start()
    try:
        time.sleep(0.3)
        posted = bo.http.post(f"/api/v1/tables/{table_id}/messages", json={"text": "Viel Glück!"})
        assert posted.status_code == 201, posted.text
        sent = time.monotonic()
        for stream in (ada_stream, eve_stream):
            (line,) = _messages(stream, 1)
            assert line.at - sent < 1.0 and line.id is None  # Last-Event-ID stays the ledger's
            assert (line.data["text"], line.data["spectators"], line.data["player"]["id"]) == \
                ("Viel Glück!", False, bo.id)

        assert eve.http.post(f"/api/v1/tables/{table_id}/messages", json={"text": "Spannend"}).status_code == 201
        (aside,) = _messages(eve_stream, 1)
        assert (aside.data["text"], aside.data["spectators"], aside.data["player"]["id"]) == ("Spannend", True, eve.id)
        assert _no_more_messages(ada_stream), "a player read the spectators' chat"

        act(ada, gid, {"type": "play", "cards": ["KH"]})
        move = eve_stream.next(5)
        assert move.event == "move" and move.data["seq"] == 1
        assert not (_cards_in(move.data) & HIDDEN_FROM_WATCHERS), "a spectator's stream names a hidden card"
        assert not (_cards_in([line.data, aside.data]) & (set(ADA) | set(BO) | set(STOCK_TOP)))
    finally:
        ada_stream.close()
        eve_stream.close()

    resumed = SseReader(server, f"/api/v1/games/{gid}/stream?after=0&messages_after=0", bo.token).start()
    try:
        kinds = [resumed.next(5) for _ in range(2)]
        assert [(e.event, e.data.get("text")) for e in kinds] == [("move", None), ("message", "Viel Glück!")]
        assert _no_more_messages(resumed)
    finally:
        resumed.close()


def test_chat_posted_through_one_server_reaches_a_stream_held_by_another(two_servers: tuple[str, str]) -> None:
    first, second = two_servers
    ada, bo, gid = two_player_round(first, [ADA, BO], STARTER, STOCK_TOP)
    table_id = ada.http.get(f"/api/v1/games/{gid}").json()["table"]
    stream = SseReader(second, f"/api/v1/games/{gid}/stream", ada.token).start()
    try:
        time.sleep(0.3)
        assert bo.http.post(f"/api/v1/tables/{table_id}/messages", json={"text": "Hallo"}).status_code == 201
        sent = time.monotonic()
        (line,) = _messages(stream, 1)
        assert line.data["text"] == "Hallo" and line.at - sent < 1.0
    finally:
        stream.close()
