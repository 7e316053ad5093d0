"""Presence: when a player last made a request, so the others at a table know whether to wait.

Written from the authentication of each request at most once per ``MAUMAU_PRESENCE_WRITE_SECONDS``
(a client that polls costs no write per poll, and nothing is a heartbeat); ``online`` means seen
within ``MAUMAU_PRESENCE_ONLINE_SECONDS``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.models import Player


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
