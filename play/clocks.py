"""Turn clocks: the database is the clock. A passed deadline is resolved exactly once, by whichever
path finds it first; a move sends nothing to the broker for its clocks.

A game row carries ``deadline`` (the turn holder's clock), ``hermann_deadline`` (the house KD race)
and ``reminder_at`` (when the turn's "deadline soon" reminder is due), set with every applied move
(``services._deadlines_set``). Two paths resolve the deadlines, both through ``services.move_submit``
with ``actor="clock"``, whose ``clocks_due_apply`` appends the clock rows under the game's row lock
(the table's ``timeout_policy`` decides what a timeout does; the ledger records the clock's action).
Whichever comes first wins; the other finds nothing due:

1. :func:`deadlines_sweep` (Celery beat, one scheduler, every ``MAUMAU_CLOCK_SWEEP_SECONDS``): the
   passed deadlines, oldest first, and the due reminders (``streams.services.turn_reminder_send``).
2. The request path: the game view calls :func:`clocks_resolve_due` when the row it read shows a
   passed deadline (:func:`deadline_passed`), and every move resolves due deadlines under its lock
   before it judges the action: a game never looks stuck, and a late move comes after the timeout it
   missed.

The decision: a passed deadline is resolved within one sweep period (the sweep has a queue and a
worker of its own, maumau/celery.py, so no delivery backlog delays it), or at once when anyone at the
table acts or looks; a table where nobody does sees its timeout up to one period late. In exchange a
move publishes nothing, and no clock waits in the broker as an ETA message (no visibility timeout or
consumer timeout to outlast, nothing a dying worker takes with it).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from games.models import Game
from maumau import locks
from maumau.errors import ConflictError, NotFoundError
from play import services
from streams import services as stream_services

logger = logging.getLogger(__name__)

def clocks_resolve_due(*, game_id: int) -> int:
    """Resolve whatever deadline of one game has passed (request path and sweep); returns how many."""
    try:
        outcome = services.move_submit(game_id=game_id, actor="clock", action=None)
    except (NotFoundError, ConflictError):
        return 0
    return sum(1 for move in outcome.moves if move.actor == "clock")


def deadline_passed(game: Game, now: datetime | None = None) -> bool:
    """Whether an active game's turn or Hermann deadline has passed (read from the row in hand)."""
    if game.status != "active":
        return False
    now = now or timezone.now()
    return any(due is not None and due <= now for due in (game.deadline, game.hermann_deadline))


def deadlines_sweep(*, now: datetime | None = None) -> int:
    """The turns' clocks: resolve every passed deadline (oldest first, in batches, until none is due),
    then send the due reminders the same way; returns how many timeouts.

    One sweep at a time (:func:`maumau.locks.lock_try`, never waited for): a tick that finds another
    sweep at work returns at once, so late ticks piled up in the queue cost a query each. A run stops
    after ``MAUMAU_CLOCK_SWEEP_BUDGET_SECONDS`` and the next tick goes on where it stopped. Each batch
    reads the time afresh, so deadlines that pass while a long sweep runs are its too. Uses the
    (status, deadline) index and the partial ones on ``hermann_deadline`` and ``reminder_at``. Each
    game is resolved under its row lock and a reminder is sent once per turn, so a request resolving
    the same game meanwhile is harmless. Logs only when it resolved something. ``now`` (tests) fixes
    the time instead.
    """
    with locks.lock_try("clocks-sweep") as held:
        if not held:
            return 0
        stop = time.monotonic() + settings.MAUMAU_CLOCK_SWEEP_BUDGET_SECONDS
        applied = timeouts_resolve(now=now, stop=stop)
        reminders_send(now=now, stop=stop)
    if applied:
        logger.info("the sweep resolved %s passed deadlines", applied)
    return applied


def timeouts_resolve(*, now: datetime | None, stop: float) -> int:
    """Batches of passed deadlines until none is due or the time is up; returns how many timeouts. A
    game that fails (logged) or that nothing could be resolved for is left to the next tick."""
    applied, skipped = 0, set()
    while time.monotonic() < stop:
        due = list(Game.objects.filter(status="active")
                   .filter(Q(deadline__lte=now or timezone.now()) | Q(hermann_deadline__lte=now or timezone.now()))
                   .exclude(pk__in=skipped).order_by("deadline")
                   .values_list("pk", flat=True)[: settings.MAUMAU_CLOCK_SWEEP_BATCH])
        if not due:
            break
        for game_id in due:
            if time.monotonic() >= stop:
                break
            try:
                resolved = clocks_resolve_due(game_id=game_id)
            except Exception:  # one broken game must not stop the others; it is logged and retried
                logger.exception("the sweep could not resolve game %s", game_id)
                resolved = 0
            if not resolved:
                skipped.add(game_id)
            applied += resolved
    return applied


def reminders_send(*, now: datetime | None = None, stop: float | None = None) -> int:
    """Send the reminders due (by ``now``, default the time of each batch), in batches until none is due
    or ``stop`` (monotonic) comes, clearing their ``reminder_at``; returns how many were sent. The
    clearing names the time too, so a reminder a concurrent move set for a new turn survives; one that
    failed stays for the next tick (a passed deadline ends its retries)."""
    stop = stop if stop is not None else time.monotonic() + settings.MAUMAU_CLOCK_SWEEP_BUDGET_SECONDS
    sent, failed = 0, set()
    while time.monotonic() < stop:
        upto = now or timezone.now()
        due = list(Game.objects.filter(status="active", reminder_at__lte=upto).exclude(pk__in=failed)
                   .order_by("reminder_at").values_list("pk", flat=True)[: settings.MAUMAU_CLOCK_SWEEP_BATCH])
        if not due:
            break
        done = []
        for game_id in due:
            if time.monotonic() >= stop:
                break
            try:
                sent += stream_services.turn_reminder_send(game_id=game_id) is not None
            except Exception:  # as above: logged, and tried again on the next tick
                logger.exception("the sweep could not send the reminder of game %s", game_id)
                failed.add(game_id)
                continue
            done.append(game_id)
        if done:
            Game.objects.filter(pk__in=done, reminder_at__lte=upto).update(reminder_at=None)
    return sent
