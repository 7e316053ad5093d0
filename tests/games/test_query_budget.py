"""A move costs the same number of queries early and late in a round (no per-move growth)."""

from __future__ import annotations

import contextlib

import pytest
from django.db import connection

from tests.games.api_helpers import act, view

pytestmark = pytest.mark.django_db

#: token+user+player, SAVEPOINT, [PostgreSQL: advisory try-lock on the key], key lookup, game FOR
#: UPDATE with seats+players (one statement on PostgreSQL when nobody holds the lock, two on SQLite;
#: the seats tell that nobody here has a webhook, so there is no webhook look-up), the writes (INSERT
#: move, UPDATE game, INSERT your_turn notification, [PostgreSQL: pg_notify of the wake-ups]: one
#: statement on PostgreSQL, games.sql.Together), INSERT idempotency record, RELEASE.
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
    _table, host, guest, game = two_people("tavern", seed=5)
    clients = {0: host, 1: guest}
    measured = []
    for _ in range(400):
        state = view(host, game["id"])
        assert state["status"] == "active", "the round ended too early for this test"
        version, seat = state["version"], state["turn"]
        legal = view(clients[seat], game["id"])["legal_actions"]
        action = {**slow_choice(legal), "expected_version": version}
        budget = django_assert_num_queries(MOVE_QUERIES) if version in (5, 200) else contextlib.nullcontext()
        with budget:
            response = act(clients[seat], game["id"], action, HTTP_IDEMPOTENCY_KEY=f"m{version}")
        assert response.status_code == 200, response.json()
        if version in (5, 200):
            measured.append(version)
        if version == 200:
            break
    assert measured == [5, 200]
