"""DRF token authentication that loads the caller's Player with the token (one query, not two)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication


class PlayerTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``; ``request.user.player`` is then already loaded."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        model = self.get_model()
        try:
            token = model.objects.select_related("user__player").get(key=key)
        except model.DoesNotExist as exc:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from exc
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return token.user, token
