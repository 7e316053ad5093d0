"""verify_ledger replays every game; a changed ledger row or snapshot is detected."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.models import Game, Move
from tests.games.api_helpers import act, setup_for

pytestmark = pytest.mark.django_db

HANDS = [["7H", "8H", "KS", "AC", "9D"], ["10H", "QS", "KC", "AD", "7C"]]


@pytest.fixture
def played(two_people):  # type: ignore[no-untyped-def]
    _table, host, guest, game = two_people("classic", setup=setup_for("classic", HANDS, "9H"))
    assert act(host, game["id"], {"type": "play", "cards": ["7H"]}).status_code == 200
    assert act(guest, game["id"], {"type": "draw"}).status_code == 200
    assert act(host, game["id"], {"type": "play", "cards": ["8H"]}).status_code == 200
    return game["id"]


def verify() -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("verify_ledger", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_an_untouched_ledger_verifies(played: int) -> None:
    out, err = verify()
    assert "1 games checked, 0 with problems" in out and err == ""


@pytest.mark.ledger_tampered
def test_a_tampered_ledger_row_is_detected(played: int) -> None:
    row = Move.objects.get(game_id=played, seq=2)
    Move.objects.filter(pk=row.pk).update(events=[{"type": "drew", "seat": 1, "count": 2, "cards": ["AS", "AH"]}])
    with pytest.raises(CommandError):
        verify()
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_ledger", played, stderr=err)
    assert "seq 2: hash does not match" in err.getvalue()


@pytest.mark.ledger_tampered
def test_a_tampered_snapshot_is_detected(played: int) -> None:
    game = Game.objects.get(pk=played)
    state = game.state
    state["hands"][0], state["hands"][1] = state["hands"][1], state["hands"][0]
    Game.objects.filter(pk=played).update(state=state)
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_ledger", stderr=err)
    assert "snapshot differs" in err.getvalue()


@pytest.mark.ledger_tampered
def test_a_removed_row_breaks_the_chain(played: int) -> None:
    Move.objects.filter(game_id=played, seq=2)._raw_delete(Move.objects.db)  # bypass append-only guard
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_ledger", stderr=err)
    assert "expected seq 2" in err.getvalue()


def test_ledger_rows_refuse_updates_and_deletes_through_the_orm(played: int) -> None:
    row = Move.objects.get(game_id=played, seq=1)
    with pytest.raises(ValueError):
        row.save()
    with pytest.raises(ValueError):
        row.delete()


def test_snapshots_leave_the_rules_to_the_game_row_and_old_ones_are_migrated(played: int) -> None:
    """The rules are stored once per round (Game.rules), not in every snapshot; the data migration
    takes them out of snapshots written before, and verify_ledger accepts the result."""
    from importlib import import_module

    from django.apps import apps

    game = Game.objects.get(pk=played)
    assert "rules" not in game.state
    assert game.engine_state().rules.to_json() == game.rules
    migration = import_module("games.migrations.0002_snapshots_without_rules")
    migration.rules_in(apps, None)  # as snapshots were written before
    assert Game.objects.get(pk=played).state == {**game.state, "rules": game.rules}
    assert Game.objects.get(pk=played).engine_state() == game.engine_state()  # still readable
    migration.rules_out(apps, None)
    assert Game.objects.get(pk=played).state == game.state
    out, _err = verify()
    assert "0 with problems" in out
