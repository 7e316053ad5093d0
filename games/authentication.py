"""DRF token authentication that loads the caller's Player with the token (one query, not two,
in fixed SQL: see games/sql.py)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from games import sql


class PlayerTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``; ``request.user.player`` is then already loaded."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        token = sql.token_with_user_and_player(key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return token.user, token
