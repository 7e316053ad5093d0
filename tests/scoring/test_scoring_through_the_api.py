"""Rounds played through the API end in the round results, the scoreboard and the league.

The deals are fixed (`deal_fixed`: a chosen `setup` would make a practice round, which never
counts), so every expected figure is computed by hand from docs/rules.md: the last move is the only
move of the round.
"""

from __future__ import annotations

from typing import Any

import pytest
from scoring_helpers import deal_fixed

from games.engine import build_deck
from scoring.models import RoundResult

pytestmark = pytest.mark.django_db


def deal(deck: str, hands: list[list[str]], starter: str, jokers: int = 0) -> dict[str, Any]:
    used = {card for hand in hands for card in hand} | {starter}
    return {"hands": hands, "starter": starter, "stock": [c for c in build_deck(deck, jokers) if c not in used]}


def seated_table(make_player, rules: str, count: int, league: int | None = None) -> tuple[Any, list[Any]]:
    clients = [make_player(f"Seat{seat}") for seat in range(count)]
    response = clients[0].post(
        "/api/v1/tables", {"rules": rules, "max_players": count, "league": league}, format="json"
    )
    assert response.status_code == 201, response.content
    table = response.json()
    for client in clients[1:]:
        assert client.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    return table, clients


def play_last_card(client, game_id: int, cards: list[str]) -> dict[str, Any]:
    """Post the legal play that lays exactly `cards` (with the calls the rules want said)."""
    view = client.get(f"/api/v1/games/{game_id}").json()
    action = next(a for a in view["legal_actions"] if a["type"] == "play" and sorted(a["cards"]) == sorted(cards))
    action = {**action, "cards": cards}
    response = client.post(f"/api/v1/games/{game_id}/actions", action, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_house_round_won_with_two_extra_jacks_costs_everyone_else_three_times_their_hand(make_player, monkeypatch):
    host = make_player("Host")
    league = host.post("/api/v1/leagues", {"name": "Family", "rules": "house"}, format="json").json()
    table, clients = seated_table(make_player, "house", 3, league["id"])
    # 5H on the 5C starter, then JC and JD laid on the last card: 2 extra jacks -> x3.
    hands = [["5H", "JC", "JD"], ["KH", "QS", "10D", "X1"], ["2C", "AH", "JH"]]
    deal_fixed(monkeypatch, deal("french52", hands, "5C", jokers=3))  # a league table deals fairly only
    game = clients[0].post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()

    play_last_card(clients[0], game["id"], ["5H", "JC", "JD"])

    ledger = RoundResult.objects.get(game_id=game["id"])
    assert (ledger.reason, ledger.multiplier, ledger.winner_id) == ("mau_mau", 3, clients[0].player_id)
    lines = {line.seat: (line.raw_points, line.multiplier, line.points, line.rank) for line in ledger.players.all()}
    # KH 4 + QS 3 + 10D 10 + joker 50 = 67 -> 201; 2C 2 + AH 10 + JH 20 = 32 -> 96
    assert lines == {0: (0, 1, 0, 1), 1: (67, 3, 201, 3), 2: (32, 3, 96, 2)}
    standings = host.get(f"/api/v1/leagues/{league['id']}/standings").json()["standings"]
    assert [(s["player"]["id"], s["points"], s["multiplier_bonus"]) for s in standings] == [
        (clients[0].player_id, 0, 2),
        (clients[2].player_id, 96, 0),
        (clients[1].player_id, 201, 0),
    ]


def test_a_classic_round_ranks_equal_cards_left_by_fewer_points(make_player, monkeypatch):
    table, clients = seated_table(make_player, "classic", 3)
    hands = [["10H"], ["AS", "7C"], ["KD", "QD"]]  # seat 1: 11 + 7 = 18, seat 2: 4 + 3 = 7
    deal_fixed(monkeypatch, deal("skat32", hands, "10C"))  # a fair round (a chosen setup would not count)
    game = clients[0].post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()

    play_last_card(clients[0], game["id"], ["10H"])

    board = clients[1].get(f"/api/v1/tables/{table['id']}/scoreboard").json()
    assert board["rounds"] == 1
    assert [(row["position"], row["player"]["id"], row["wins"], row["points"]) for row in board["players"]] == [
        (1, clients[0].player_id, 1, 0),
        (2, clients[2].player_id, 0, 7),
        (3, clients[1].player_id, 0, 18),
    ]
    ranks = dict(RoundResult.objects.get(game_id=game["id"]).players.values_list("seat", "rank"))
    assert ranks == {0: 1, 2: 2, 1: 3}
    history = clients[1].get("/api/v1/me/history").json()["results"]
    assert [(row["game"], row["rank"], row["cards_left"], row["points"]) for row in history] == [(game["id"], 3, 2, 18)]


def test_a_finished_house_league_refuses_the_next_round(make_player, monkeypatch):
    host = make_player("Host")
    league = host.post(
        "/api/v1/leagues", {"name": "Short", "rules": "house", "options": {"league_limit": 50}}, format="json"
    ).json()
    table, clients = seated_table(make_player, "house", 2, league["id"])
    deal_fixed(monkeypatch, deal("french52", [["5H"], ["X1"]], "5C", 3))  # a league table deals fairly only
    game = clients[0].post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()

    play_last_card(clients[0], game["id"], ["5H"])  # seat 1 keeps the joker: exactly 50 = the limit

    body = host.get(f"/api/v1/leagues/{league['id']}/standings").json()
    assert body["league"]["status"] == "finished"
    assert body["league"]["loser"]["id"] == clients[1].player_id
    assert [(s["points"], s["reached_limit"], s["lost"]) for s in body["standings"]] == [
        (0, False, False),
        (50, True, True),
    ]
    refused = clients[0].post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "league_finished"
    assert refused.json()["error"]["details"]["league"] == league["id"]
    in_german = clients[0].post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json", HTTP_ACCEPT_LANGUAGE="de")
    assert in_german.json()["error"]["message"].startswith("Diese Liga ist beendet")


def test_a_round_cut_by_max_turns_is_recorded_without_a_winner(make_player, monkeypatch):
    clients = [make_player("Ada"), make_player("Bert")]
    table = (
        clients[0]
        .post("/api/v1/tables", {"rules": "classic", "max_players": 2, "options": {"max_turns": 1}}, format="json")
        .json()
    )
    assert clients[1].post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    hands = [["10H", "7D"], ["AS", "7C"]]
    deal_fixed(monkeypatch, deal("skat32", hands, "10C"))  # a fair round (a chosen setup would not count)
    game = clients[0].post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()

    play_last_card(clients[0], game["id"], ["10H"])  # the first turn is the last one allowed

    ledger = RoundResult.objects.get(game_id=game["id"])
    assert (ledger.reason, ledger.winner_id, ledger.multiplier) == ("max_turns", None, 1)
    lines = {line.seat: (line.rank, line.cards_left, line.points, line.won) for line in ledger.players.all()}
    assert lines == {0: (1, 1, 7, False), 1: (2, 2, 18, False)}
    board = clients[1].get(f"/api/v1/tables/{table['id']}/scoreboard").json()
    assert [(row["player"]["id"], row["rounds"], row["wins"]) for row in board["players"]] == [
        (clients[0].player_id, 1, 0),
        (clients[1].player_id, 1, 0),
    ]
