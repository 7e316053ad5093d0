"""Notifications: who is told what after a committed move, a round start, a join, a long clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from games.models import Game
from play import clocks
from streams.models import Notification
from streams.services import reminder_at, turn_reminder_send
from tests.clocks.clock_helpers import T0
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


def _reminders(game_id: int) -> list[Notification]:
    return list(Notification.objects.filter(game_id=game_id, kind="deadline_soon").order_by("id"))


@pytest.fixture
def long_turns(settings: Any, clock: Any) -> Any:
    """A reminder once 75 % of a turn of at least 60 s is used; frozen time (``shift`` moves it)."""
    settings.STREAMS_REMINDER_SHARE = 0.75
    settings.STREAMS_REMINDER_MIN_SECONDS = 60
    return clock


def _long_round(make_player: Callable[..., Any], capture: Any, stock_top: list[str],
                ada_hand: list[str] = ADA) -> tuple[Any, Any, Game]:
    """Ada on turn (seat 0) against Bo, 120 s a turn: the reminder is due 90 s into a turn."""
    ada, bo, table = _table(make_player, capture, {"turn_seconds": 120, "timeout_policy": "penalty"})
    data = ada.post(f"/api/v1/tables/{table['id']}/rounds",
                    {"setup": rigged_setup([ada_hand, BO], "9H", stock_top)}, format="json").json()
    return ada, bo, Game.objects.get(pk=data["id"])


def test_the_game_row_keeps_the_reminder_time_with_the_turns_deadline(
    make_player: Callable[..., Any], django_capture_on_commit_callbacks: Any, long_turns: Any,
) -> None:
    ada, bo, game = _long_round(make_player, django_capture_on_commit_callbacks, ["QS"])
    assert game.deadline == T0 + timedelta(seconds=120)
    assert game.reminder_at == T0 + timedelta(seconds=90)
    long_turns.shift(10)
    ada.post(f"/api/v1/games/{game.pk}/actions", {"type": "play", "cards": ["KH"]}, format="json")
    game.refresh_from_db()
    assert (game.turn, game.deadline, game.reminder_at) == (1, T0 + timedelta(seconds=130), T0 + timedelta(seconds=100))
    Game.objects.filter(pk=game.pk).update(reminder_at=None)  # as the sweep leaves it once it told Bo
    long_turns.shift(1)
    bo.post(f"/api/v1/games/{game.pk}/actions", {"type": "draw"}, format="json")  # QS does not fit: Ada again
    game.refresh_from_db()
    assert (game.turn, game.reminder_at) == (0, T0 + timedelta(seconds=101)), "a new turn, a new reminder"
    ada.post(f"/api/v1/games/{game.pk}/actions", {"type": "resign"}, format="json")
    game.refresh_from_db()
    assert game.status == "finished" and game.deadline is None and game.reminder_at is None


def test_the_sweep_sends_the_reminder_once_when_the_configured_share_of_a_long_turn_is_used(
    make_player: Callable[..., Any], django_capture_on_commit_callbacks: Any, long_turns: Any,
) -> None:
    ada, _bo, game = _long_round(make_player, django_capture_on_commit_callbacks, ["QS"])
    long_turns.shift(85)
    clocks.deadlines_sweep()
    assert _reminders(game.pk) == [], "too early"
    long_turns.shift(6)  # 91 s into the turn
    clocks.deadlines_sweep()
    (note,) = _reminders(game.pk)
    assert note.player_id == ada.player_id
    assert note.data == {"game": game.pk, "version": 0, "seat": 0, "deadline": "2030-01-01T12:02:00Z",
                         "seconds_left": 29}
    assert Game.objects.get(pk=game.pk).reminder_at is None, "the sweep cleared it"
    Game.objects.filter(pk=game.pk).update(reminder_at=T0)  # as if two sweeps had raced
    long_turns.shift(1)
    clocks.deadlines_sweep()
    assert len(_reminders(game.pk)) == 1, "once a turn"
    assert turn_reminder_send(game_id=game.pk) is None


def test_a_card_drawn_in_the_same_turn_does_not_lose_the_reminder(
    make_player: Callable[..., Any], django_capture_on_commit_callbacks: Any, long_turns: Any,
) -> None:
    ada, _bo, game = _long_round(make_player, django_capture_on_commit_callbacks, ["9S"],
                                 ada_hand=["8C", "10S", "AD", "QC", "KS"])  # nothing fits 9H: Ada draws
    long_turns.shift(30)
    answer = ada.post(f"/api/v1/games/{game.pk}/actions", {"type": "draw"}, format="json")
    assert answer.status_code == 200, answer.json()
    game.refresh_from_db()
    assert (game.version, game.turn) == (1, 0), "9S fits: Ada may still play it, in the same turn"
    long_turns.shift(61)
    clocks.deadlines_sweep()
    (note,) = _reminders(game.pk)
    assert (note.player_id, note.data["version"], note.data["seconds_left"]) == (ada.player_id, 1, 29)
    clocks.deadlines_sweep()
    assert len(_reminders(game.pk)) == 1


def test_no_reminder_for_a_turn_that_has_passed(
    make_player: Callable[..., Any], django_capture_on_commit_callbacks: Any, long_turns: Any,
) -> None:
    ada, bo, game = _long_round(make_player, django_capture_on_commit_callbacks, ["QS"])
    long_turns.shift(80)
    ada.post(f"/api/v1/games/{game.pk}/actions", {"type": "play", "cards": ["KH"]}, format="json")  # in time
    long_turns.shift(11)  # Ada's reminder would be due; Bo's turn is 11 s old
    clocks.deadlines_sweep()
    assert _reminders(game.pk) == []
    long_turns.shift(130)  # nobody swept while Bo's reminder and deadline passed
    assert clocks.deadlines_sweep() == 1, "the timeout first"
    assert _reminders(game.pk) == [], "Bo's turn is over: no reminder for it"
    assert Game.objects.get(pk=game.pk).turn == 0 and Game.objects.get(pk=game.pk).reminder_at is not None


def test_short_clocks_get_no_reminder(make_player: Callable[..., Any], django_capture_on_commit_callbacks: Any,
                                      settings: Any) -> None:
    settings.STREAMS_REMINDER_MIN_SECONDS = 60
    ada, _bo, table = _table(make_player, django_capture_on_commit_callbacks, {"turn_seconds": 20})
    data = ada.post(f"/api/v1/tables/{table['id']}/rounds",
                    {"setup": rigged_setup([ADA, BO], "9H", ["QS"])}, format="json").json()
    game = Game.objects.get(pk=data["id"])
    assert game.deadline is not None and game.reminder_at is None
    assert reminder_at(deadline=game.deadline, turn_seconds=20) is None
