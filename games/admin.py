"""Read-only admin for tables, games and the ledger: the ledger is append-only, and the
snapshot must only change through move_submit, so nothing here writes."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import Game, Move, Player, Seat, Table


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    readonly_fields = ["position", "player", "bot_controlled", "left", "consecutive_timeouts"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ["id", "name", "is_bot", "bot_level", "created_at"]
    search_fields = ["name"]


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ["id", "rules", "host", "status", "max_players", "rounds_started", "league", "created_at"]
    list_filter = ["rules", "status"]
    inlines = [SeatInline]
    # The next round's server seed is committed, not shown: whoever knew it could predict that deal.
    exclude = ["next_seed"]


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = ["id", "table", "number", "status", "version", "turn", "deadline", "created_at", "finished_at"]
    list_filter = ["status"]
    # The seed predicts the stock, and the snapshot carries it: neither is shown, even to staff.
    exclude = ["seed", "state"]


@admin.register(Move)
class MoveAdmin(ReadOnlyAdmin):
    list_display = ["id", "game", "seq", "actor", "seat", "player", "created_at", "hash"]
    list_filter = ["actor"]
    list_select_related = ["player"]
