"""Celery entry points (ids in; the services re-check the world under the game's lock) and the
on-commit sending of the clock tasks, which the services call: the tasks import the services inside
their bodies, so imports run one way.

The expiry tasks are idempotent (they act only on the version they were set for), so they
acknowledge late: a worker that dies (kill -9, lost connection) leaves its unacknowledged messages
to be delivered again instead of losing them. A pool child killed by the time limit is not
redelivered (``reject_on_worker_lost`` stays off: no message loops); the sweep resolves that
deadline. The sweep needs no redelivery (the next tick runs anyway), and it expires after one period
so a backlog of ticks collapses into one.
"""

from __future__ import annotations

import functools
import logging
from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

logger = logging.getLogger(__name__)


def clock_tasks_schedule(game: Any) -> None:
    """On commit, send the expiry tasks for the deadlines this version of ``game`` set (nothing on
    rollback; the task carries the version, so it can only act on the turn it was set for)."""
    if game.status != "active" or (game.deadline is None and game.hermann_deadline is None):
        return
    transaction.on_commit(functools.partial(_clock_tasks_send, game.pk, game.version, game.deadline,
                                            game.hermann_deadline))


def _clock_tasks_send(game_id: int, version: int, deadline: datetime | None, hermann_deadline: datetime | None) -> None:
    horizon = timezone.now() + timedelta(seconds=settings.MAUMAU_CLOCK_ETA_MAX_SECONDS)
    for task, when in ((turn_expire_task, deadline), (hermann_expire_task, hermann_deadline)):
        if when is None or when > horizon:
            continue  # no deadline, or one for the sweep (see play.clocks)
        try:
            task.apply_async(kwargs={"game_id": game_id, "version": version}, eta=when,
                             queue=settings.MAUMAU_CLOCK_QUEUE)
        except Exception:  # the move is committed: a broker outage must not fail it; the sweep recovers
            logger.exception("could not send %s for game %s v%s", task.name, game_id, version)


def bot_move_schedule(game: Any) -> None:
    """On commit, send the task in which a thinking bot (``strong``) chooses its move, for the version
    ``game`` has then (once per transaction): the request that gave it the turn does not wait for it."""
    if getattr(game, "bot_move_scheduled", False):
        return
    game.bot_move_scheduled = True
    transaction.on_commit(functools.partial(_bot_move_send, game))


def _bot_move_send(game: Any) -> None:
    game.bot_move_scheduled = False
    if game.status != "active":
        return
    try:
        bot_move_task.apply_async(kwargs={"game_id": game.pk, "version": game.version},
                                  queue=settings.MAUMAU_BOT_QUEUE)
    except Exception:  # the move is committed: the turn clock ends a turn the bot never took
        logger.exception("could not send the bot's move for game %s v%s", game.pk, game.version)


@shared_task(name="games.bot_move", acks_late=True, ignore_result=True)
def bot_move_task(*, game_id: int, version: int) -> str:
    from play import thinking as bots

    return bots.bot_move_make(game_id=game_id, version=version)


@shared_task(name="games.turn_expire", acks_late=True, ignore_result=True)
def turn_expire_task(*, game_id: int, version: int) -> str:
    from play import clocks

    return clocks.turn_expire(game_id=game_id, version=version)


@shared_task(name="games.hermann_expire", acks_late=True, ignore_result=True)
def hermann_expire_task(*, game_id: int, version: int) -> str:
    from play import clocks

    return clocks.hermann_expire(game_id=game_id, version=version)


@shared_task(name="games.deadlines_sweep", ignore_result=True)
def deadlines_sweep_task() -> int:
    from play import clocks

    return clocks.deadlines_sweep()


@shared_task(name="games.idempotency_purge", ignore_result=True)
def idempotency_purge_task() -> int:
    from play import services

    return services.idempotency_records_purge(keep=timedelta(hours=settings.MAUMAU_IDEMPOTENCY_KEEP_HOURS))
