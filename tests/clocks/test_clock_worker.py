"""Integration: a real Celery worker and beat on Redis resolve stalled turns (the sweep), and a
worker killed with -9 loses none of them: the clocks are the game rows, not messages.

Runs only on PostgreSQL + Redis (CI's first pass, ``.ci/run``): the worker is a separate process
that must see the rows this test commits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from games.ledger import ledger_verify
from games.models import Game, Move
from tests.clocks.celery_processes import CeleryProcesses, integration_skip_reason
from tests.clocks.clock_helpers import round_with_people

_skip = integration_skip_reason()
pytestmark = [
    pytest.mark.skipif(_skip is not None, reason=_skip or ""),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def celery(django_db_setup: None) -> Iterator[CeleryProcesses]:
    processes = CeleryProcesses(sweep_seconds=1.0)
    try:
        yield processes
    finally:
        processes.stop_all()


def wait_until(condition: Callable[[], bool], timeout: float, what: str, celery: CeleryProcesses) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} within {timeout}s\n{celery.logs()}")


def first_clock_move(game: Game) -> Move | None:
    return Move.objects.filter(game=game, actor="clock").order_by("seq").first()


def test_a_stalled_player_is_resolved_by_each_policy_within_seconds(celery: CeleryProcesses) -> None:
    celery.start_worker()
    celery.start_beat()
    games = {
        policy: round_with_people("classic", options={"turn_seconds": 1, "timeout_policy": policy})[0]
        for policy in ("autoplay", "penalty", "skip")
    }
    wait_until(lambda: all(first_clock_move(g) for g in games.values()), 10, "every stalled turn resolved", celery)
    for policy, game in games.items():
        move = first_clock_move(game)
        assert move is not None
        assert move.seq == 1 and move.seat == game.turn
        assert move.events[0] == {"type": "timeout", "seat": game.turn, "policy": policy}
        lag = (move.created_at - game.deadline).total_seconds()
        assert 0 <= lag < 5, f"{policy}: resolved {lag:.3f}s after the deadline"
        if policy == "penalty":
            assert any(e["type"] == "drew" and e["reason"] == "timeout" for e in move.events)


def test_a_worker_killed_with_pending_timeouts_loses_none_and_doubles_none(celery: CeleryProcesses) -> None:
    turn_seconds = 3
    celery.start_worker("worker-1")
    celery.start_beat()
    games = [round_with_people("classic", options={"turn_seconds": turn_seconds, "timeout_policy": "penalty"})[0]
             for _ in range(12)]
    time.sleep(1.0)  # worker-1 is sweeping by now
    celery.kill("worker-1")  # kill -9, pool children included
    last_deadline = max(g.deadline for g in games)
    time.sleep(max(0.0, (last_deadline - timezone.now()).total_seconds()) + 0.5)
    assert not Move.objects.filter(game__in=games).exists(), "nothing ran while no worker was up"

    celery.start_worker("worker-2")
    wait_until(lambda: all(first_clock_move(g) for g in games), 15, "every passed deadline resolved", celery)
    # No game is stuck: every clock is ahead of now (minus the sweep period and some slack).
    now = timezone.now()
    stuck = Game.objects.filter(pk__in=[g.pk for g in games], status="active",
                                deadline__lt=now - timedelta(seconds=2.5))
    assert not stuck.exists(), celery.logs()
    celery.stop_all()

    for game in games:
        game = Game.objects.get(pk=game.pk)
        assert ledger_verify(game) == []
        previous = game.created_at
        for move in Move.objects.filter(game=game).order_by("seq"):
            # Every row here is a clock timeout (nobody else acts); each came a full turn after the
            # row before, so none was applied twice or early.
            assert move.actor == "clock" and move.action == {"type": "timeout"}
            gap = (move.created_at - previous).total_seconds()
            assert gap >= turn_seconds - 0.05, f"game {game.pk} seq {move.seq}: {gap:.3f}s after the previous"
            previous = move.created_at
