"""Private tables, spectators (no hand, a delay, never a hidden card), resign and abort through the
one move path, table chat and presence, and seats that wait for people."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, Player, Seat
from lobby.models import TableMessage
from scoring.models import RoundResult
from tests.games.api_helpers import act, cards_in, setup_for

pytestmark = pytest.mark.django_db


def test_a_private_table_is_joined_only_with_its_invite_code_and_never_shown_to_outsiders(make_table, make_player) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    table = make_table("classic", visibility="private")
    eve, bob = make_player("Eve"), make_player("Bob")
    code = table.data["invite_code"]
    assert code and eve.get("/api/v1/tables").json() == []
    assert eve.get(f"/api/v1/tables/{table.id}").status_code == 404
    for body in [{}, {"invite_code": "wrong"}]:
        response = eve.post(f"/api/v1/tables/{table.id}/join", body, format="json")
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert eve.get(f"/api/v1/tables/{table.id}/messages").status_code == 404
    joined = bob.post(f"/api/v1/tables/{table.id}/join", {"invite_code": code}, format="json")
    assert joined.status_code == 200 and joined.json()["invite_code"] == code
    game = table.start().json()
    assert eve.get(f"/api/v1/games/{game['id']}").status_code == 404
    assert eve.get(f"/api/v1/games/{game['id']}/events").status_code == 404
    assert [t["id"] for t in bob.get("/api/v1/tables?status=any").json()] == [table.id]


def test_a_spectator_sees_no_hand_and_is_a_set_number_of_moves_behind(make_table, make_player) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic", spectator_delay=2)
    table.bot("basic")
    table.bot("random")
    game = table.start().json()
    gid, host = game["id"], table.host
    eve = make_player("Eve")
    assert eve.get(f"/api/v1/tables/{table.id}").json()["invite_code"] is None
    for _ in range(6):
        state = host.get(f"/api/v1/games/{gid}").json()
        if state["status"] != "active":
            break
        act(host, gid, {**state["legal_actions"][0], "expected_version": state["version"]})
        current = Game.objects.get(pk=gid)
        watched = eve.get(f"/api/v1/games/{gid}").json()
        assert "hand" not in watched and watched["legal_actions"] == [] and watched["spectator"]
        assert not cards_in(watched) - _public_cards(current, watched["version"])
        if current.status == "active":
            assert watched["version"] == max(0, current.version - 2)
        events = eve.get(f"/api/v1/games/{gid}/events").json()
        assert events["deal"]["hands"] == [None, None, None]
        assert all(m["seq"] <= watched["version"] for m in events["moves"])
        assert not cards_in(events) - _public_cards(current, watched["version"])


def _public_cards(game: Game, upto: int) -> set[str]:
    """The cards every seat could see by ``upto``: those laid face up (and the starter)."""
    seen = {game.engine_state().discard[0]} if game.setup is None else {game.setup["starter"]}
    from games.ledger import initial_state

    seen |= {initial_state(game).discard[0]}
    for move in game.moves.filter(seq__lte=upto):
        for event in move.events:
            if event["type"] == "played":
                seen |= set(event["cards"]) | set(event.get("as", {}).values())
    return seen


def test_a_table_for_invited_spectators_needs_the_code(make_table, make_player) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic", spectators="invited")
    table.bot("basic")
    gid = table.start().json()["id"]
    eve = make_player("Eve")
    assert eve.get(f"/api/v1/games/{gid}").status_code == 404  # unseen without the code
    assert eve.get(f"/api/v1/games/{gid}?invite_code={table.data['invite_code']}").json()["spectator"]


def test_resigning_ends_the_round_through_the_one_move_path_and_counts(make_table, make_player) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    bob = make_player("Bob")
    table.join(bob)
    gid = table.start().json()["id"]
    done = act(bob, gid, {"type": "resign"}).json()
    assert done["status"] == "finished" and done["result"]["reason"] == "resigned" and done["result"]["winner"] == 0
    assert done["events"][0] == {"type": "resigned", "seat": 1}
    assert RoundResult.objects.get(game_id=gid).reason == "resigned"  # the ledger verifies (fixture)


def test_only_the_host_aborts_and_only_before_the_first_move(make_table, make_player) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    bob = make_player("Bob")
    table.join(bob)
    gid = table.start(seed=5).json()["id"]  # practice: a fair round is never aborted
    assert bob.post(f"/api/v1/games/{gid}/abort").status_code == 403
    assert act(table.host, gid, {"type": "abort"}).status_code == 200
    assert Game.objects.get(pk=gid).result["reason"] == "aborted"
    assert not RoundResult.objects.filter(game_id=gid).exists()  # never counted
    second = table.start(setup=setup_for("classic", [["7C", "8C"], ["9D", "10D"]], "7H")).json()
    act(table.host, second["id"], {"type": "play", "cards": ["7C"]})
    late = table.host.post(f"/api/v1/games/{second['id']}/abort")
    assert late.status_code == 409 and late.json()["error"]["details"]["reason"] == "round_started"


def test_table_chat_is_bounded_throttled_mutable_and_apart_for_spectators(make_table, make_player, settings) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    settings.MAUMAU_CHAT_RATE = 3
    table = make_table("classic")
    bob, eve = make_player("Bob"), make_player("Eve")
    table.join(bob)
    url = f"/api/v1/tables/{table.id}/messages"
    for text in ["", "x" * 501, "bell\x07", "rtl\u202e", 42]:
        response = bob.post(url, {"text": text}, format="json")
        assert response.status_code == 400, text
    assert bob.post(url, {"text": "Viel Glück!"}, format="json").status_code == 201
    assert eve.post(url, {"text": "Go Bob"}, format="json").json()["spectators"] is True
    assert [m["text"] for m in table.host.get(url).json()] == ["Viel Glück!"]
    assert [m["text"] for m in eve.get(url).json()] == ["Viel Glück!", "Go Bob"]
    bob.post(url, {"text": "two"}, format="json")
    bob.post(url, {"text": "three"}, format="json")
    throttled = bob.post(url, {"text": "four"}, format="json")
    assert throttled.status_code == 429 and throttled.json()["error"]["code"] == "throttled"
    assert int(throttled.headers["Retry-After"]) == throttled.json()["error"]["details"]["retry_after"] >= 1
    assert bob.post(f"/api/v1/tables/{table.id}/mute", {"player": eve.player_id}, format="json").status_code == 403
    assert table.host.post(f"/api/v1/tables/{table.id}/mute", {"player": eve.player_id},
                           format="json").status_code == 204
    assert eve.post(url, {"text": "hello?"}, format="json").status_code == 403
    assert TableMessage.objects.count() == 4


def test_each_seat_shows_presence_and_a_returning_person_takes_the_seat_back(make_table, make_player) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    table = make_table("classic", options={"turn_seconds": 60})
    bob = make_player("Bob")
    table.join(bob)
    gid = table.start().json()["id"]
    Player.objects.filter(pk=bob.player_id).update(last_seen_at=timezone.now() - timedelta(hours=1))
    Seat.objects.filter(table_id=table.id, player_id=bob.player_id).update(bot_controlled=True)
    seats = table.host.get(f"/api/v1/tables/{table.id}").json()["seats"]
    assert seats[1]["online"] is False and seats[1]["absent"] is True and seats[0]["online"] is True
    players = table.host.get(f"/api/v1/games/{gid}").json()["players"]
    assert players[1]["bot_controlled"] and players[1]["last_seen_at"]
    view = bob.get(f"/api/v1/games/{gid}").json()  # any request of Bob's to the round
    assert not Seat.objects.get(table_id=table.id, player_id=bob.player_id).bot_controlled
    assert view["players"][1]["bot_controlled"] is False and view["players"][1]["online"] is True


def test_a_new_round_gives_present_people_their_seats_back(make_table, make_player) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    bob = make_player("Bob")
    table.join(bob)
    gid = table.start().json()["id"]
    act(table.host, gid, {"type": "resign"})
    Seat.objects.filter(table_id=table.id, player_id=bob.player_id).update(bot_controlled=True)
    started = table.start().json()
    assert started["status"] == "active"  # not played out by a bot standing in for Bob
    assert not Seat.objects.get(table_id=table.id, player_id=bob.player_id).bot_controlled
