"""Celery entry points (ids in; the services re-check the world under the game's lock) and the
on-commit sending of the strong bot's task, which the services call: the tasks import the services
inside their bodies, so imports run one way.

A move sends nothing for its clocks: the game row holds them and the beat sweep resolves them
(``play.clocks``). The bot's task is idempotent (it acts only on the version it was sent for), so it
acknowledges late: a worker that dies (kill -9, lost connection) leaves the message to be delivered
again instead of losing it. A pool child killed by the time limit is not redelivered
(``reject_on_worker_lost`` stays off: no message loops); the turn clock ends that turn. The sweep
needs no redelivery (the next tick runs anyway); a tick that waited runs late rather than not at all,
and ticks that piled up find the sweep lock taken or nothing due (``play.clocks``).
"""

from __future__ import annotations

import functools
import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)


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
        bot_move_task.apply_async(kwargs={"game_id": game.pk, "version": game.version})  # queue: maumau.celery
    except Exception:  # the move is committed: the turn clock ends a turn the bot never took
        logger.exception("could not send the bot's move for game %s v%s", game.pk, game.version)


@shared_task(name="games.bot_move", acks_late=True, ignore_result=True)
def bot_move_task(*, game_id: int, version: int) -> str:
    from play import thinking as bots

    return bots.bot_move_make(game_id=game_id, version=version)


@shared_task(name="games.deadlines_sweep", ignore_result=True)
def deadlines_sweep_task() -> int:
    from play import clocks

    return clocks.deadlines_sweep()


@shared_task(name="games.idempotency_purge", ignore_result=True)
def idempotency_purge_task() -> int:
    from play import services

    return services.idempotency_records_purge(keep=timedelta(hours=settings.MAUMAU_IDEMPOTENCY_KEEP_HOURS))
