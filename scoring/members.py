"""League members and roles: join by invite code, leave, the owner names scorekeepers; who may see a
league (a private one is shown to its members only) and who may play at its tables.

A member who leaves keeps their rounds (round results are never deleted) and their past seasons' standings;
they no longer play at the league's tables nor appear in its new rounds. The owner cannot leave.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import League, LeagueMember, Player
from maumau import database_retry
from maumau.errors import ConflictError, NotFoundError, PermissionDeniedError

ROLES = ("owner", "scorekeeper", "member")


def membership(*, league: League, player: Player | None) -> LeagueMember | None:
    """The player's current membership of the league (None if they never joined or left)."""
    if player is None:
        return None
    return LeagueMember.objects.filter(league=league, player=player, left_at__isnull=True).first()


def league_visible_check(*, league: League | None, role: str | None) -> League:
    """404 for a league that does not exist, or is private and the caller (with `role`) is not a member."""
    if league is None or (league.visibility == "private" and role is None):
        raise NotFoundError()
    return league


def league_seat_check(*, league_id: int | None, player: Player) -> None:
    """Only members play at a league's tables (and seat its bots): 403 `league_members_only` otherwise."""
    if league_id is None:
        return
    if not LeagueMember.objects.filter(league_id=league_id, player=player, left_at__isnull=True).exists():
        raise PermissionDeniedError(
            "league_members_only",
            _("Only the league's members play at its tables: join it with its invite code first."),
            details={"league": league_id},
        )


@database_retry.written_once_more
@transaction.atomic
def league_join(*, league_id: int, player: Player, code: str) -> League:
    """Join with the invite code (404 with a wrong one for a private league, 403 for a public one);
    idempotent for a member. A member who left joins again as a member."""
    league = League.objects.filter(pk=league_id).first()
    if league is None:
        raise NotFoundError()
    current = membership(league=league, player=player)
    if current is not None:
        return league
    if not league.invite_code or code != league.invite_code:
        if league.visibility == "private":
            raise NotFoundError()
        raise PermissionDeniedError("invite_code_wrong", _("This is not the league's invite code."),
                                    details={"field": "code"})
    if player.is_bot and player.user_id is None:
        raise PermissionDeniedError(message=_("A server bot cannot join a league."))
    row, created = LeagueMember.objects.get_or_create(league=league, player=player)
    if not created:
        row.left_at, row.role, row.joined_at = None, "member", timezone.now()
        row.save(update_fields=["left_at", "role", "joined_at"])
    return league


@database_retry.written_once_more
@transaction.atomic
def league_leave(*, league_id: int, player: Player) -> None:
    """Leave the league (409 `owner_cannot_leave` for its owner; 404 for a non-member)."""
    league = League.objects.filter(pk=league_id).first()
    if league is None:
        raise NotFoundError()
    current = membership(league=league, player=player)
    if current is None:
        raise NotFoundError() if league.visibility == "private" else PermissionDeniedError(
            "not_a_league_member", _("You are not a member of this league."), details={"league": league.pk})
    if current.role == "owner":
        raise ConflictError("owner_cannot_leave", _("The owner cannot leave the league."),
                            details={"league": league.pk})
    current.left_at = timezone.now()
    current.save(update_fields=["left_at"])


@database_retry.written_once_more
@transaction.atomic
def member_role_set(*, league_id: int, player: Player, member_id: int, role: str) -> LeagueMember:
    """The owner makes a member a scorekeeper or a member again (403 for anyone else; 409 for the owner's own
    role; 404 for a player who is not a member)."""
    league = League.objects.filter(pk=league_id).first()
    mine = membership(league=league, player=player) if league is not None else None
    league_visible_check(league=league, role=mine.role if mine else None)
    if mine is None or mine.role != "owner":
        raise PermissionDeniedError("not_league_owner", _("Only the league's owner names its scorekeepers."),
                                    details={"league": league_id})
    target = LeagueMember.objects.select_for_update().filter(league_id=league_id, player_id=member_id,
                                                             left_at__isnull=True).first()
    if target is None:
        raise NotFoundError(details={"player": member_id})
    if target.role == "owner":
        raise ConflictError("owner_role", _("The owner's role does not change."), details={"player": member_id})
    target.role = role
    target.save(update_fields=["role"])
    return target


def members_of(*, league: League) -> list[dict[str, Any]]:
    """The league's current members, owner first, then by joining (one query)."""
    order = {role: index for index, role in enumerate(ROLES)}
    rows = list(LeagueMember.objects.filter(league=league, left_at__isnull=True).select_related("player"))
    rows.sort(key=lambda row: (order.get(row.role, 9), row.joined_at, row.pk))
    return [{"player": {"id": row.player_id, "name": row.player.name, "bot": row.player.is_bot}, "role": row.role,
             "joined_at": row.joined_at} for row in rows]
