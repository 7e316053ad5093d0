"""Thin Celery entry points: ids in, the clock services re-check the world and do the work.

The expiry tasks are idempotent (they act only on the version they were set for, under the
game's row lock), so they acknowledge late: a worker that dies (kill -9, lost connection) leaves
its unacknowledged messages to be delivered again instead of losing them. A pool child killed by
the time limit is not redelivered (``reject_on_worker_lost`` stays off: no message loops); the
sweep resolves that deadline. The sweep needs no redelivery (the next tick runs anyway), and it
expires after one period so a backlog of ticks collapses into one.
"""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings

from games import clocks, services


@shared_task(name="games.turn_expire", acks_late=True, ignore_result=True)
def turn_expire_task(*, game_id: int, version: int) -> str:
    return clocks.turn_expire(game_id=game_id, version=version)


@shared_task(name="games.hermann_expire", acks_late=True, ignore_result=True)
def hermann_expire_task(*, game_id: int, version: int) -> str:
    return clocks.hermann_expire(game_id=game_id, version=version)


@shared_task(name="games.deadlines_sweep", ignore_result=True)
def deadlines_sweep_task() -> int:
    return clocks.deadlines_sweep()


@shared_task(name="games.idempotency_purge", ignore_result=True)
def idempotency_purge_task() -> int:
    return services.idempotency_records_purge(keep=timedelta(hours=settings.MAUMAU_IDEMPOTENCY_KEEP_HOURS))
