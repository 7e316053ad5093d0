"""DRF token authentication that loads the caller's Player with the token (one query, not two,
in fixed SQL: see games/sql.py). Tokens are the accounts app's: hashed, scoped, optionally expiring."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from accounts import tokens
from games import presence, sql


class PlayerTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``; ``request.user.player`` is then already loaded, ``request.auth``
    is the :class:`accounts.models.AccessToken` (its scopes are checked by accounts.permissions)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        token = sql.token_with_user_and_player(key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if token.expired():
            raise exceptions.AuthenticationFailed(_("This token has expired."))
        tokens.token_used(token)
        try:
            presence.player_seen(token.user.player)
        except AttributeError:  # a user without a player (an admin account)
            pass
        return token.user, token
