"""Presence: when a player last made a request, so the others at a table know whether to wait.

Written from the authentication of each request at most once per ``MAUMAU_PRESENCE_WRITE_SECONDS``
(a client that polls costs no write per poll, and nothing is a heartbeat); ``online`` means seen
within ``MAUMAU_PRESENCE_ONLINE_SECONDS``.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import caches
from django.utils import timezone

from games.models import Player

log = logging.getLogger(__name__)


def player_seen(player: Player, now: datetime | None = None) -> None:
    now = now or timezone.now()
    every = timedelta(seconds=settings.MAUMAU_PRESENCE_WRITE_SECONDS)
    if player.last_seen_at is None or now - player.last_seen_at >= every:
        Player.objects.filter(pk=player.pk).update(last_seen_at=now)
        player.last_seen_at = now


def online(player: Player, now: datetime | None = None) -> bool:
    """Seen recently; a server bot is always there."""
    if player.user_id is None:
        return True
    now = now or timezone.now()
    return player.last_seen_at is not None and now - player.last_seen_at < timedelta(
        seconds=settings.MAUMAU_PRESENCE_ONLINE_SECONDS)


# --- watching a game: marks in the shared "presence" cache ----------------------------------------
#
# A seated player's open stream or long-poll of a game marks (player, game) for a while (a stream's
# mark lives while it is open: renewed in batches per process, deleted when it closes); the notify
# app's workers read the marks before a your_turn push (someone looking at the board needs none).
# The cache is shared by every web process and worker (settings.CACHES).


def _watch_key(player_id: int, game_id: int) -> str:
    return f"watching:{game_id}:{player_id}"


def watching_mark(player_id: int, game_id: int, seconds: float) -> None:
    try:
        caches["presence"].set(_watch_key(player_id, game_id), 1, timeout=max(1, int(seconds + 0.999)))
    except Exception:  # a cache outage must not end a stream; the push is then sent
        log.warning("presence: could not mark game %s watched", game_id, exc_info=True)


async def watching_amark(player_id: int, game_id: int, seconds: float) -> None:
    try:
        await caches["presence"].aset(_watch_key(player_id, game_id), 1, timeout=max(1, int(seconds + 0.999)))
    except Exception:
        log.warning("presence: could not mark game %s watched", game_id, exc_info=True)


async def watching_amark_many(pairs: list[tuple[int, int]], seconds: float) -> None:
    """Marks of many (player, game) pairs in one cache call (one round trip to Redis)."""
    try:
        await caches["presence"].aset_many({_watch_key(p, g): 1 for p, g in pairs},
                                           timeout=max(1, int(seconds + 0.999)))
    except Exception:
        log.warning("presence: could not renew %s watching marks", len(pairs), exc_info=True)


async def watching_aunmark(player_id: int, game_id: int) -> None:
    """The last stream of (player, game) in this process closed: the mark goes at once."""
    try:
        await caches["presence"].adelete(_watch_key(player_id, game_id))
        await caches["presence"].aset(_left_key(player_id, game_id), 1,
                                      timeout=max(1, int(settings.NOTIFY_RECENT_MOVE_SECONDS + 0.999)))
    except Exception:
        log.warning("presence: could not unmark game %s watched", game_id, exc_info=True)


def _left_key(player_id: int, game_id: int) -> str:
    return f"left:{game_id}:{player_id}"


def left_lately(player_id: int, game_id: int) -> bool:
    """Whether the player closed their stream of the game lately (within ``NOTIFY_RECENT_MOVE_SECONDS``):
    then a move of theirs just before no longer says they are looking at the board."""
    try:
        return caches["presence"].get(_left_key(player_id, game_id)) is not None
    except Exception:
        log.warning("presence: could not read who left game %s", game_id, exc_info=True)
        return False


def watching(player_id: int, game_id: int) -> bool:
    """Whether a stream or long-poll of the player's is open on the game (or was, within its grace)."""
    try:
        return caches["presence"].get(_watch_key(player_id, game_id)) is not None
    except Exception:
        log.warning("presence: could not read who watches game %s", game_id, exc_info=True)
        return False


def watching_many(pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The (player, game) pairs of ``pairs`` that are watched: one cache round trip for a batch."""
    if not pairs:
        return set()
    keys = {_watch_key(player_id, game_id): (player_id, game_id) for player_id, game_id in pairs}
    try:
        found = caches["presence"].get_many(list(keys))
    except Exception:
        log.warning("presence: could not read who watches %s games", len(pairs), exc_info=True)
        return set()
    return {keys[key] for key in found}
