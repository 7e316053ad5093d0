"""Making, finding and checking access tokens (no game import: the games app authenticates with it).

A key is ``mmt_`` and 43 URL-safe characters (256 random bits). Keys of the earlier DRF tokens
(40 hex digits) were moved here hashed by migration 0002 and keep working: every key is found by its
first :data:`PREFIX_LENGTH` characters and checked by the SHA-256 of the whole key.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import AccessToken

KEY_MARK = "mmt_"
PREFIX_LENGTH = 12
#: Longer keys are refused before any hashing or look-up.
KEY_MAX_LENGTH = 128


def key_new() -> str:
    return KEY_MARK + secrets.token_urlsafe(32)


def key_prefix(key: str) -> str:
    return key[:PREFIX_LENGTH]


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def key_matches(token: AccessToken, key: str) -> bool:
    """Whether ``key`` is the token's key, in time that does not depend on where they differ."""
    return hmac.compare_digest(token.digest, key_digest(key))


def token_issue(*, user: object, name: str, scopes: Iterable[str], expires_at: datetime | None = None,
                used: bool = False) -> tuple[AccessToken, str]:
    """A new token for ``user``; returns it and its key, which is shown once and never stored. ``used``:
    the token of a sign-up or log-in counts as used by the device that asked for it (so its first request
    writes nothing); a personal token shows "never used" until it is."""
    key = key_new()
    token = AccessToken.objects.create(user=user, name=name, prefix=key_prefix(key), digest=key_digest(key),
                                       scopes=sorted(set(scopes)), expires_at=expires_at,
                                       last_used_at=timezone.now() if used else None)
    return token, key


def token_used(token: AccessToken) -> None:
    """Record that the token was used, at most once per ``MAUMAU_TOKEN_LAST_USED_SECONDS``: a write per
    request would cost the move its query budget and serialise a client's requests on the token row."""
    now = timezone.now()
    every = timedelta(seconds=settings.MAUMAU_TOKEN_LAST_USED_SECONDS)
    if token.last_used_at is None or now - token.last_used_at >= every:
        AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
