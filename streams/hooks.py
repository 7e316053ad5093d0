"""Receivers of the games app's signals.

``moves_appended`` arrives inside ``move_submit``'s transaction, with the round in memory: the
move's notifications are inserted there and commit with it, the wake-ups go out on commit
(see ``streams.services.on_moves_appended``). Round starts and joins arrive on commit and are
told in a transaction of their own; nothing there may fail the round or the join, so those
receivers log their error and return.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

log = logging.getLogger(__name__)


def _moves_appended(sender: Any, *, game: Any, seats: list[Any], moves: list[Any], writes: Any = None,
                    **_: Any) -> None:
    from streams.services import on_moves_appended

    on_moves_appended(game=game, seats=seats, moves=moves, writes=writes)


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

    services.moves_appended.connect(_moves_appended, dispatch_uid="streams.moves_appended")
    services.round_started.connect(_round_started, dispatch_uid="streams.round_started")
    post_save.connect(_seat_saved, sender=Seat, dispatch_uid="streams.seat_saved")
