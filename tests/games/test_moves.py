"""Moves over HTTP: the view, each refusal with its code, expected_version, ETag and the ledger read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games import engine
from games.models import Game, Move, Table
from games.rule_messages import RULE_MESSAGES
from tests.games.api_helpers import act, setup_for, view

pytestmark = pytest.mark.django_db

HANDS = [["7H", "8H", "KS", "AC", "9D"], ["10H", "QS", "KC", "AD", "7C"]]


@pytest.fixture
def rigged(two_people):  # type: ignore[no-untyped-def]
    return two_people("classic", setup=setup_for("classic", HANDS, "9H", ["JD", "JH", "JS"]))


def code(response) -> str:  # type: ignore[no-untyped-def]
    return response.json()["error"]["code"]


def test_the_view_shows_own_hand_counts_and_legal_actions(rigged) -> None:  # type: ignore[no-untyped-def]
    _table, host, guest, game = rigged
    assert game["hand"] == HANDS[0] and game["turn"] == 0 and game["top_card"] == "9H"
    assert game["version"] == 0 and game["status"] == "active" and game["deadline"]
    assert [(p["seat"], p["name"], p["card_count"], p["bot"]) for p in game["players"]] == [
        (0, "Host", 5, False), (1, "Guest", 5, False)]
    assert {"type": "play", "cards": ["7H"]} in [{k: v for k, v in a.items() if k in ("type", "cards")}
                                                 for a in game["legal_actions"]]
    guest_view = view(guest, game["id"])
    assert guest_view["hand"] == HANDS[1] and guest_view["legal_actions"] == [] and guest_view["seat"] == 1


def test_a_legal_play_applies_and_answers_with_the_new_view_and_events(rigged) -> None:  # type: ignore[no-untyped-def]
    _table, host, guest, game = rigged
    response = act(host, game["id"], {"type": "play", "cards": ["7H"], "expected_version": 0})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["version"] == 1 and body["turn"] == 1 and body["pending_draw"] == 2 and "7H" not in body["hand"]
    assert body["events"][0] == {"type": "played", "seat": 0, "cards": ["7H"]}
    move = Move.objects.get(game_id=game["id"], seq=1)
    assert move.actor == "player" and move.seat == 0 and move.player_id == host.player_id
    game_row = Game.objects.get(pk=game["id"])
    assert game_row.version == 1 and game_row.turn == 1 and game_row.ledger_head == move.hash


def test_not_your_turn_is_409_and_changes_nothing(rigged) -> None:  # type: ignore[no-untyped-def]
    _table, _host, guest, game = rigged
    response = act(guest, game["id"], {"type": "draw"})
    assert response.status_code == 409 and code(response) == "not_your_turn"
    assert Game.objects.get(pk=game["id"]).version == 0 and not Move.objects.exists()


def test_a_stale_expected_version_is_409_version_conflict(rigged) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = rigged
    response = act(host, game["id"], {"type": "draw", "expected_version": 3})
    assert response.status_code == 409 and code(response) == "version_conflict"
    assert response.json()["error"]["details"]["version"] == 0


def test_a_move_the_rules_forbid_is_422_with_the_reason(rigged) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = rigged
    response = act(host, game["id"], {"type": "play", "cards": ["KS"]})
    assert response.status_code == 422 and code(response) == "illegal_move"
    assert response.json()["error"]["details"]["reason"]
    assert response.json()["error"]["details"]["penalty"] == []  # classic does not charge
    assert Game.objects.get(pk=game["id"]).version == 0


@pytest.mark.parametrize("language,message", [
    ("en", "The card does not fit the top card."),
    ("de", "Die Karte passt nicht auf die oberste Karte."),
    ("fr", "La carte ne va pas sur la carte du dessus."),
])
def test_illegal_move_message_names_the_rule_in_the_callers_language(  # type: ignore[no-untyped-def]
        rigged, language, message) -> None:
    _table, host, _guest, game = rigged
    response = act(host, game["id"], {"type": "play", "cards": ["KS"]}, HTTP_ACCEPT_LANGUAGE=language)
    error = response.json()["error"]
    assert (error["message"], error["details"]["reason"]) == (message, "card_does_not_fit")


def test_every_rule_refusal_of_the_engine_has_a_translated_message() -> None:
    source = "".join(path.read_text() for path in Path(engine.__file__).parent.glob("*.py"))
    codes = set(re.findall(r'IllegalAction\(\s*"([a-z_]+)"', source))
    answered_otherwise = {"not_your_turn", "game_over", "not_seated", "unknown_action"}  # 409 / 403 / 400
    assert codes - answered_otherwise <= set(RULE_MESSAGES), codes - answered_otherwise - set(RULE_MESSAGES)


@pytest.mark.parametrize("body", [
    {"type": "fly"},
    {"cards": ["7H"]},
    {"type": "play", "cards": ["ZZ"]},
    {"type": "play", "cards": ["7X"]},
    {"type": "play", "cards": "7H"},
    {"type": "play", "cards": [7]},
    {"type": "play", "cards": ["7H"], "wish": "Q"},
    {"type": "play", "cards": ["7H"], "target": "one"},
    {"type": "say", "word": "hello"},
    {"type": "timeout"},
    {"type": "play", "cards": ["7H"], "hand": ["AS", "AH"]},
    {"type": "play", "cards": ["7H"], "seat": 1},
    {"type": "draw", "version": 9},
    {"type": "draw", "expected_version": "zero"},
    {"type": "draw", "expected_version": -1},
    {"type": "draw", "expected_version": True},
    [{"type": "draw"}],
    "draw",
])
def test_malformed_actions_are_400_with_a_code_never_500(rigged, body) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = rigged
    response = act(host, game["id"], body)
    assert response.status_code == 400 and code(response) == "validation_error", response.json()
    assert Game.objects.get(pk=game["id"]).version == 0


def test_broken_json_is_400(rigged) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = rigged
    response = host.post(f"/api/v1/games/{game['id']}/actions", data="{'type': draw", content_type="application/json")
    assert response.status_code == 400 and code(response) == "validation_error"


def test_someone_not_seated_may_watch_a_public_round_but_not_act(rigged, make_player) -> None:  # type: ignore[no-untyped-def]
    _table, _host, _guest, game = rigged
    stranger = make_player("Eve")
    watched = stranger.get(f"/api/v1/games/{game['id']}").json()
    assert watched["spectator"] and "hand" not in watched and watched["legal_actions"] == [] and watched["seat"] is None
    assert stranger.get(f"/api/v1/games/{game['id']}/events").status_code == 200
    response = act(stranger, game["id"], {"type": "draw"})
    assert response.status_code == 403 and code(response) == "permission_denied"
    assert Game.objects.get(pk=game["id"]).version == 0


@pytest.mark.parametrize("closed", [{"spectators": "nobody"}, {"spectators": "invited"}, {"visibility": "private"}])
def test_an_outsider_of_an_unwatched_round_gets_the_same_404_as_for_a_game_that_does_not_exist(
        rigged, make_player, closed) -> None:  # type: ignore[no-untyped-def]
    table, _host, _guest, game = rigged
    Table.objects.filter(pk=table.id).update(**closed)
    stranger = make_player("Eve")

    def answers(game_id: int) -> list[tuple[int, dict]]:
        responses = [stranger.get(f"/api/v1/games/{game_id}"), stranger.get(f"/api/v1/games/{game_id}/events"),
                     act(stranger, game_id, {"type": "draw"})]
        return [(r.status_code, r.json()) for r in responses]

    assert answers(game["id"]) == answers(999_999)
    assert {status for status, _body in answers(game["id"])} == {404}


def test_an_unknown_game_is_404(make_player) -> None:
    client = make_player()
    for response in [client.get("/api/v1/games/999"), client.get("/api/v1/games/999/events"),
                     act(client, 999, {"type": "draw"})]:
        assert response.status_code == 404 and code(response) == "not_found"


def test_etag_and_if_none_match(rigged) -> None:  # type: ignore[no-untyped-def]
    _table, host, guest, game = rigged
    first = host.get(f"/api/v1/games/{game['id']}")
    etag = first["ETag"]
    assert guest.get(f"/api/v1/games/{game['id']}")["ETag"] != etag  # views differ per caller
    unchanged = host.get(f"/api/v1/games/{game['id']}", HTTP_IF_NONE_MATCH=etag)
    assert unchanged.status_code == 304 and unchanged["ETag"] == etag
    act(host, game["id"], {"type": "play", "cards": ["7H"]})
    changed = host.get(f"/api/v1/games/{game['id']}", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_events_after_seq_and_their_redaction(rigged) -> None:  # type: ignore[no-untyped-def]
    _table, host, guest, game = rigged
    act(host, game["id"], {"type": "play", "cards": ["7H"]})
    act(guest, game["id"], {"type": "draw"})  # the 7's penalty: two cards, hidden from the host
    mine = guest.get(f"/api/v1/games/{game['id']}/events").json()
    theirs = host.get(f"/api/v1/games/{game['id']}/events").json()
    assert [m["seq"] for m in mine["moves"]] == [1, 2] and mine["version"] == 2
    assert mine["moves"][1]["events"][0]["cards"] == ["JD", "JH"]
    drew = theirs["moves"][1]["events"][0]
    assert drew["type"] == "drew" and drew["count"] == 2 and "cards" not in drew
    assert theirs["deal"]["hands"][0] == HANDS[0] and theirs["deal"]["hands"][1] is None
    later = host.get(f"/api/v1/games/{game['id']}/events?after=1").json()
    assert [m["seq"] for m in later["moves"]] == [2] and later["deal"] is None
    assert host.get(f"/api/v1/games/{game['id']}/events?after=x").status_code == 400


def test_a_finished_round_refuses_moves_and_reveals_the_ledger(two_people) -> None:  # type: ignore[no-untyped-def]
    setup = setup_for("classic", [["9S"], ["7C", "8C", "QC"]], "9H", ["KD", "KH"])
    _table, host, guest, game = two_people("classic", setup=setup)
    won = act(host, game["id"], {"type": "play", "cards": ["9S"]})
    assert won.status_code == 200 and won.json()["status"] == "finished"
    result = won.json()["result"]
    assert result["winner"] == 0 and result["players"][0]["name"] == "Host"
    assert won.json()["legal_actions"] == [] and won.json()["deadline"] is None
    late = act(guest, game["id"], {"type": "draw"})
    assert late.status_code == 409 and code(late) == "game_finished"
    ledger = host.get(f"/api/v1/games/{game['id']}/events").json()
    assert ledger["revealed"] is True and ledger["deal"]["hands"][1] == ["7C", "8C", "QC"]


def test_next_round_is_opened_by_the_next_seat(two_people) -> None:  # type: ignore[no-untyped-def]
    setup = setup_for("classic", [["9S"], ["7C", "8C", "QC"]], "9H", ["KD", "KH"])
    table, host, _guest, game = two_people("classic", setup=setup)
    act(host, game["id"], {"type": "play", "cards": ["9S"]})
    again = table.start(seed=11)
    assert again.status_code == 201 and again.json()["number"] == 2 and again.json()["turn"] == 1
