"""A user's access tokens: one per device or script, each named, scoped, revocable, optionally expiring.

The database holds no usable token: only the first characters of a key (``prefix``, to find its row
in one indexed look-up) and the SHA-256 of the whole key (``digest``). A key is 160 or more random
bits, so a fast hash is enough (a slow hash protects guessable secrets such as passwords); the
digest is compared in constant time.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone

#: Act in games and every other write (``play``), read everything (``read``), manage the account
#: itself: tokens, password, deletion (``account``: only the tokens of sign-up and log-in have it).
SCOPES = ("account", "play", "read")
#: What a personal token (``POST /me/tokens``) may be given.
PERSONAL_SCOPES = ("play", "read")


class AccessToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens")
    name = models.CharField(max_length=64)
    prefix = models.CharField(max_length=12, db_index=True)
    digest = models.CharField(max_length=64)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}..., user {self.user_id})"

    def expired(self, now: datetime | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or timezone.now())

    def allows(self, scope: str) -> bool:
        return scope in self.scopes
