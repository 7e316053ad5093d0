"""One sweep resolves every passed deadline however many (batches repeated until none is due, bounded
in time), and one sweep runs at a time: ticks that piled up in the queue find the lock taken and do
nothing (so a late tick can run instead of being discarded, maumau/celery.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from games.models import Game
from maumau import locks
from play import clocks
from tests.clocks.clock_helpers import T0, clock_moves, round_with_people

pytestmark = pytest.mark.django_db




@contextmanager
def sweep_lock_held_elsewhere() -> Iterator[None]:
    """The sweep's lock held by another thread (another database session, as another worker's)."""
    taken, release = threading.Event(), threading.Event()
    held: list[bool] = []

    def hold() -> None:
        try:
            with locks.lock_try("clocks-sweep") as got:
                held.append(got)
                taken.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait(10)
    try:
        assert held == [True]
        yield
    finally:
        release.set()
        thread.join()


def test_one_sweep_resolves_more_passed_deadlines_than_a_batch(clock: Any) -> None:
    games = [round_with_people(options={"turn_seconds": 30})[0] for _ in range(5)]
    clock.shift(31)
    with override_settings(MAUMAU_CLOCK_SWEEP_BATCH=2):
        assert clocks.deadlines_sweep() == 5
    assert all(len(clock_moves(g)) == 1 for g in games)


def test_a_sweep_out_of_time_leaves_the_rest_to_the_next_tick(clock: Any) -> None:
    games = [round_with_people(options={"turn_seconds": 30})[0] for _ in range(3)]
    clock.shift(31)
    with override_settings(MAUMAU_CLOCK_SWEEP_BUDGET_SECONDS=1e-9):
        assert clocks.deadlines_sweep() == 0
    assert clocks.deadlines_sweep() == 3
    assert all(len(clock_moves(g)) == 1 for g in games)


def test_a_tick_while_another_sweep_runs_does_nothing(clock: Any) -> None:
    game = round_with_people(options={"turn_seconds": 30})[0]
    clock.shift(31)
    with sweep_lock_held_elsewhere():
        assert clocks.deadlines_sweep() == 0
        assert clock_moves(game) == []
    assert clocks.deadlines_sweep() == 1


def test_the_lock_is_free_again_after_a_sweep_and_after_an_error(clock: Any) -> None:
    with pytest.raises(RuntimeError), locks.lock_try("clocks-sweep") as held:
        assert held
        raise RuntimeError("a sweep that failed")
    with locks.lock_try("clocks-sweep") as held:
        assert held


def test_the_reminders_are_sent_in_batches_until_none_is_due(clock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    games = [round_with_people(options={"turn_seconds": 300})[0] for _ in range(5)]
    Game.objects.filter(pk__in=[g.pk for g in games]).update(reminder_at=T0)
    sent: list[int] = []
    monkeypatch.setattr(clocks.stream_services, "turn_reminder_send",
                        lambda *, game_id: sent.append(game_id) or game_id)
    clock.shift(1)
    with override_settings(MAUMAU_CLOCK_SWEEP_BATCH=2):
        assert clocks.reminders_send() == 5
    assert sorted(sent) == sorted(g.pk for g in games)
    assert not Game.objects.filter(pk__in=sent, reminder_at__isnull=False).exists()
