"""Helpers for the scoresheet tests: a league with members and a scorekeeper, and recorded rounds."""

from __future__ import annotations

from typing import Any

from games.models import League, LeagueMember, Player
from scoring.models import RoundResult, Standing
from scoring.services import SheetLine, league_create, round_confirm, round_record


def sheet_league(owner: Player, members: list[Player], **settings: Any) -> League:
    """A house league owned by `owner`, every player of `members` a member."""
    options = settings.pop("options", {})
    league = league_create(name="Stammtisch", rules=settings.pop("rules", "house"), options=options,
                           created_by=owner, **settings)
    LeagueMember.objects.bulk_create([LeagueMember(league=league, player=player) for player in members])
    return league


def line(player: Player, cards: list[str] | None = None, points: int | None = None) -> SheetLine:
    return SheetLine(player_id=player.pk, cards=cards, points=points)


def recorded(league: League, keeper: Player, lines: list[SheetLine], winner: Player, extra_jacks: int = 0,
             confirm_by: Player | None = None, corrects: int | None = None) -> RoundResult:
    """Record a round and, with `confirm_by`, have that player confirm it."""
    round_result = round_record(league_id=league.pk, by=keeper, lines=lines, winner_id=winner.pk,
                                extra_jacks=extra_jacks, corrects=corrects)
    if confirm_by is not None:
        round_confirm(league_id=league.pk, round_id=round_result.pk, player=confirm_by)
    round_result.refresh_from_db()
    return round_result


def totals(league: League, season: int | None = None) -> dict[int, int]:
    league.refresh_from_db()
    return dict(Standing.objects.filter(league=league, season=season or league.season)
                .values_list("player_id", "points"))
