"""Read paths of accounts: what a caller sees of their account and tokens (never a secret: none is stored)."""

from __future__ import annotations

from typing import Any

from accounts.models import AccessToken
from games.models import Player


def _iso(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def token_data(token: AccessToken, *, current: AccessToken | None = None) -> dict[str, Any]:
    return {
        "id": token.pk,
        "name": token.name,
        "scopes": list(token.scopes),
        "created_at": _iso(token.created_at),
        "last_used_at": _iso(token.last_used_at),
        "expires_at": _iso(token.expires_at),
        "current": current is not None and token.pk == current.pk,
    }


def token_list(*, user: Any, current: AccessToken | None = None) -> list[dict[str, Any]]:
    """The user's own tokens, newest first."""
    query = AccessToken.objects.filter(user=user).order_by("-created_at", "-id")
    return [token_data(token, current=current) for token in query]


def account_data(*, player: Player) -> dict[str, Any]:
    guest = not player.user.has_usable_password()
    return {"id": player.pk, "name": player.name, "username": None if guest else player.user.username,
            "guest": guest, "bot": player.is_bot}
