"""Tokens in the admin, read-only: there is no secret to show, and a token is made by its user."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from accounts.models import AccessToken


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "name", "prefix", "scopes", "created_at", "last_used_at", "expires_at"]
    readonly_fields = list_display
    exclude = ["digest"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
