"""Turn clocks: a passed deadline is resolved exactly once, by whichever path finds it first.

A game row carries ``deadline`` (the turn holder's clock) and ``hermann_deadline`` (the house KD
race), set with every applied move. Three paths resolve them, and all three go through
``services.move_submit`` with ``actor="clock"``, whose ``clocks_due_apply`` appends the clock rows under
the game's row lock (the table's ``timeout_policy`` decides what a timeout does; the ledger records
the clock's action). Whichever comes first wins; the others find nothing due:

1. The expiry tasks (``play.tasks``), sent on commit with the game id and the version the deadline
   was set for, ``eta`` = the deadline. They act only on that version (:func:`turn_expire`).
   Deadlines further away than ``MAUMAU_CLOCK_ETA_MAX_SECONDS`` get no task: a broker ETA is only an
   earliest run time, Redis re-delivers unacked ETA tasks after its visibility timeout and RabbitMQ
   cancels consumers that hold a delivery too long, so long (correspondence) deadlines are left to
   the sweep.
2. :func:`deadlines_sweep` (Celery beat, one scheduler): the backstop for lost tasks (a worker killed
   with its reserved ETA tasks, a broker that was down).
3. The request path: the game view calls :func:`clocks_resolve_due` when the row it read shows a
   passed deadline (:func:`deadline_passed`), and every move resolves due deadlines under its lock
   before it judges the action: a game never looks stuck, and a late move comes after the timeout it
   missed.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from games.models import Game
from maumau.errors import ConflictError, DomainError, NotFoundError
from play import services

logger = logging.getLogger(__name__)

#: What an expiry did (also the task's result, handy in logs and tests).
APPLIED, STALE, EARLY, FINISHED, MISSING, REFUSED = "applied", "stale", "early", "finished", "missing", "refused"


def turn_expire(*, game_id: int, version: int) -> str:
    """The turn holder's clock of ``version`` ran out: resolve it by the table's policy, once."""
    return _expire(game_id, version)


def hermann_expire(*, game_id: int, version: int) -> str:
    """The KD "Hermann" race of ``version`` is over: everyone who has not said it draws."""
    return _expire(game_id, version)


def _expire(game_id: int, version: int) -> str:
    """Whatever of ``version`` is due, applied; nothing when the game moved on (stale) or it is early."""
    try:
        outcome = services.move_submit(game_id=game_id, actor="clock", action=None, expected_version=version)
    except NotFoundError:
        return MISSING
    except ConflictError as exc:
        return FINISHED if exc.code == "game_finished" else STALE
    except DomainError as exc:
        logger.warning("the clock of game %s v%s was refused: %s", game_id, version, exc.code)
        return REFUSED
    return APPLIED if any(move.actor == "clock" for move in outcome.moves) else EARLY


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
    """Resolve every passed deadline (oldest first, one batch per run); returns how many timeouts.

    Uses the (status, deadline) index; the batch bound keeps one run short, the next tick takes
    the rest. Safe to run twice at once: each game is resolved under its row lock. Logs only when it
    resolved something.
    """
    now = now or timezone.now()
    due = (Game.objects.filter(status="active")
           .filter(Q(deadline__lte=now) | Q(hermann_deadline__lte=now))
           .order_by("deadline").values_list("pk", flat=True)[: settings.MAUMAU_CLOCK_SWEEP_BATCH])
    applied = 0
    for game_id in list(due):
        try:
            applied += clocks_resolve_due(game_id=game_id)
        except Exception:  # one broken game must not stop the others; it is logged and retried
            logger.exception("the sweep could not resolve game %s", game_id)
    if applied:
        logger.info("the sweep resolved %s passed deadlines", applied)
    return applied
