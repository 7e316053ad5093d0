"""Long-poll and server-sent events over a real ASGI server: the opponent's move arrives at once,
redacted for the waiting player, and a resumed stream loses and repeats nothing."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx

from tests.streams.streams_helpers import SseReader, act, sign_up, two_player_round

# Ada opens with KH on the 9H starter; Bo holds no heart, no king, no jack: he must draw QS,
# which does not fit, so his turn passes. Ada's other cards and the stock stay hidden from Bo.
ADA = ["KH", "8C", "10S", "AD", "QC"]
BO = ["7C", "8D", "9D", "AS", "10D"]
STARTER, STOCK_TOP = "9H", ["QS", "7S"]
ADA_HIDDEN = {"8C", "10S", "AD", "QC"}


def _cards_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_cards_in(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def test_long_poll_answers_with_the_opponents_move_within_a_second(server: str) -> None:
    ada, bo, gid = two_player_round(server, [ADA, BO], STARTER, STOCK_TOP)
    version = bo.http.get(f"/api/v1/games/{gid}").json()["version"]
    answer: dict[str, Any] = {}

    def wait() -> None:
        response = bo.http.get(f"/api/v1/games/{gid}", params={"wait": 20, "after": version})
        answer.update(status=response.status_code, body=response.json(), etag=response.headers.get("ETag"),
                      at=time.monotonic())

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.5)  # Bo is waiting now
    assert "status" not in answer, "the long-poll answered before anything happened"
    act(ada, gid, {"type": "play", "cards": ["KH"]})
    moved = time.monotonic()
    waiter.join(5)
    assert answer["status"] == 200
    assert answer["at"] - moved < 1.0
    body = answer["body"]
    assert body["version"] > version and body["top_card"] == "KH" and body["turn"] == 1
    assert body["hand"] == BO
    assert not (_cards_in(body) & (ADA_HIDDEN | {"QS", "7S"})), "Bo sees a card he may not see"
    assert answer["etag"] == f'"g{gid}-v{body["version"]}-p{bo.id}"'


def test_long_poll_answers_304_when_the_wait_runs_out(poll_server: str) -> None:
    ada, bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP)
    first = bo.http.get(f"/api/v1/games/{gid}")
    started = time.monotonic()
    response = bo.http.get(f"/api/v1/games/{gid}", params={"wait": "0.6"},
                           headers={"If-None-Match": first.headers["ETag"]})
    assert response.status_code == 304 and response.headers["ETag"] == first.headers["ETag"]
    assert time.monotonic() - started >= 0.55
    act(ada, gid, {"type": "play", "cards": ["KH"]})
    behind = bo.http.get(f"/api/v1/games/{gid}", params={"wait": 30, "after": 0})
    assert behind.status_code == 200 and behind.json()["top_card"] == "KH"  # already past: no waiting


def test_long_poll_whose_wait_outlasts_the_turn_clock_answers_with_the_timeout(poll_server: str) -> None:
    """No worker runs here: the long-poll itself resolves the deadline that passed while it waited."""
    ada, bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP, options={"turn_seconds": 1})
    version = bo.http.get(f"/api/v1/games/{gid}").json()["version"]
    response = bo.http.get(f"/api/v1/games/{gid}", params={"wait": "2.5", "after": version})
    assert response.status_code == 200, response.text
    assert response.json()["version"] > version and response.json()["turn"] == 1
    actors = [row["actor"] for row in bo.http.get(f"/api/v1/games/{gid}/events").json()["moves"]]
    assert actors[-1] == "clock", actors


def test_stream_sends_the_opponents_move_redacted_within_a_second(server: str) -> None:
    ada, bo, gid = two_player_round(server, [ADA, BO], STARTER, STOCK_TOP)
    act(ada, gid, {"type": "play", "cards": ["KH"]})
    stream = SseReader(server, f"/api/v1/games/{gid}/stream", ada.token).start()
    try:
        assert stream.status == 200
        time.sleep(0.3)
        act(bo, gid, {"type": "draw"})
        moved = time.monotonic()
        event = stream.next(5)
        assert event.event == "move" and event.at - moved < 1.0
        assert int(event.id or 0) == event.data["seq"]
        drew = next(e for e in event.data["events"] if e["type"] == "drew")
        assert drew["seat"] == 1 and drew["count"] == 1
        assert "QS" not in _cards_in(event.data), "Ada sees the card Bo drew"
    finally:
        stream.close()


def test_stream_resumes_after_last_event_id_without_loss_or_repeat(server: str) -> None:
    ada, bo, gid = two_player_round(server, [ADA, BO], STARTER, STOCK_TOP)
    first = SseReader(server, f"/api/v1/games/{gid}/stream?after=0", bo.token).start()
    act(ada, gid, {"type": "play", "cards": ["KH"]})
    seen = [first.next(5)]
    first.close()  # the connection drops; moves go on meanwhile
    act(bo, gid, {"type": "draw"})
    version = ada.http.get(f"/api/v1/games/{gid}").json()["version"]
    last_id = seen[-1].id
    second = SseReader(server, f"/api/v1/games/{gid}/stream", bo.token,
                       headers={"Last-Event-ID": str(last_id)}).start()
    try:
        while int(seen[-1].id or 0) < version:
            seen.append(second.next(5))
        time.sleep(0.3)
        assert second.events.empty(), "an event came twice"
    finally:
        second.close()
    assert [int(e.id or 0) for e in seen] == list(range(1, version + 1))
    ledger = bo.http.get(f"/api/v1/games/{gid}/events").json()["moves"]
    assert [e.data for e in seen] == ledger, "the stream differs from the ledger Bo may read"


def test_stream_sends_keep_alive_comments(poll_server: str) -> None:
    _ada, bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP)
    stream = SseReader(poll_server, f"/api/v1/games/{gid}/stream", bo.token).start()
    try:
        deadline = time.monotonic() + 5
        comments = []
        while "keep-alive" not in comments and time.monotonic() < deadline:
            comments.append(stream.comments.get(timeout=5))
        assert "keep-alive" in comments
    finally:
        stream.close()


def test_round_over_ends_the_game_stream_and_notifies_both_players(server: str) -> None:
    ada, bo, gid = two_player_round(server, [["KH"], BO], STARTER, STOCK_TOP)
    game_stream = SseReader(server, f"/api/v1/games/{gid}/stream", bo.token).start()
    bo_notes = SseReader(server, "/api/v1/me/stream", bo.token).start()
    ada_notes = SseReader(server, "/api/v1/me/stream", ada.token).start()
    try:
        time.sleep(0.3)
        act(ada, gid, {"type": "play", "cards": ["KH"]})
        move = game_stream.next(5)
        assert move.event == "move" and any(e["type"] == "round_over" for e in move.data["events"])
        assert game_stream.next(5).event == "end"
        for stream, seat in ((bo_notes, 1), (ada_notes, 0)):
            note = stream.next(5)
            assert note.event == "round_over" and note.data["game"] == gid
            assert note.data["data"]["winner"] == 0 and note.data["data"]["seat"] == seat
    finally:
        for stream in (game_stream, bo_notes, ada_notes):
            stream.close()


def test_me_stream_tells_your_turn_and_resumes_by_id(server: str) -> None:
    ada, bo, gid = two_player_round(server, [ADA, BO], STARTER, STOCK_TOP)
    notes = SseReader(server, "/api/v1/me/stream", bo.token).start()
    try:
        time.sleep(0.3)
        act(ada, gid, {"type": "play", "cards": ["KH"]})
        moved = time.monotonic()
        note = notes.next(5)
        assert note.event == "your_turn" and note.at - moved < 1.0
        assert note.data["game"] == gid and note.data["data"]["seat"] == 1
    finally:
        notes.close()
    older = SseReader(server, "/api/v1/me/stream?after=0", bo.token).start()
    try:
        kinds = []
        while True:
            event = older.next(5)
            kinds.append(event.event)
            if event.id == note.id:
                break
        assert kinds[0] == "player_joined" or "round_started" in kinds
        assert kinds[-1] == "your_turn"
    finally:
        older.close()


def test_me_inbox_long_polls_the_notifications_the_stream_sends(server: str) -> None:
    ada, bo, gid = two_player_round(server, [ADA, BO], STARTER, STOCK_TOP)
    history = bo.http.get("/api/v1/me/inbox", params={"after": 0}).json()
    assert history["notifications"] and history["after"] == history["notifications"][-1]["id"]
    empty = bo.http.get("/api/v1/me/inbox", params={"after": history["after"], "wait": "0.3"})
    assert empty.status_code == 200 and empty.json() == {"notifications": [], "after": history["after"]}
    answer: dict[str, Any] = {}

    def wait() -> None:
        response = bo.http.get("/api/v1/me/inbox", params={"after": history["after"], "wait": 20})
        answer.update(status=response.status_code, body=response.json(), at=time.monotonic())

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.5)
    assert "status" not in answer, "the long-poll answered before anything happened"
    act(ada, gid, {"type": "play", "cards": ["KH"]})
    moved = time.monotonic()
    waiter.join(5)
    assert answer["status"] == 200 and answer["at"] - moved < 1.0
    notes = answer["body"]["notifications"]
    assert [n["kind"] for n in notes] == ["your_turn"] and notes[0]["data"]["seat"] == 1
    assert answer["body"]["after"] == notes[0]["id"]
    streamed = SseReader(server, f"/api/v1/me/stream?after={history['after']}", bo.token).start()
    try:
        assert streamed.next(5).data == notes[0]  # the same JSON as the stream's
    finally:
        streamed.close()
    new_only = bo.http.get("/api/v1/me/inbox", params={"wait": "0.2"}).json()
    assert new_only == {"notifications": [], "after": notes[0]["id"]}


def test_waiting_endpoints_refuse_strangers_in_the_error_shape(poll_server: str) -> None:
    _ada, _bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP, spectators="nobody")
    eve = sign_up(poll_server, "Eve")
    anonymous = httpx.Client(base_url=poll_server, timeout=10)
    cases = [
        (anonymous.get(f"/api/v1/games/{gid}/stream"), 401, "not_authenticated"),
        (anonymous.get(f"/api/v1/games/{gid}", params={"wait": 1}), 401, "not_authenticated"),
        (anonymous.get("/api/v1/me/stream", headers={"Authorization": "Token nope"}), 401, "not_authenticated"),
        (eve.http.get(f"/api/v1/games/{gid}/stream"), 404, "not_found"),  # outsiders: as if it did not exist
        (eve.http.get(f"/api/v1/games/{gid}", params={"wait": 1}), 404, "not_found"),
        (eve.http.get("/api/v1/games/999999/stream"), 404, "not_found"),
        (eve.http.get("/api/v1/games/999999", params={"wait": 1}), 404, "not_found"),
        (eve.http.get(f"/api/v1/games/{gid}", params={"wait": "soon"}), 400, "validation_error"),
        (eve.http.get("/api/v1/me/stream", params={"after": "-3"}), 400, "validation_error"),
        (anonymous.get("/api/v1/me/inbox"), 401, "not_authenticated"),
        (eve.http.get("/api/v1/me/inbox", params={"wait": "NaN"}), 400, "validation_error"),
        (eve.http.get("/api/v1/me/inbox", params={"after": "99999999999"}), 400, "validation_error"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, (response.request.url, response.text)
        assert response.json()["error"]["code"] == code
    german = anonymous.get(f"/api/v1/games/{gid}/stream", headers={"Accept-Language": "de"})
    english = anonymous.get(f"/api/v1/games/{gid}/stream")
    assert german.json()["error"]["message"] != english.json()["error"]["message"]


def test_a_spectator_stream_shows_moves_behind_by_the_delay_and_no_hand(poll_server: str) -> None:
    ada, _bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP, spectator_delay=1)
    eve = sign_up(poll_server, "Eve")
    act(ada, gid, {"type": "play", "cards": [ADA[0]]})
    with eve.http.stream("GET", f"/api/v1/games/{gid}/stream", params={"after": 0}, timeout=10) as response:
        assert response.status_code == 200
        lines = []
        for line in response.iter_lines():
            lines.append(line)
            if line.startswith(": keep-alive"):
                break
    assert not any(line.startswith("event: move") for line in lines)  # one move, one behind: nothing yet
    watched = eve.http.get(f"/api/v1/games/{gid}").json()
    assert watched["version"] == 0 and watched["delay"] == 1 and "hand" not in watched
