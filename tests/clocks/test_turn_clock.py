"""The turn clock with a controlled clock (time-machine): the game row holds it, the sweep and the
request path resolve a passed deadline once, never early, and a move sends nothing to the broker."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from celery import Celery
from celery.app.task import Task
from django.db import connection

from games import engine
from games.ledger import ledger_verify
from games.models import Game, Move
from games.selectors import game_view
from play import clocks, services
from tests.clocks.clock_helpers import T0, clock_moves, fresh, person_moves, round_with_people, seat_of_turn
from tests.games.api_helpers import setup_for

pytestmark = pytest.mark.django_db




@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Every Celery message this process would publish (any task, any way), recorded instead."""
    calls: list[tuple[str, Any]] = []
    monkeypatch.setattr(Task, "apply_async", lambda self, *a, **kw: calls.append((self.name, kw)))
    monkeypatch.setattr(Celery, "send_task", lambda self, name, *a, **kw: calls.append((name, kw)))
    return calls


def test_the_game_row_holds_the_deadline_of_the_turn(clock: Any) -> None:
    game, _ = round_with_people(options={"turn_seconds": 30})
    assert game.deadline == T0 + timedelta(seconds=30)
    assert game.hermann_deadline is None


def test_an_early_timeout_does_nothing(clock: Any) -> None:
    game, _ = round_with_people(options={"turn_seconds": 30})
    clock.shift(29)
    assert clocks.deadlines_sweep() == 0
    assert clocks.clocks_resolve_due(game_id=game.pk) == 0
    assert fresh(game).version == game.version
    assert clock_moves(game) == []


def test_a_timeout_resolves_the_turn_and_the_ledger_records_the_clock(clock: Any) -> None:
    game, _ = round_with_people(options={"turn_seconds": 30, "timeout_policy": "penalty"})
    stalled = game.turn
    clock.shift(30)
    assert clocks.deadlines_sweep() == 1
    (move,) = clock_moves(game)
    assert (move.actor, move.seat, move.action) == ("clock", stalled, {"type": "timeout"})
    game = fresh(game)
    assert game.version == move.seq and game.turn != stalled
    assert game.deadline == T0 + timedelta(seconds=60), "the next player's clock starts at the timeout"
    assert ledger_verify(game) == []


def test_a_move_in_time_restarts_the_clock_and_the_old_deadline_does_nothing(clock: Any) -> None:
    game, players = round_with_people(options={"turn_seconds": 30})
    clock.shift(10)
    game = person_moves(game, players)  # the player moved in time: the next turn has its own deadline
    assert game.deadline == T0 + timedelta(seconds=40)
    clock.shift(25)  # past the first deadline, not the new one
    assert clocks.deadlines_sweep() == 0
    assert clock_moves(game) == []
    assert fresh(game).version == game.version


def test_a_timeout_found_by_the_sweep_and_by_requests_applies_once(clock: Any) -> None:
    game, _ = round_with_people(options={"turn_seconds": 30})
    clock.shift(31)
    outcomes = [clocks.deadlines_sweep(), clocks.clocks_resolve_due(game_id=game.pk), clocks.deadlines_sweep()]
    assert outcomes == [1, 0, 0]
    assert len(clock_moves(game)) == 1


def test_a_timeout_of_a_finished_or_missing_game_does_nothing(clock: Any) -> None:
    game, _ = round_with_people(options={"turn_seconds": 30})
    Game.objects.filter(pk=game.pk).update(status="finished")
    clock.shift(31)
    assert clocks.clocks_resolve_due(game_id=game.pk) == 0
    assert clocks.clocks_resolve_due(game_id=10**9) == 0
    assert clocks.deadlines_sweep() == 0
    assert clock_moves(game) == []


def test_a_table_without_turn_limit_has_no_deadline_and_sends_no_task(
    clock: Any, sent: list, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game, _ = round_with_people(options={"turn_seconds": 0})
    assert game.deadline is None and sent == []
    clock.shift(10**6)
    assert clocks.deadlines_sweep() == 0


@pytest.mark.parametrize(
    ("policy", "expect"),
    [
        ("autoplay", lambda events, seat: any(e["type"] in ("played", "drew") and e.get("seat") == seat
                                              for e in events)),
        ("penalty", lambda events, seat: any(e["type"] == "drew" and e["seat"] == seat and e["reason"] == "timeout"
                                             for e in events)),
        ("skip", lambda events, seat: {"type": "passed", "seat": seat} in events),
    ],
)
def test_the_tables_policy_resolves_the_stalled_turn(clock: Any, policy: str, expect: Any) -> None:
    game, _ = round_with_people("classic", options={"turn_seconds": 5, "timeout_policy": policy})
    stalled = game.turn
    hand_before = len(game.state["hands"][stalled])
    clock.shift(5)
    assert clocks.deadlines_sweep() == 1
    (move,) = clock_moves(game)
    assert move.events[0] == {"type": "timeout", "seat": stalled, "policy": policy}
    assert expect(move.events, stalled), move.events
    game = fresh(game)
    assert game.turn != stalled, "the turn passed"
    if policy == "penalty":
        assert len(game.state["hands"][stalled]) == hand_before + 1
    assert ledger_verify(game) == []


def test_house_penalty_is_one_card_after_five_seconds(clock: Any) -> None:
    game, _ = round_with_people("house", people=3)
    assert game.deadline == T0 + timedelta(seconds=5), "house: 'mehr als 5 sec.'"
    stalled = game.turn
    clock.shift(5)
    assert clocks.deadlines_sweep() == 1
    (move,) = clock_moves(game)
    drawn = [e for e in move.events if e["type"] == "drew"]
    assert [(e["seat"], e["count"], e["reason"]) for e in drawn] == [(stalled, 1, "timeout")]


def house_round_with_hermann_race() -> Game:
    hands = [["KD", "3C", "4C", "5C", "6C", "3H", "4H", "5H"],
             ["3S", "4S", "5S", "6S", "2C", "2H", "2S", "7C"],
             ["8C", "9C", "10C", "8H", "9H", "10H", "2D", "3D"]]
    game, players = round_with_people("house", people=3, options={"turn_seconds": 60},
                                      setup=setup_for("house", hands, "9D", first=0))
    services.move_submit(game_id=game.pk, actor="player", player=players[0],
                         action={"type": "play", "cards": ["KD"], "say": ["hermann"]})
    return fresh(game)


def test_the_hermann_race_closes_after_hermann_seconds(clock: Any) -> None:
    game = house_round_with_hermann_race()
    assert game.hermann_deadline == T0 + timedelta(seconds=10)
    clock.shift(9)
    assert clocks.deadlines_sweep() == 0
    clock.shift(1)
    assert clocks.deadlines_sweep() == 1
    assert clocks.deadlines_sweep() == 0
    (move,) = clock_moves(game)
    assert move.action == {"type": "hermann_timeout"}
    assert move.events[0] == {"type": "hermann_closed", "losers": [1, 2]}
    game = fresh(game)
    assert game.hermann_deadline is None and not game.engine_state().hermann_open
    assert ledger_verify(game) == []


def test_a_request_closes_a_passed_hermann_race(clock: Any) -> None:
    game = house_round_with_hermann_race()
    clock.shift(10)
    assert clocks.clocks_resolve_due(game_id=game.pk) == 1
    assert [m.action["type"] for m in clock_moves(game)] == ["hermann_timeout"]


def test_the_sweep_resolves_every_passed_deadline_and_leaves_the_others(clock: Any) -> None:
    games = [round_with_people(options={"turn_seconds": 30})[0] for _ in range(3)]
    later, _ = round_with_people(options={"turn_seconds": 300})
    clock.shift(31)
    assert clocks.deadlines_sweep() == 3
    assert [len(clock_moves(g)) for g in games] == [1, 1, 1]
    assert clock_moves(later) == [], "a deadline that has not passed is left alone"
    assert clocks.deadlines_sweep() == 0, "nothing twice"


def test_a_move_and_a_round_start_send_nothing_to_the_broker(
    clock: Any, sent: list, django_capture_on_commit_callbacks: Any
) -> None:
    """A table of persons with a turn clock: the deadline is the game row's, the sweep resolves it."""
    with django_capture_on_commit_callbacks(execute=True):
        game, players = round_with_people(options={"turn_seconds": 120})
    clock.shift(3)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.move_submit(game_id=game.pk, actor="player", player=seat_of_turn(game).player,
                             action=engine.legal_actions(game.engine_state(), game.turn)[0])
        person_moves(game, players)
    assert callbacks, "the moves' on-commit work (notifications, wake-ups) ran"
    game = fresh(game)
    assert game.version >= 2 and game.deadline is not None and game.reminder_at is not None
    assert sent == []


def test_a_round_in_a_house_race_sends_nothing_to_the_broker(
    clock: Any, sent: list, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = house_round_with_hermann_race()
    assert game.hermann_deadline is not None
    assert sent == []


def test_a_long_deadline_is_the_sweeps_like_any_other(clock: Any) -> None:
    game, _ = round_with_people(options={"turn_seconds": 2 * 86400})  # correspondence play
    clock.shift(2 * 86400 - 1)
    assert clocks.deadlines_sweep() == 0
    clock.shift(1)
    assert clocks.deadlines_sweep() == 1
    assert len(clock_moves(game)) == 1


def test_a_request_that_finds_a_passed_deadline_resolves_it_before_answering(clock: Any, make_player: Any) -> None:
    host, guest = make_player("Host"), make_player("Guest")
    table = host.post("/api/v1/tables", {"rules": "classic", "options": {"turn_seconds": 20}}, format="json").json()
    assert guest.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    game = host.post(f"/api/v1/tables/{table['id']}/rounds", {"seed": 3}, format="json").json()
    assert game["deadline"] == "2030-01-01T12:00:20Z"
    clock.shift(21)
    view = guest.get(f"/api/v1/games/{game['id']}").json()
    assert view["version"] == game["version"] + 1
    assert view["deadline"] == "2030-01-01T12:00:41Z"
    assert [m.actor for m in Move.objects.filter(game_id=game["id"])] == ["clock"]


def test_a_late_move_comes_after_the_timeout_it_missed(clock: Any, make_player: Any) -> None:
    game, players = round_with_people(options={"turn_seconds": 20, "timeout_policy": "penalty"})
    stalled = seat_of_turn(game)
    clock.shift(25)
    with pytest.raises(services.ConflictError) as refused:
        services.move_submit(game_id=game.pk, actor="player", player=stalled.player, action={"type": "draw"})
    assert refused.value.code == "not_your_turn"
    assert [m.actor for m in Move.objects.filter(game=game)] == ["clock"]


def test_a_seat_that_times_out_three_turns_in_a_row_is_taken_over_by_a_bot(clock: Any) -> None:
    game, players = round_with_people(options={"turn_seconds": 10, "timeout_policy": "skip"})
    sleeper = seat_of_turn(game)
    sleeper_seat = game.turn
    for round_trip in range(3):
        clock.shift(10)
        assert clocks.deadlines_sweep() == 1
        sleeper.refresh_from_db()
        assert sleeper.consecutive_timeouts == round_trip + 1
        game = fresh(game)
        if round_trip < 2:
            assert not sleeper.bot_controlled
            game = person_moves(game, players)  # the other person plays in time
    assert sleeper.bot_controlled
    game = person_moves(game, players)
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    assert moves[-1].actor == "bot" and moves[-1].seat == sleeper_seat, "the bot plays the seat at once"
    game = fresh(game)
    seats = list(sleeper.table.seats.all())
    shown = game_view(game, game.engine_state(), seats, None)
    assert shown["players"][sleeper_seat]["bot"] is True, "the view says the seat is bot-controlled"


def test_an_own_move_breaks_the_timeout_streak(clock: Any) -> None:
    game, players = round_with_people(options={"turn_seconds": 10, "timeout_policy": "skip"})
    sleeper = seat_of_turn(game)
    for step in ("timeout", "timeout", "own", "timeout"):
        if step == "own":
            game = person_moves(game, players)
        else:
            clock.shift(10)
            assert clocks.deadlines_sweep() == 1
        game = person_moves(fresh(game), players)  # the other person plays in time
    sleeper.refresh_from_db()
    assert (sleeper.consecutive_timeouts, sleeper.bot_controlled) == (1, False)


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_sweeps_racing_on_one_timeout_apply_it_once() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks and real concurrent connections")
    game, _ = round_with_people(options={"turn_seconds": 1})
    Game.objects.filter(pk=game.pk).update(deadline=game.deadline - timedelta(seconds=5))
    barrier = threading.Barrier(4)
    outcomes: list[int] = []

    def worker() -> None:
        try:
            barrier.wait()
            outcomes.append(clocks.deadlines_sweep())
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == [0, 0, 0, 1]
    assert len(clock_moves(game)) == 1


def test_a_call_said_by_another_seat_gives_the_player_on_turn_no_more_time(clock: Any) -> None:
    game = house_round_with_hermann_race()  # seat 1 is on turn; seats 1 and 2 still owe "Hermann"
    deadline = game.deadline
    clock.shift(5)  # within hermann_seconds (10) and the turn (60)
    players = [seat.player for seat in sorted(game.table.seats.all(), key=lambda s: s.position)]
    services.move_submit(game_id=game.pk, actor="player", player=players[2],
                         action={"type": "say", "word": "hermann"})
    game = fresh(game)
    assert game.version == 2 and game.turn == 1
    assert game.deadline == deadline, "a turn is one time budget: another seat's call does not restart it"


def test_a_person_a_bot_stood_in_for_takes_the_seat_back_by_joining(clock: Any) -> None:
    game, players = round_with_people(options={"turn_seconds": 10, "timeout_policy": "skip"})
    sleeper = seat_of_turn(game)
    for round_trip in range(3):
        clock.shift(10)
        assert clocks.deadlines_sweep() == 1
        if round_trip < 2:
            game = person_moves(fresh(game), players)
    sleeper.refresh_from_db()
    assert sleeper.bot_controlled
    services.table_join(table_id=sleeper.table_id, player=sleeper.player)
    sleeper.refresh_from_db()
    assert (sleeper.bot_controlled, sleeper.consecutive_timeouts, sleeper.left) == (False, 0, False)
