"""Who is calling: the one ``authenticate`` for every request, DRF's views and the waiting clients'
streams and long-polls alike. Tokens are the accounts app's: hashed, scoped, optionally expiring.

The look-up loads the token, its user and the user's player in one statement, since every request
runs it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from accounts import tokens
from accounts.models import AccessToken
from games import presence, sql
from games.models import Player
from maumau import database_retry

#: The columns the look-up selects per model, in its order (every concrete field, checked by a test).
TOKEN_COLUMNS = ("id", "user_id", "name", "prefix", "digest", "scopes", "created_at", "last_used_at", "expires_at")
USER_COLUMNS = ("id", "password", "last_login", "is_superuser", "username", "first_name", "last_name", "email",
                "is_staff", "is_active", "date_joined")
TOKEN_SQL = (
    "SELECT t.id, t.user_id, t.name, t.prefix, t.digest, t.scopes, t.created_at, t.last_used_at, t.expires_at, "
    "u.id, u.password, u.last_login, u.is_superuser, u.username, u.first_name, u.last_name, u.email, "
    "u.is_staff, u.is_active, u.date_joined, "
    "p.id, p.name, p.user_id, p.is_bot, p.bot_level, p.has_webhook, p.has_notify_target, p.last_seen_at, "
    "p.created_at "
    "FROM accounts_accesstoken t JOIN auth_user u ON u.id = t.user_id "
    "LEFT JOIN games_player p ON p.user_id = u.id "
    "WHERE t.prefix = %s")


def _token_rows(prefix: str) -> list[Any]:
    """The rows of the token look-up: it runs first in every request, writes too, so a session that died
    under it is read once more (``database_retry.read_once_more``) rather than the whole request."""
    return database_retry.read_once_more(_token_rows_read, prefix)


def _token_rows_read(prefix: str) -> list[Any]:
    with sql.cursor() as c:
        c.execute(TOKEN_SQL, [prefix])
        return c.fetchall()


def token_with_user_and_player(key: str) -> AccessToken | None:
    """The token whose key this is, with its user and player. Found by the key's prefix (an index),
    then its digest compared in constant time (accounts.tokens): the row holds no key."""
    if not key or len(key) > tokens.KEY_MAX_LENGTH:
        return None
    rows = _token_rows(tokens.key_prefix(key))
    width = len(TOKEN_COLUMNS)
    found = next(((t, r) for r in rows if tokens.key_matches(t := sql.load(AccessToken, TOKEN_COLUMNS, r[:width]),
                                                                   key)), None)
    if found is None:
        return None
    token, row = found
    user_end = width + len(USER_COLUMNS)
    user = sql.load(User, USER_COLUMNS, row[width:user_end])
    player = sql.load(Player, sql.PLAYER_COLUMNS, row[user_end:]) if row[user_end] is not None else None
    AccessToken._meta.get_field("user").set_cached_value(token, user)
    player_user = Player._meta.get_field("user")
    player_user.remote_field.set_cached_value(user, player)
    if player is not None:
        player_user.set_cached_value(player, user)
    return token


class NotAuthenticated(Exception):
    """The key names no usable token; ``message`` says why, for a 401."""

    def __init__(self, message: Any) -> None:
        super().__init__(str(message))
        self.message = message


def authenticate(key: str) -> AccessToken:
    """The usable token of ``key`` (its user active, not expired), with its user and player loaded;
    marks it used and its player seen. Raises :class:`NotAuthenticated`."""
    token = token_with_user_and_player(key)
    if token is None:
        raise NotAuthenticated(_("Invalid token."))
    if not token.user.is_active:
        raise NotAuthenticated(_("User inactive or deleted."))
    if token.expired():
        raise NotAuthenticated(_("This token has expired."))
    tokens.token_used(token)
    player = getattr(token.user, "player", None)  # an admin account has none
    if player is not None:
        presence.player_seen(player)
    return token


#: Tokens looked up in one statement by :func:`tokens_unusable` (SQLite binds at most a few thousand).
_RECHECK_CHUNK = 500


def tokens_unusable(users_by_token: dict[int, int]) -> dict[int, str]:
    """Of these tokens (id: its user's id), those that no longer authenticate, and why: ``token_revoked``
    (logged out, revoked, or replaced by a password change), ``token_expired``, or ``account_deleted``.

    For what was opened with a token and stays open (the streams): one statement for all of them, and
    a second only when some are gone; nothing is written, unlike :func:`authenticate`."""
    if connection.vendor == "postgresql":
        return _tokens_unusable_postgresql(users_by_token)
    ids = sorted(users_by_token)
    found: dict[int, tuple[Any, bool]] = {}
    for start in range(0, len(ids), _RECHECK_CHUNK):
        rows = AccessToken.objects.filter(pk__in=ids[start:start + _RECHECK_CHUNK])
        found.update({pk: (expires_at, active) for pk, expires_at, active
                      in rows.values_list("pk", "expires_at", "user__is_active")})
    now = timezone.now()
    unusable = {pk: "account_deleted" if not active else "token_expired"
                for pk, (expires_at, active) in found.items()
                if not active or (expires_at is not None and expires_at <= now)}
    missing = [pk for pk in ids if pk not in found]
    users = sorted({users_by_token[pk] for pk in missing})
    active: set[int] = set()
    for start in range(0, len(users), _RECHECK_CHUNK):
        active.update(User.objects.filter(pk__in=users[start:start + _RECHECK_CHUNK], is_active=True)
                      .values_list("pk", flat=True))
    unusable.update({pk: "token_revoked" if users_by_token[pk] in active else "account_deleted" for pk in missing})
    return unusable


#: The re-check on PostgreSQL: the ids go as two arrays and only the tokens that no longer authenticate
#: come back (usually none). Hand-written because the ORM's ``pk__in`` of ten thousand ids, and a row
#: built per token, cost more CPU than the rest of an idle process's work (bench.streams_ladder).
RECHECK_SQL = (
    "SELECT w.id, CASE WHEN u.id IS NULL OR NOT u.is_active THEN 'account_deleted' "
    "WHEN t.id IS NULL THEN 'token_revoked' ELSE 'token_expired' END "
    "FROM unnest(%s::bigint[], %s::bigint[]) AS w(id, user_id) "
    "LEFT JOIN accounts_accesstoken t ON t.id = w.id "
    "LEFT JOIN auth_user u ON u.id = w.user_id "
    "WHERE t.id IS NULL OR u.id IS NULL OR NOT u.is_active OR t.expires_at <= now()"
)


def _tokens_unusable_postgresql(users_by_token: dict[int, int]) -> dict[int, str]:
    ids = list(users_by_token)
    with connection.cursor() as cursor:
        cursor.execute(RECHECK_SQL, [ids, [users_by_token[pk] for pk in ids]])
        return dict(cursor.fetchall())


class PlayerTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``; ``request.user.player`` is then already loaded, ``request.auth``
    is the :class:`accounts.models.AccessToken` (its scopes are checked by accounts.permissions)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        try:
            token = authenticate(key)
        except NotAuthenticated as exc:
            raise exceptions.AuthenticationFailed(exc.message) from exc
        return token.user, token
