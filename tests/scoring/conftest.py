"""Fixtures for the scoring tests (helpers in scoring_helpers.py)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scoring_helpers beside this file

from scoring_helpers import finish_game, table_for  # noqa: E402

from games.models import League, Player, Table  # noqa: E402
from play.writes import round_recorded  # noqa: E402
from scoring.models import RoundResult  # noqa: E402
from scoring.services import league_create  # noqa: E402

_names = itertools.count(1)


@pytest.fixture
def players(db: None) -> Callable[[int], list[Player]]:
    def make(count: int) -> list[Player]:
        return [Player.objects.create(name=f"P{next(_names):03d}") for _ in range(count)]

    return make


@pytest.fixture
def league_of(db: None) -> Callable[..., League]:
    def make(rules: str = "house", **options: Any) -> League:
        return league_create(name=f"League {rules}", rules=rules, options=options)

    return make


@pytest.fixture
def make_table(db: None) -> Callable[..., Table]:
    return table_for


@pytest.fixture
def finish_round(db: None) -> Callable[[Table, dict[str, Any]], RoundResult]:
    def finish(table: Table, result: dict[str, Any]) -> RoundResult:
        return round_recorded(game=finish_game(table, result))

    return finish
