"""Receivers of the games app's on-commit signals: wake streams first, then notify.

Runs after the move committed, inside the request that made it; nothing here may fail the
move, so every receiver logs its error and returns.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from streams import channels

log = logging.getLogger(__name__)


def _move_committed(sender: Any, *, game_id: int, version: int, seqs: list[int] | None = None, **_: Any) -> None:
    channels.publish(channels.game_topic(game_id))
    try:
        from streams.services import on_move_committed

        on_move_committed(game_id=game_id, version=version, seqs=list(seqs or []))
    except Exception:
        log.exception("streams: notifications of game %s v%s failed", game_id, version)


def _round_started(sender: Any, *, game_id: int, **_: Any) -> None:
    try:
        from streams.services import on_round_started

        on_round_started(game_id=game_id)
    except Exception:
        log.exception("streams: notifications of round start %s failed", game_id)


def _seat_saved(sender: Any, *, instance: Any, created: bool, raw: bool = False, **_: Any) -> None:
    if not created or raw:
        return
    seat_id = instance.pk

    def joined() -> None:
        try:
            from streams.services import on_player_joined

            on_player_joined(seat_id=seat_id)
        except Exception:
            log.exception("streams: notification of seat %s failed", seat_id)

    transaction.on_commit(joined)


def connect() -> None:
    from games import services
    from games.models import Seat

    services.move_committed.connect(_move_committed, dispatch_uid="streams.move_committed")
    services.round_started.connect(_round_started, dispatch_uid="streams.round_started")
    post_save.connect(_seat_saved, sender=Seat, dispatch_uid="streams.seat_saved")
