"""Whatever JSON a client sends as an action, the answer is never a 500 and errors keep their shape."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.games.api_helpers import setup_for

pytestmark = pytest.mark.django_db

CARDS = ["7H", "8H", "KS", "X1", "10D", "ZZ", "", "7", "JS"]
LONE_SURROGATES = st.sampled_from(["\ud800", "a\udfff", "\udbff\udbff"])  # sent as \u escapes: valid JSON
texts = st.text(max_size=8) | LONE_SURROGATES
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**20) | st.floats(allow_nan=False) | st.sampled_from(CARDS)
    | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=10,
)
actions = st.one_of(
    values,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["play", "draw", "pass", "say", "timeout", "hermann_timeout", "x", 3])},
        optional={"cards": values | st.lists(st.sampled_from(CARDS), max_size=3), "wish": values, "as": values,
                  "target": values, "say": values, "word": values, "expected_version": values, "seat": values},
    ),
)
#: Bodies as sent: the actions above, and actions nested deeper than any parser step should take.
bodies = actions.map(json.dumps) | st.integers(33, 3000).map(
    lambda depth: '{"type": "draw", "cards": ' + "[" * depth + "]" * depth + "}")


@pytest.fixture
def house_round(two_people):  # type: ignore[no-untyped-def]
    """One round for all examples (fixtures are set up once per test, not per example)."""
    return two_people("house", setup=setup_for("house", [["7H", "8H", "KS", "X1"], ["10H", "QS", "KC", "AD"]], "9H"))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=bodies)
def test_any_action_body_gets_an_answer_not_a_500(house_round, body) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = house_round
    response = host.post(f"/api/v1/games/{game['id']}/actions", data=body,
                         content_type="application/json")
    assert response.status_code in (200, 400, 409, 422), (body[:200], response.status_code)
    if response.status_code != 200:
        error = response.json()["error"]
        assert set(error) == {"code", "message", "details"} and error["code"], body
