"""Fixtures for API tests: tables with people and bots, two-person rounds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.ledger import ledger_verify
from games.models import Game
from tests.games.api_helpers import Table


@pytest.fixture(autouse=True)
def every_ledger_verifies(request: pytest.FixtureRequest) -> Any:
    """After each test, every game it created replays to its snapshot with an intact hash chain
    (tests that tamper on purpose are marked ``ledger_tampered``)."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None or request.node.get_closest_marker("ledger_tampered"):
        yield
        return
    request.getfixturevalue("transactional_db" if marker.kwargs.get("transaction") else "db")
    yield
    problems = {game.pk: found for game in Game.objects.all() if (found := ledger_verify(game))}
    assert not problems, f"verify_ledger finds problems: {problems}"


@pytest.fixture
def make_table(make_player: Callable[..., APIClient]) -> Callable[..., Table]:
    def make(rules: str = "classic", host: APIClient | None = None, **body: Any) -> Table:
        host = host or make_player("Host")
        response = host.post("/api/v1/tables", {"rules": rules, **body}, format="json")
        assert response.status_code == 201, response.content
        return Table(host, response.json())

    return make


@pytest.fixture
def two_people(make_player: Callable[..., APIClient], make_table: Callable[..., Table]) -> Callable[..., Any]:
    """A table with two people (host = seat 0, guest = seat 1) and a started round."""

    def start(rules: str = "classic", options: dict[str, Any] | None = None, **round_body: Any) -> Any:
        table = make_table(rules, options=options or {})
        guest = make_player("Guest")
        assert table.join(guest).status_code == 200
        response = table.start(**round_body)
        assert response.status_code == 201, response.content
        return table, table.host, guest, response.json()

    return start
