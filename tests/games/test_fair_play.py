"""Fair play: chosen deals are practice only, and a fair round's deal can be checked by its players.

A fair round is dealt from the server seed the table committed to before the round (its SHA-256 in
the table view) and every seat's entropy; the seed is revealed when the round is over, and the
fairness endpoint and ``manage.py verify_deal`` recompute the commitment, the deal and the ledger.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from games import engine
from games.fairness import deal_report
from games.ledger import initial_state, ledger_genesis, ledger_verify
from games.models import Game, Move, Seat, Table
from scoring.models import PlayerResult, RoundResult
from tests.games.api_helpers import act, setup_for, view

pytestmark = pytest.mark.django_db

ONE_TURN = {"max_turns": 1}  # the first action ends the round: a whole round in one request


def seated(make_player: Callable[..., APIClient], make_table: Callable[..., Any], invite_code: str | None = None,
           **body: Any) -> tuple[Any, APIClient]:
    table = make_table("classic", **body)
    guest = make_player("Guest")
    if invite_code is not None:  # only members play at a league's tables
        joined = guest.post(f"/api/v1/leagues/{body['league']}/join", {"code": invite_code}, format="json")
        assert joined.status_code == 200
    assert table.join(guest).status_code == 200
    return table, guest


def first_turn_ends_it(client: APIClient, game_id: int) -> None:
    """The player on turn (``client``) plays their first turn: with ``ONE_TURN`` that ends the round."""
    for _ in range(3):  # a play; or a draw, then a pass or the drawn card
        state = view(client, game_id)
        if state["status"] == "finished":
            return
        response = act(client, game_id, state["legal_actions"][0])
        assert response.status_code == 200, response.content
    raise AssertionError("the first turn did not end the round")


# --- practice rounds -------------------------------------------------------------------------


@pytest.mark.parametrize("body", [{"seed": 42}, {"setup": setup_for("classic", [["9H"], ["7C", "8C"]], "QH")}],
                         ids=["seed", "setup"])
def test_a_chosen_seed_or_setup_is_a_practice_round_marked_everywhere_and_never_counted(
        make_player, make_table, body: dict[str, Any]) -> None:
    table, guest = seated(make_player, make_table, options=ONE_TURN)
    started = table.start(**body)
    assert started.status_code == 201, started.content
    game = started.json()
    assert game["practice"] is True and game["deal"]["practice"] is True and game["deal"]["kind"] == "practice"
    assert game["deal"]["commitment"] is None and game["deal"]["entropy"] is None
    assert table.host.get(f"/api/v1/tables/{table.id}").json()["current_game_practice"] is True

    first_turn_ends_it(table.host, game["id"])

    assert view(guest, game["id"])["practice"] is True
    assert guest.get(f"/api/v1/games/{game['id']}/events").json()["practice"] is True
    result = RoundResult.objects.get(game_id=game["id"])
    assert (result.practice, result.counted) == (True, False)
    assert set(PlayerResult.objects.filter(round=result).values_list("practice", flat=True)) == {True}
    board = guest.get(f"/api/v1/tables/{table.id}/scoreboard").json()
    assert (board["rounds"], board["practice_rounds"]) == (0, 1)
    assert [(line["rounds"], line["wins"], line["points"]) for line in board["players"]] == [(0, 0, 0), (0, 0, 0)]
    history = table.host.get("/api/v1/me/history").json()["results"]
    assert [(line["game"], line["practice"]) for line in history] == [(game["id"], True)]
    stats = table.host.get("/api/v1/me/stats").json()
    assert stats["practice_rounds"] == 1 and stats["overall"]["rounds"] == 0 and stats["overall"]["wins"] == 0


def test_a_practice_round_says_so_in_its_ledger(make_player, make_table) -> None:
    table, _guest = seated(make_player, make_table, options=ONE_TURN)
    game_id = table.start(seed=7).json()["id"]
    first_turn_ends_it(table.host, game_id)
    game = Game.objects.get(pk=game_id)
    first = Move.objects.get(game=game, seq=1)
    assert first.prev_hash == ledger_genesis(game) != ""
    game.practice = False  # the same rows under a fair round's header no longer chain
    assert "seq 1: prev_hash does not chain to the row before" in ledger_verify(game)


def test_a_fair_round_counts(make_player, make_table) -> None:
    table, guest = seated(make_player, make_table, options=ONE_TURN)
    game = table.start().json()
    assert game["practice"] is False and game["deal"]["kind"] == "fair"
    first_turn_ends_it(table.host, game["id"])
    result = RoundResult.objects.get(game_id=game["id"])
    assert (result.practice, result.counted) == (False, True)
    board = guest.get(f"/api/v1/tables/{table.id}/scoreboard").json()
    assert (board["rounds"], board["practice_rounds"]) == (1, 0)
    assert sum(line["rounds"] for line in board["players"]) == 2


@pytest.mark.parametrize("body", [{"seed": 42}, {"setup": setup_for("house", [["9H"], ["7C", "8C"]], "QH")}],
                         ids=["seed", "setup"])
def test_a_league_table_refuses_a_chosen_seed_or_setup(make_player, make_table, body: dict[str, Any]) -> None:
    host = make_player("Host")
    league = host.post("/api/v1/leagues", {"name": "Sunday", "rules": "house"}, format="json").json()
    table, _guest = seated(make_player, lambda rules, **kw: make_table("house", host=host, **kw), league=league["id"],
                           invite_code=league["invite_code"])
    before = host.get(f"/api/v1/tables/{table.id}").json()

    refused = table.start(**body)

    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "table_state" and error["details"] == {"reason": "practice_in_league",
                                                                    "league": league["id"]}
    assert host.get(f"/api/v1/tables/{table.id}").json() == before
    assert not Game.objects.filter(table_id=table.id).exists()
    in_german = host.post(f"/api/v1/tables/{table.id}/rounds", body, format="json", HTTP_ACCEPT_LANGUAGE="de")
    assert in_german.json()["error"]["message"].startswith("Eine Ligarunde wird fair gegeben")
    assert table.start().status_code == 201  # a fair round is what a league table deals


# --- fair dealing ----------------------------------------------------------------------------


def test_the_round_uses_the_seed_committed_before_the_entropy_and_reveals_it_after(make_player, make_table) -> None:
    table, guest = seated(make_player, make_table, options=ONE_TURN)
    before = table.host.get(f"/api/v1/tables/{table.id}").json()
    commitment = before["next_commitment"]
    assert len(commitment) == 64 and [s["entropy"]["source"] for s in before["seats"]] == ["server", "server"]
    guest_nonce = before["seats"][1]["entropy"]["value"]
    entropy = table.host.post(f"/api/v1/tables/{table.id}/entropy", {"entropy": "ada-rolled-4"}, format="json")
    assert entropy.status_code == 200 and entropy.json()["seats"][0]["entropy"] == {"value": "ada-rolled-4",
                                                                                     "source": "player"}
    assert entropy.json()["next_commitment"] == commitment  # entropy does not move the commitment

    game = table.start().json()

    assert game["deal"] == {"practice": False, "kind": "fair", "commitment": commitment, "seed": None,
                            "entropy": [{"seat": 0, "value": "ada-rolled-4", "source": "player"},
                                        {"seat": 1, "value": guest_nonce, "source": "server"}]}
    after_start = table.host.get(f"/api/v1/tables/{table.id}").json()
    assert after_start["next_commitment"] not in (None, commitment)  # the next round's seed is drawn
    assert after_start["seats"][0]["entropy"]["source"] == "server"  # the round used the entropy up
    first_turn_ends_it(table.host, game["id"])

    seed = view(guest, game["id"])["deal"]["seed"]
    assert hashlib.sha256(seed.encode()).hexdigest() == commitment
    report = guest.get(f"/api/v1/games/{game['id']}/fairness").json()
    assert report["verified"] is True and report["problems"] == []
    assert report["checks"] == {"commitment": True, "ledger": True, "rows": view(guest, game["id"])["version"]}
    assert report["seed"] == seed and report["scheme"] == "maumau-deal/1"
    assert report["deal_seed"] == engine.deal_seed(seed, ["ada-rolled-4", guest_nonce])


def test_the_deal_recomputes_from_the_revealed_seed_and_the_entropy(make_player, make_table) -> None:
    table, guest = seated(make_player, make_table, options=ONE_TURN)
    game_id = table.start().json()["id"]
    first_turn_ends_it(table.host, game_id)
    report = guest.get(f"/api/v1/games/{game_id}/fairness").json()

    # What anyone can do with the report alone: the hashes by hand, the deal with the engine.
    parts = ",".join(f'"{e["value"]}"' for e in report["entropy"])
    encoded = f'["maumau-deal/1","{report["seed"]}",[{parts}]]'
    deal_seed = hashlib.sha256(encoded.encode()).hexdigest()
    assert deal_seed == report["deal_seed"]
    rules = engine.RuleSet.from_preset("classic", ONE_TURN)
    dealt = engine.new_game(rules, players=2, seed=deal_seed, first=0)
    assert engine.deal_event(dealt) == report["deal"]


def test_a_players_entropy_changes_the_deal(make_player, make_table) -> None:
    table, _guest = seated(make_player, make_table)
    table.host.post(f"/api/v1/tables/{table.id}/entropy", {"entropy": "mine"}, format="json")
    game = Game.objects.get(pk=table.start().json()["id"])
    dealt = engine.deal_event(initial_state(game))

    game.entropy = [{**game.entropy[0], "value": "mine!"}, game.entropy[1]]

    assert engine.deal_event(initial_state(game)) != dealt
    assert engine.deal_seed(game.seed, ["a", "b"]) != engine.deal_seed(game.seed, ["ab", ""])  # parts stay apart


@pytest.mark.ledger_tampered
def test_a_seed_changed_after_the_commitment_fails_the_check(make_player, make_table) -> None:
    table, guest = seated(make_player, make_table, options=ONE_TURN)
    game_id = table.start().json()["id"]
    first_turn_ends_it(table.host, game_id)
    call_command("verify_deal", game_id)  # as dealt: passes

    Game.objects.filter(pk=game_id).update(seed="f" * 64)

    report = guest.get(f"/api/v1/games/{game_id}/fairness").json()
    assert report["verified"] is False and report["checks"]["commitment"] is False
    assert "the server seed does not hash to the commitment" in report["problems"]
    assert report["checks"]["ledger"] is False  # another seed deals other cards than the ledger shows
    with pytest.raises(CommandError):
        call_command("verify_deal", game_id)


def test_verify_deal_exit_codes_and_output(make_player, make_table, capsys: pytest.CaptureFixture[str]) -> None:
    table, _guest = seated(make_player, make_table, options=ONE_TURN)
    game_id = table.start().json()["id"]
    first_turn_ends_it(table.host, game_id)

    call_command("verify_deal")  # every finished round
    call_command("verify_deal", game_id, verbosity=2)
    out = capsys.readouterr().out
    assert f"game {game_id}: fair deal" in out and "seed matches the commitment" in out
    assert Game.objects.get(pk=game_id).seed in out  # revealed: the round is over
    with pytest.raises(CommandError):
        call_command("verify_deal", game_id, 999_999)  # an unknown round is a failure, not a silent pass
    assert "game 999999: no such round" in capsys.readouterr().err


def test_verify_deal_never_prints_a_running_rounds_seed(make_player, make_table,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    table, _guest = seated(make_player, make_table)
    game_id = table.start().json()["id"]
    call_command("verify_deal", game_id, verbosity=2)
    assert Game.objects.get(pk=game_id).seed not in capsys.readouterr().out


def test_the_fairness_endpoint_is_for_the_rounds_players_once_it_is_over(make_player, make_table) -> None:
    table, guest = seated(make_player, make_table, options=ONE_TURN)
    stranger = make_player("Stranger")
    game_id = table.start().json()["id"]

    running = guest.get(f"/api/v1/games/{game_id}/fairness")
    assert running.status_code == 409 and running.json()["error"]["details"] == {"reason": "round_running"}
    first_turn_ends_it(table.host, game_id)

    assert guest.get(f"/api/v1/games/{game_id}/fairness").status_code == 200
    for who, path in ((stranger, f"/api/v1/games/{game_id}/fairness"), (guest, "/api/v1/games/999999/fairness")):
        response = who.get(path)
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert APIClient().get(f"/api/v1/games/{game_id}/fairness").status_code == 401


def test_a_round_from_before_fair_dealing_still_plays_and_verifies(make_player, make_table) -> None:
    table, guest = seated(make_player, make_table, options=ONE_TURN)
    game_id = table.start().json()["id"]
    # As migration 0006 leaves a round dealt before it: dealt from its seed, no commitment, chain from "".
    game = Game.objects.get(pk=game_id)
    rules = engine.RuleSet.from_json(game.rules)
    state = engine.new_game(rules, players=2, seed=game.seed, first=game.first)
    Game.objects.filter(pk=game_id).update(commitment="", entropy=None, ledger_head="",
                                           state=state.to_json(with_rules=False), turn=state.turn)

    first_turn_ends_it(table.host, game_id)

    assert view(guest, game_id)["deal"]["kind"] == "seed"
    report = guest.get(f"/api/v1/games/{game_id}/fairness").json()
    assert report["verified"] is True and report["checks"]["commitment"] is None
    call_command("verify_deal", game_id)


# --- entropy ---------------------------------------------------------------------------------


def test_entropy_given_when_joining_goes_into_the_deal(make_player, make_table) -> None:
    table = make_table("classic")
    guest = make_player("Guest")
    joined = guest.post(f"/api/v1/tables/{table.id}/join", {"entropy": "g-u-e-s-t"}, format="json")
    assert joined.status_code == 200
    game = table.start().json()
    assert game["deal"]["entropy"][1] == {"seat": 1, "value": "g-u-e-s-t", "source": "player"}


@pytest.mark.parametrize("entropy", ["", "x" * 65, "with space", "ümlaut", 42, None, ["a"]])
def test_bad_entropy_is_400_and_changes_nothing(make_player, make_table, entropy: Any) -> None:
    table, _guest = seated(make_player, make_table)
    before = table.host.get(f"/api/v1/tables/{table.id}").json()
    response = table.host.post(f"/api/v1/tables/{table.id}/entropy", {"entropy": entropy}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert table.host.get(f"/api/v1/tables/{table.id}").json() == before
    stranger = make_player("Late")
    assert stranger.post(f"/api/v1/tables/{table.id}/join", {"entropy": entropy}, format="json").status_code == 400
    assert not Seat.objects.filter(table_id=table.id, player_id=stranger.player_id).exists()


def test_only_a_seated_player_gives_entropy(make_player, make_table) -> None:
    table, _guest = seated(make_player, make_table)
    response = make_player("Stranger").post(f"/api/v1/tables/{table.id}/entropy", {"entropy": "abc"}, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"


def test_the_next_server_seed_is_never_shown(make_player, make_table) -> None:
    table, guest = seated(make_player, make_table)
    secret = Table.objects.get(pk=table.id).next_seed
    assert len(secret) == 64
    assert secret not in table.host.get(f"/api/v1/tables/{table.id}").content.decode()
    assert secret not in guest.get("/api/v1/tables").content.decode()
    assert secret not in table.start().content.decode()


# --- bots ------------------------------------------------------------------------------------


def test_bots_choices_replay_from_the_revealed_seed(make_table) -> None:
    """Each bot move's generator is seeded by engine.bot_seed(server seed, version): after the round
    anyone with the revealed seed can recompute every choice the bots made."""
    table = make_table("classic")
    table.bot("random")
    table.bot("basic")
    game_id = table.start().json()["id"]
    rng = random.Random(5)
    for _ in range(2000):
        state = view(table.host, game_id)
        if state["status"] != "active":
            break
        act(table.host, game_id, rng.choice(state["legal_actions"]))
    game = Game.objects.get(pk=game_id)
    assert game.status == "finished"
    levels = {seat: Seat.objects.get(table_id=table.id, position=pos).player.bot_level
              for seat, pos in enumerate(game.positions)}
    state = initial_state(game)
    bot_rows = 0
    for move in game.moves.order_by("seq"):
        if move.actor == "bot" and move.action.get("type") != "say":
            generator = random.Random(engine.bot_seed(game.seed, move.seq - 1))
            choice = engine.choose_bot_action(state, move.seat, levels[move.seat], generator)
            assert engine.parse_action(choice) == move.action, f"seq {move.seq}"
            bot_rows += 1
        engine.apply(state, None if move.actor == "clock" else move.seat,
                     engine.parse_action(move.action, clock=move.actor == "clock"))
    assert bot_rows > 3
    assert deal_report(game)["verified"]
