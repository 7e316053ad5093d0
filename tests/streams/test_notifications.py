"""Notifications: who is told what after a committed move, a round start, a join, a long clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
import time_machine

from games.models import Game
from streams.models import Notification
from streams.services import reminder_due, turn_reminder_send
from tests.streams.streams_helpers import rigged_setup

pytestmark = pytest.mark.django_db

ADA = ["KH", "8C", "10S", "AD", "QC"]
BO = ["7C", "8D", "9D", "AS", "10D"]


def _kinds(player_id: int) -> list[str]:
    return list(Notification.objects.filter(player_id=player_id).order_by("id").values_list("kind", flat=True))


def _table(make_player: Callable[..., Any], capture: Any, options: dict[str, Any] | None = None) -> tuple[Any, ...]:
    ada, bo = make_player("Ada"), make_player("Bo")
    with capture(execute=True):
        table = ada.post("/api/v1/tables", {"rules": "classic", "max_players": 2, "options": options or {}},
                         format="json").json()
        assert bo.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    return ada, bo, table


def test_a_join_tells_the_players_already_seated(make_player: Callable[..., Any],
                                                 django_capture_on_commit_callbacks: Any) -> None:
    ada, bo, table = _table(make_player, django_capture_on_commit_callbacks)
    assert _kinds(ada.player_id) == ["player_joined"] and _kinds(bo.player_id) == []
    note = Notification.objects.get(player_id=ada.player_id)
    assert note.data["player"] == {"id": bo.player_id, "name": "Bo", "bot": False}
    assert note.table_id == table["id"]


def test_round_start_and_each_passed_turn_tell_the_player_on_turn(
    make_player: Callable[..., Any], django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, table = _table(make_player, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        game = ada.post(f"/api/v1/tables/{table['id']}/rounds",
                        {"setup": rigged_setup([ADA, BO], "9H", ["QS"])}, format="json").json()
    assert _kinds(ada.player_id) == ["player_joined", "round_started", "your_turn"]
    assert _kinds(bo.player_id) == ["round_started"]
    with django_capture_on_commit_callbacks(execute=True):
        ada.post(f"/api/v1/games/{game['id']}/actions", {"type": "play", "cards": ["KH"]}, format="json")
    assert _kinds(bo.player_id) == ["round_started", "your_turn"]
    turn = Notification.objects.filter(player_id=bo.player_id, kind="your_turn").get()
    assert {k: turn.data[k] for k in ("game", "version", "seat")} == {"game": game["id"], "version": 1, "seat": 1}
    deadline = Game.objects.get(pk=game["id"]).deadline
    assert turn.data["deadline"] == (deadline.isoformat().replace("+00:00", "Z") if deadline else None)
    with django_capture_on_commit_callbacks(execute=True):  # Bo draws QS, which does not fit: Ada again
        bo.post(f"/api/v1/games/{game['id']}/actions", {"type": "draw"}, format="json")
    assert _kinds(ada.player_id)[-1] == "your_turn" and _kinds(bo.player_id)[-1] == "your_turn"
    assert Notification.objects.filter(player_id=bo.player_id, kind="your_turn").count() == 1


def test_round_over_tells_every_player_their_rank(make_player: Callable[..., Any],
                                                  django_capture_on_commit_callbacks: Any) -> None:
    ada, bo, table = _table(make_player, django_capture_on_commit_callbacks)
    game = ada.post(f"/api/v1/tables/{table['id']}/rounds",
                    {"setup": rigged_setup([["KH"], BO], "9H", ["QS"])}, format="json").json()
    with django_capture_on_commit_callbacks(execute=True):
        ada.post(f"/api/v1/games/{game['id']}/actions", {"type": "play", "cards": ["KH"]}, format="json")
    over = {n.player_id: n.data for n in Notification.objects.filter(kind="round_over")}
    assert over[ada.player_id]["rank"] == 1 and over[ada.player_id]["winner"] == 0
    assert over[bo.player_id]["rank"] == 2 and over[bo.player_id]["seat"] == 1
    assert not Notification.objects.filter(kind="your_turn", player_id=bo.player_id).exists()


def test_a_reminder_comes_once_when_the_configured_share_of_a_long_turn_is_used(
    make_player: Callable[..., Any], django_capture_on_commit_callbacks: Any, settings: Any,
) -> None:
    settings.STREAMS_REMINDER_SHARE = 0.75
    settings.STREAMS_REMINDER_MIN_SECONDS = 60
    ada, _bo, table = _table(make_player, django_capture_on_commit_callbacks, {"turn_seconds": 120})
    data = ada.post(f"/api/v1/tables/{table['id']}/rounds",
                    {"setup": rigged_setup([ADA, BO], "9H", ["QS"])}, format="json").json()
    game = Game.objects.get(pk=data["id"])
    assert game.deadline is not None
    due = reminder_due(game)
    assert due == game.deadline - timedelta(seconds=30)
    with time_machine.travel(due - timedelta(seconds=5), tick=False):
        assert turn_reminder_send(game_id=game.pk, version=game.version) is None  # too early
    with time_machine.travel(due + timedelta(seconds=1), tick=False):
        note = turn_reminder_send(game_id=game.pk, version=game.version)
        assert note is not None and note.kind == "deadline_soon" and note.player_id == ada.player_id
        assert note.data["seconds_left"] == 29
        assert turn_reminder_send(game_id=game.pk, version=game.version) is None  # once
        assert turn_reminder_send(game_id=game.pk, version=game.version + 1) is None  # another turn


def test_short_clocks_get_no_reminder(make_player: Callable[..., Any], django_capture_on_commit_callbacks: Any,
                                      settings: Any) -> None:
    settings.STREAMS_REMINDER_MIN_SECONDS = 60
    ada, _bo, table = _table(make_player, django_capture_on_commit_callbacks, {"turn_seconds": 20})
    data = ada.post(f"/api/v1/tables/{table['id']}/rounds",
                    {"setup": rigged_setup([ADA, BO], "9H", ["QS"])}, format="json").json()
    assert reminder_due(Game.objects.get(pk=data["id"])) is None
