"""Token scopes, enforced on every DRF view (a default permission class, next to IsAuthenticated).

Reads need no particular scope; writes need ``play``, unless a view names another scope for a method
in ``token_scopes`` (``account`` for managing the account, ``None`` for logging out, which any token may,
``play`` for reading the webhook signing secret, which signs as this server).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from accounts.models import AccessToken
from maumau.errors import PermissionDeniedError


def scope_required(request: Request, view: Any) -> str | None:
    scopes = getattr(view, "token_scopes", {})
    if request.method in scopes:
        return scopes[request.method]
    return None if request.method in SAFE_METHODS else "play"


class TokenScopes(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        token = request.auth
        if not isinstance(token, AccessToken):
            return True  # no token: IsAuthenticated (or the view's AllowAny) decides
        scope = scope_required(request, view)
        if scope is not None and not token.allows(scope):
            raise PermissionDeniedError(message=_("This token's scopes do not allow this."),
                                        details={"required_scope": scope, "scopes": list(token.scopes)})
        return True
