"""Turn clocks: the services that resolve a passed deadline, exactly once.

A game row carries ``deadline`` (the turn holder's clock) and ``hermann_deadline`` (the house KD
race); ``services._deadlines`` sets both with every applied move. Three paths resolve them, and all
three end in the same check and the same write, so whichever comes first wins and the others find
nothing to do:

1. :func:`clock_schedule` (called by ``services._publish`` / ``round_start``) enqueues an expiry task
   on commit, carrying the game id and the version it was set for, with ``eta`` = the deadline.
   Deadlines further away than ``MAUMAU_CLOCK_ETA_MAX_SECONDS`` get no task: a broker ETA is only an
   earliest run time, Redis re-delivers unacked ETA tasks after its visibility timeout and
   RabbitMQ cancels consumers that hold a delivery too long, so long (correspondence) deadlines
   are left to the sweep.
2. :func:`deadlines_sweep` (Celery beat, one scheduler) resolves every passed deadline: the
   backstop for lost tasks (a worker killed with its reserved ETA tasks, a broker that was down).
3. The request path: the game view calls :func:`clocks_resolve_due` when the row it read shows a
   passed deadline (:func:`deadline_passed`), and ``move_submit`` runs
   :func:`clock_check` under its lock (see :func:`clocks_first`), so a request that finds a
   passed deadline resolves it before answering; a game never looks stuck to its players, and
   a late move comes after the timeout it missed.

:func:`turn_expire` / :func:`hermann_expire` lock the game row and re-check inside the
transaction: still active, same version, deadline passed. Otherwise they do nothing, which makes
a duplicate, stale or early task harmless and lets the task use ``acks_late``. The timeout itself
goes through ``services.move_submit`` with ``actor="clock"``: the engine applies the table's
``timeout_policy`` and the ledger records the clock's action.

After a timeout, a person who let ``MAUMAU_CLOCK_TAKEOVER_TIMEOUTS`` turns in a row run out (counted
in this round's ledger: any own move breaks the streak) is taken over by the ``basic`` bot
(``Seat.bot_controlled``), so the others can finish the round. Seats whose player left are taken
over by ``services.table_leave``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.models import Game, Move, Seat
from maumau.errors import DomainError

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: What an expiry did (also the task's result, handy in logs and tests).
APPLIED, STALE, EARLY, FINISHED, MISSING, REFUSED = "applied", "stale", "early", "finished", "missing", "refused"


def clock_setting(name: str) -> Any:
    """Clock settings are read at call time, so tests and benchmarks can change them."""
    defaults = {
        "MAUMAU_CLOCK_ETA_MAX_SECONDS": 900,
        "MAUMAU_CLOCK_TAKEOVER_TIMEOUTS": 3,
        "MAUMAU_CLOCK_QUEUE": "celery",
        "MAUMAU_CLOCK_SWEEP_SECONDS": 2.0,
        "MAUMAU_CLOCK_SWEEP_BATCH": 500,
    }
    return getattr(settings, name, defaults[name])


# --- scheduling --------------------------------------------------------------------------------


def clock_schedule(game: Game) -> None:
    """On commit, enqueue the expiry tasks for the deadlines this version of ``game`` set.

    Nothing is sent when the transaction rolls back (``on_commit``), and the task carries the
    version so it can only act on the turn it was set for.
    """
    if game.status != "active":
        return
    game_id, version = game.pk, game.version
    deadline, hermann_deadline = game.deadline, game.hermann_deadline
    if deadline is None and hermann_deadline is None:
        return
    transaction.on_commit(lambda: _enqueue(game_id, version, deadline, hermann_deadline))


def _enqueue(game_id: int, version: int, deadline: datetime | None, hermann_deadline: datetime | None) -> None:
    from games import tasks

    horizon = timezone.now() + timedelta(seconds=clock_setting("MAUMAU_CLOCK_ETA_MAX_SECONDS"))
    queue = clock_setting("MAUMAU_CLOCK_QUEUE")
    for task, when in ((tasks.turn_expire_task, deadline), (tasks.hermann_expire_task, hermann_deadline)):
        if when is None or when > horizon:
            continue  # no deadline, or one for the sweep (see the module docstring)
        try:
            task.apply_async(kwargs={"game_id": game_id, "version": version}, eta=when, queue=queue)
        except Exception:  # the move is committed: a broker outage must not fail it; the sweep recovers
            logger.exception("could not enqueue %s for game %s v%s", task.name, game_id, version)


# --- expiry ------------------------------------------------------------------------------------


def _locked_due(game_id: int, version: int, field: str) -> tuple[Game | None, str]:
    """Lock the game and check it is still waiting on ``field`` for this version."""
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        return None, MISSING
    if game.status != "active":
        return None, FINISHED
    if game.version != version:
        return None, STALE
    due: datetime | None = getattr(game, field)
    if due is None or due > timezone.now():
        return None, EARLY
    return game, APPLIED


def turn_expire(*, game_id: int, version: int) -> str:
    """The turn holder's clock ran out: resolve it by the table's ``timeout_policy``, once."""
    return _expire(game_id, version, "deadline", {"type": "timeout"}, before=_timeout_streak)


def hermann_expire(*, game_id: int, version: int) -> str:
    """The KD "Hermann" race's ``hermann_seconds`` are over: everyone who has not said it draws."""
    return _expire(game_id, version, "hermann_deadline", {"type": "hermann_timeout"})


def _expire(game_id: int, version: int, deadline_field: str, action: dict[str, str],
            before: Callable[[Game], None] | None = None) -> str:
    """Lock, re-check that ``deadline_field`` of this version is due, then apply the clock's
    ``action`` through ``move_submit`` like any move (``before`` runs under the same lock)."""
    from games.services import move_submit

    with transaction.atomic():
        game, outcome = _locked_due(game_id, version, deadline_field)
        if game is None:
            return outcome
        if before is not None:
            before(game)
        try:
            move_submit(game_id=game_id, actor="clock", seat=None, action=action, expected_version=version)
        except DomainError as exc:
            logger.warning("%s of game %s v%s refused: %s", action["type"], game_id, version, exc.code)
            return REFUSED
    return APPLIED


def _timeout_streak(game: Game) -> None:
    """Count the turn holder's timeouts in a row; at the limit a bot takes the seat over.

    Runs under the game lock before the timeout is applied, so ``move_submit`` already lets the
    bot play for this seat when its turn comes round again. The streak is read from this round's
    ledger (own moves break it; Hermann timeouts and refused-play penalties do not count).
    """
    turn = game.turn
    if turn is None or turn >= len(game.positions):
        return
    seat = Seat.objects.select_related("player").filter(
        table_id=game.table_id, position=game.positions[turn]).first()
    if seat is None or seat.bot_controlled:
        return
    limit = clock_setting("MAUMAU_CLOCK_TAKEOVER_TIMEOUTS")
    streak = 1
    rows = (Move.objects.filter(game_id=game.pk, seat=turn).exclude(actor="system")
            .order_by("-seq").values_list("actor", "action"))
    for actor, action in rows[: 4 * max(limit, 1)]:
        if actor == "clock" and action.get("type") == "hermann_timeout":
            continue
        if actor == "clock" and action.get("type") == "timeout":
            streak += 1
            continue
        break
    seat.consecutive_timeouts = streak
    fields = ["consecutive_timeouts"]
    if limit and streak >= limit:
        seat.bot_controlled = True
        fields.append("bot_controlled")
        logger.info("seat %s of table %s taken over by a bot after %s timeouts", seat.position, seat.table_id, streak)
    seat.save(update_fields=fields)


# --- backstops ---------------------------------------------------------------------------------


class ClockDue(Exception):
    """Raised by ``move_submit`` under its lock when the game's deadline has passed.

    Nothing is written yet, so its transaction rolls back cleanly; :func:`clocks_first` then
    resolves the timeout in a transaction of its own (committed even if the late action is then
    refused) and tries the action again.
    """

    def __init__(self, game_id: int) -> None:
        super().__init__(game_id)
        self.game_id = game_id


_resolving: ContextVar[bool] = ContextVar("clocks_resolving", default=False)


def clock_check(game: Game) -> None:
    """For ``move_submit``, on its locked game: raise :class:`ClockDue` if a deadline has passed.

    No query: it reads the row the caller already holds.
    """
    if not _resolving.get() and deadline_passed(game):
        raise ClockDue(game.pk)


def deadline_passed(game: Game, now: datetime | None = None) -> bool:
    """Whether an active game's turn or Hermann deadline has passed (read from the row in hand)."""
    if game.status != "active":
        return False
    now = now or timezone.now()
    return any(due is not None and due <= now for due in (game.deadline, game.hermann_deadline))


def clocks_first(move_submit: Callable[..., T]) -> Callable[..., T]:
    """Wraps ``move_submit``: a late action comes after the timeout it missed."""

    @functools.wraps(move_submit)
    def move_submit_after_the_clock(*args: Any, **kwargs: Any) -> T:
        try:
            return move_submit(*args, **kwargs)
        except ClockDue as due:
            token = _resolving.set(True)
            try:
                clocks_resolve_due(game_id=due.game_id)
                return move_submit(*args, **kwargs)
            finally:
                _resolving.reset(token)

    return move_submit_after_the_clock


def clocks_resolve_due(*, game_id: int) -> int:
    """Resolve whatever deadline of one game has passed (request path and sweep); returns how many.

    One cheap read when nothing is due. A Hermann timeout restarts the turn clock, so at most a
    couple of rounds run; the bound only guards against a clock misconfigured to zero.
    """
    applied = 0
    for _step in range(4):
        now = timezone.now()
        row = (Game.objects.filter(pk=game_id, status="active")
               .values("version", "deadline", "hermann_deadline").first())
        if row is None:
            break
        if row["hermann_deadline"] is not None and row["hermann_deadline"] <= now:
            outcome = hermann_expire(game_id=game_id, version=row["version"])
        elif row["deadline"] is not None and row["deadline"] <= now:
            outcome = turn_expire(game_id=game_id, version=row["version"])
        else:
            break
        if outcome == APPLIED:
            applied += 1
        elif outcome != STALE:  # stale: someone else moved meanwhile, look again
            break
    return applied


def deadlines_sweep(*, now: datetime | None = None) -> int:
    """Resolve every passed deadline (oldest first, one batch per run); returns how many timeouts.

    Uses the (status, deadline) index; the batch bound keeps one run short, the next tick takes
    the rest. Safe to run twice at once: each game is resolved under its row lock.
    """
    now = now or timezone.now()
    batch = clock_setting("MAUMAU_CLOCK_SWEEP_BATCH")
    due = (Game.objects.filter(status="active")
           .filter(Q(deadline__lte=now) | Q(hermann_deadline__lte=now))
           .order_by("deadline").values_list("pk", flat=True)[:batch])
    applied = 0
    for game_id in list(due):
        try:
            applied += clocks_resolve_due(game_id=game_id)
        except Exception:  # one broken game must not stop the others; it is logged and retried
            logger.exception("sweep could not resolve game %s", game_id)
    return applied
