"""Migration 0005: stored snapshots take the state's plain field names (``penalized_plays``; ``phase``
without "finished"), and go back to the old shape on reverse."""

from __future__ import annotations

from importlib import import_module
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command

from games.models import Game
from tests.games.api_helpers import act, setup_for

pytestmark = pytest.mark.django_db

migration = import_module("games.migrations.0005_snapshot_fields")


def test_snapshots_of_active_and_finished_rounds_migrate_both_ways(two_people) -> None:  # type: ignore[no-untyped-def]
    hands = [["7H", "8H", "KS"], ["10H", "QS", "KC"]]
    _table, host, _guest, active = two_people("classic", setup=setup_for("classic", hands, "9H"))
    assert act(host, active["id"], {"type": "play", "cards": ["7H"]}).status_code == 200
    _table, host, _guest, finished = two_people("classic", setup=setup_for("classic", [["7H"], ["10H", "QS"]], "9H"))
    assert act(host, finished["id"], {"type": "play", "cards": ["7H"]}).status_code == 200
    now = {game.pk: game.state for game in Game.objects.filter(pk__in=[active["id"], finished["id"]])}
    assert now[finished["id"]]["status"] == "finished" and now[finished["id"]]["phase"] == "play"

    migration.fields_as_before(apps, None)
    before = {game.pk: game.state for game in Game.objects.filter(pk__in=now)}
    assert before[finished["id"]]["phase"] == "finished" and before[active["id"]]["phase"] == "play"
    assert all("charged" in state and "penalized_plays" not in state for state in before.values())

    migration.fields_renamed(apps, None)
    assert {game.pk: game.state for game in Game.objects.filter(pk__in=now)} == now
    out = StringIO()
    call_command("verify_ledger", stdout=out, stderr=StringIO())
    assert "0 with problems" in out.getvalue()
