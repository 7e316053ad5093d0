"""Bots that think: the ``strong`` bot's move is chosen in a Celery task, never under a lock or a request.

``services.move_submit`` plays ``random`` and ``basic`` inline (they take microseconds). When a
``strong`` bot gets the turn it only schedules ``play.tasks.bot_move_task`` for after the commit,
with the game's id and version. The task (:func:`bot_move_make`) reads the round without a lock,
as the bot's seat may see it: the engine's player view and the ledger's events redacted for that
seat, folded into :class:`games.engine.Knowledge`. It searches for ``MAUMAU_STRONG_BOT_MS``
(the service reads the clock and hands it to the pure engine), then submits the move through
``move_submit`` with ``actor="bot"`` and ``expected_version``: if anything moved the round meanwhile
(a call, the clock, a person taking the seat back) the move is refused as stale and dropped, and
whatever moved the round has scheduled a new task if the bot is on turn again. Clients learn of the
move on the streams, as of any move. The search's generator is seeded by ``engine.bot_seed`` from
the round's secret seed and the version, as the other bots' are.
"""

from __future__ import annotations

import random
import time
from typing import Any

from django.conf import settings

from games import engine
from games.ledger import initial_state
from games.models import Game, Move, Seat
from maumau.errors import ConflictError, NotFoundError
from play import services

#: What a bot task did (also the task's result).
APPLIED, STALE, MISSING = "applied", "stale", "missing"


def bot_move_make(*, game_id: int, version: int) -> str:
    """The strong bot on turn in ``version`` of the round thinks and moves; nothing if the round moved on."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return MISSING
    if game.status != "active" or game.version != version:
        return STALE
    seats = game.seats_in_order(Seat.objects.filter(table_id=game.table_id).select_related("player"))
    state = game.engine_state()
    seat = state.turn
    if not seats[seat].bot_controlled or engine.bot_level(seats[seat].player.bot_level) != "hard":
        return STALE
    choice = strong_choice(game, state, seat)
    if choice is None:
        return STALE
    try:
        services.move_submit(game_id=game_id, actor="bot", action=choice, expected_version=version, bot_seat=seat)
    except NotFoundError:
        return MISSING
    except ConflictError:
        return STALE
    return APPLIED


def strong_choice(game: Game, state: engine.GameState, seat: int) -> dict[str, Any] | None:
    """The strong bot's action for ``seat``, from what that seat may see of the round (not the state)."""
    knowledge = engine.Knowledge(state.rules, seat)
    knowledge.observe(engine.redact_events([engine.deal_event(initial_state(game))], seat))
    for events in Move.objects.filter(game_id=game.pk, seq__lte=game.version).order_by("seq").values_list(
            "events", flat=True):
        knowledge.observe(engine.redact_events(events, seat))
    rng = random.Random(engine.bot_seed(game.seed, game.version))
    playouts = settings.MAUMAU_STRONG_BOT_PLAYOUTS or 1_000_000
    clock = time.monotonic
    return engine.strong_action(engine.player_view(state, seat), knowledge, rng, playouts=playouts, clock=clock,
                                deadline=clock() + settings.MAUMAU_STRONG_BOT_MS / 1000)
