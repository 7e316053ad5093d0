"""Read-mostly admin: the round results are append-only, standings are derived (recompute, never edit)."""

from django.contrib import admin

from games.models import League
from scoring.models import LeagueResignation, PlayerResult, RoundResult, Standing


class StandingInline(admin.TabularInline):
    model = Standing
    extra = 0
    can_delete = False
    readonly_fields = ["player", "rounds", "wins", "points", "multiplier_bonus", "resigned", "updated_at"]

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


class ResignationInline(admin.TabularInline):
    model = LeagueResignation
    extra = 0
    can_delete = False
    fields = ["player", "after_round", "resigned_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "rules", "status", "loser", "created_at", "finished_at"]
    list_filter = ["rules", "status"]
    search_fields = ["name"]
    readonly_fields = ["status", "loser", "finished_at", "created_at"]
    raw_id_fields = ["created_by"]
    inlines = [StandingInline, ResignationInline]


class PlayerResultInline(admin.TabularInline):
    model = PlayerResult
    extra = 0
    can_delete = False
    fields = ["seat", "player", "rank", "cards_left", "raw_points", "multiplier", "points", "won"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(RoundResult)
class RoundResultAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "table", "league", "rules", "reason", "winner", "multiplier", "counted"]
    list_filter = ["rules", "reason", "counted"]
    inlines = [PlayerResultInline]

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
