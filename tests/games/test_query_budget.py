"""A move costs the same number of queries early and late in a round (no per-move growth)."""

from __future__ import annotations

import contextlib

import pytest
from django.db import connection

from tests.games.api_helpers import act, setup_for, view

pytestmark = pytest.mark.django_db

#: A move with an Idempotency-Key: token+user+player, SAVEPOINT, the key's look-up (on PostgreSQL in
#: one statement with its advisory try-lock), game FOR UPDATE, its seats+players (two statements, one
#: round trip on PostgreSQL; the players tell that nobody here has a webhook, so there is no webhook
#: look-up), the move's writes (INSERT move, UPDATE game, INSERT your_turn notification, [PostgreSQL:
#: pg_notify of the wake-ups]: one statement on PostgreSQL, play.writes), INSERT the answer for the
#: key (the API's), RELEASE. Without a key: two fewer (the look-up and the answer).
MOVE_QUERIES = 8 if connection.vendor == "postgresql" else 10


def slow_choice(legal: list[dict]) -> dict:
    """Draw and keep whenever allowed, so the round runs long; play only when forced."""
    for kind in ("pass", "draw"):
        for action in legal:
            if action["type"] == kind:
                return action
    return next(a for a in legal if a["type"] == "play")


def test_a_move_costs_a_fixed_number_of_queries_after_5_and_after_200_moves(  # type: ignore[no-untyped-def]
    two_people, django_assert_num_queries
) -> None:
    """Move 6 goes without an Idempotency-Key: two queries fewer."""
    _table, host, guest, game = two_people("tavern", seed=5)
    clients = {0: host, 1: guest}
    measured = []
    for _ in range(400):
        state = view(host, game["id"])
        assert state["status"] == "active", "the round ended too early for this test"
        version, seat = state["version"], state["turn"]
        legal = view(clients[seat], game["id"])["legal_actions"]
        action = {**slow_choice(legal), "expected_version": version}
        keyed = version != 6
        queries = MOVE_QUERIES if keyed else MOVE_QUERIES - 2
        budget = django_assert_num_queries(queries) if version in (5, 6, 200) else contextlib.nullcontext()
        with budget:
            key = {"HTTP_IDEMPOTENCY_KEY": f"m{version}"} if keyed else {}
            response = act(clients[seat], game["id"], action, **key)
        assert response.status_code == 200, response.json()
        if version in (5, 6, 200):
            measured.append(version)
        if version == 200:
            break
    assert measured == [5, 6, 200]


#: Round start (the ORM: a round starts every few dozen moves): token+user+player, SAVEPOINT, the
#: table FOR UPDATE, whether a round runs, its seats, INSERT game, UPDATE table, RELEASE, then the
#: answer's read of the game with its seats. (The round_started notifications follow on commit,
#: which a test transaction never reaches.)
ROUND_START_QUERIES = 9
#: The move that ends a round: token, SAVEPOINT, game FOR UPDATE, its seats, the move's writes (ledger
#: row, game: one statement on PostgreSQL), the table read for its league (cached for the
#: notifications), the result looked for (a rated round's ratings lock takes its place), then the
#: table set open, the round's result, its player lines (the move knows the seats: no read) and the
#: round_over notifications with the wake-up (one statement on PostgreSQL, the lines taking the
#: result's id from its RETURNING; four on SQLite), RELEASE.
ROUND_END_QUERIES = 9 if connection.vendor == "postgresql" else 13


def test_a_round_start_and_a_round_end_cost_a_fixed_number_of_queries(  # type: ignore[no-untyped-def]
    two_people, django_assert_num_queries
) -> None:
    setup = setup_for("classic", [["7H", "KH"], ["8C", "KD"]], "9H")
    table, host, guest, game = two_people("classic", setup=setup)
    for _round in range(2):
        assert act(host, game["id"], {"type": "play", "cards": ["7H"]}).status_code == 200
        while (state := view(guest, game["id"]))["turn"] == 1:  # draw, then keep it (or pass)
            assert act(guest, game["id"], slow_choice(state["legal_actions"])).status_code == 200
        with django_assert_num_queries(ROUND_END_QUERIES):
            assert act(host, game["id"], {"type": "play", "cards": ["KH"]}).status_code == 200
        assert view(host, game["id"])["status"] == "finished"
        with django_assert_num_queries(ROUND_START_QUERIES):
            response = table.start(setup=setup)
        assert response.status_code == 201, response.content
        game = response.json()
