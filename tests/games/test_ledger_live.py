"""verify_ledger on a live system: games that move while it runs are checked as they were at one
moment, so it reports no difference that is not there."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.test import APIClient

from tests.games.api_helpers import Table

ON_POSTGRES = "postgresql" in settings.DATABASES["default"]["ENGINE"]
pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: a mover on its own connection while the "
                       "command reads (the SQLite test database is one in-memory connection)"),
    pytest.mark.django_db(transaction=True),
]


def _bot_rounds(make_player: Callable[..., APIClient], make_table: Callable[..., Table],
                count: int) -> list[tuple[APIClient, Table, dict[str, Any]]]:
    rounds = []
    for number in range(count):
        person = make_player(f"Ada {number}")
        table = make_table("classic", host=person)
        assert table.bot("basic").status_code == 201
        answer = table.start()
        assert answer.status_code == 201, answer.content
        rounds.append((person, table, answer.json()))
    return rounds


def test_verify_ledger_reports_no_difference_while_games_move(make_player: Callable[..., APIClient],
                                                              make_table: Callable[..., Table], settings: Any) -> None:
    # Throttles have tests of their own; here a mover writes as fast as it can.
    settings.MAUMAU_SIGNUP_RATE = settings.MAUMAU_WRITE_RATE = ""
    rounds = _bot_rounds(make_player, make_table, 6)
    stop, moved, failures = threading.Event(), [0], []

    def mover() -> None:
        """Moves in every round by turns (a new round where one ended) until told to stop."""
        views = {table.id: (person, table, game) for person, table, game in rounds}
        try:
            while not stop.is_set():
                for table_id, (person, table, game) in list(views.items()):
                    if game["status"] != "active":
                        answer = table.start()
                    else:
                        answer = person.post(f"/api/v1/games/{game['id']}/actions", game["legal_actions"][0],
                                             format="json")
                    if answer.status_code not in (200, 201):
                        failures.append(answer.content)
                        return
                    views[table_id] = (person, table, answer.json())
                    moved[0] += 1
        finally:
            connection.close()

    thread = threading.Thread(target=mover)
    thread.start()
    runs, problems = 0, []
    try:
        end = time.monotonic() + 6
        while time.monotonic() < end and thread.is_alive():
            err = StringIO()
            try:
                call_command("verify_ledger", stdout=StringIO(), stderr=err)
            except CommandError:
                problems.append(err.getvalue())
            runs += 1
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not failures, failures
    assert moved[0] >= 20 and runs >= 5, (moved[0], runs)
    assert not problems, f"{len(problems)} of {runs} runs found differences while {moved[0]} moves were made:\n" \
                         f"{problems[0]}"
