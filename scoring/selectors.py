"""Read paths for results: league standings, table scoreboards, player statistics and history.

Order ("best first") follows the rule set's scoring:
- `points` (house): fewest points first, the league's loser last;
- `wins` (tavern): most wins first (only wins count);
- `ranking` (classic): most wins first, then fewest points (the card points left in hand).
Players with an equal sort key share a position (1, 1, 3 ...). In a league, a player who
resigned it is ranked after everyone who did not (`scoring.services.league_resign`).

Practice rounds (a chosen seed or setup) are in a player's history, marked `practice`, and counted
apart as `practice_rounds`; they never count in a scoreboard's or a player's totals.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count, Q, QuerySet, Sum

from maumau.errors import NotFoundError
from scoring.models import League, PlayerResult, RoundResult, Standing

ORDER_BY = {
    "points": ("points",),
    "wins": ("-wins",),
    "ranking": ("-wins", "points"),
}


def _order(scoring: str) -> tuple[str, ...]:
    return ORDER_BY.get(scoring, ORDER_BY["points"])


def _sort_key(scoring: str, row: dict[str, Any]) -> tuple[int, ...]:
    return tuple(-row[name[1:]] if name.startswith("-") else row[name] for name in _order(scoring))


def _with_positions(scoring: str, rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Number rows already in best-first order; equal sort keys share a position (a resigned
    player never shares one with a player still in)."""
    numbered: list[dict[str, Any]] = []
    previous: tuple[int, ...] | None = None
    position = 0
    for index, row in enumerate(rows, start=1):
        key = (int(bool(row.get("resigned"))), *_sort_key(scoring, row))
        if key != previous:
            position, previous = index, key
        numbered.append({"position": position, **row})
    return numbered


def _player(player_id: int, name: str, is_bot: bool) -> dict[str, Any]:
    return {"id": player_id, "name": name, "bot": is_bot}


def league_get(*, league_id: int) -> League:
    league = League.objects.select_related("loser", "created_by").filter(pk=league_id).first()
    if league is None:
        raise NotFoundError()
    return league


def league_list(*, player: Any = None) -> QuerySet[League]:
    """All leagues, newest first; with `player`, only the leagues they created or played in."""
    leagues = League.objects.select_related("loser", "created_by")
    if player is not None:
        leagues = leagues.filter(Q(created_by=player) | Q(standings__player=player)).distinct()
    return leagues


def league_standings(*, league: League) -> list[dict[str, Any]]:
    """The league table, best first, from the materialized `Standing` rows (one query)."""
    scoring = league.scoring
    limit = league.league_limit
    order = _order(scoring)
    rows = (
        Standing.objects.filter(league_id=league.pk)
        .order_by(*order, "player__name", "player_id")
        .values_list("player_id", "player__name", "player__is_bot", "rounds", "wins", "points", "multiplier_bonus",
                     "resigned")
    )
    lines = [
        {
            "player": _player(player_id, name, is_bot),
            "rounds": rounds,
            "wins": wins,
            "points": points,
            "multiplier_bonus": bonus,
            "reached_limit": bool(limit) and points >= limit,
            "lost": player_id == league.loser_id,
            "resigned": resigned,
        }
        for player_id, name, is_bot, rounds, wins, points, bonus, resigned in rows
    ]
    # The loser has the most points of the round that ended the league, but say so explicitly; who
    # resigned comes after everyone still in (a resigner who lost a house league is both).
    lines.sort(key=lambda line: (line["resigned"], line["lost"]))
    return _with_positions(scoring, lines)


def table_scoreboard(*, table: Any) -> dict[str, Any]:
    """Rounds, wins and points per player of one table ("Nochmal!" rooms), best first.

    Seated players who have not finished a round yet are listed with zeros; practice rounds are
    only counted apart (`practice_rounds`).
    """
    scoring = str((table.options or {}).get("scoring") or "")
    totals = {
        row["player_id"]: row
        for row in PlayerResult.objects.filter(table_id=table.pk, practice=False)
        .values("player_id", "player__name", "player__is_bot")
        .annotate(
            rounds=Count("id"),
            wins=Count("id", filter=Q(won=True)),
            points=Sum("points"),
            multiplier_bonus=Sum("multiplier_bonus"),
        )
    }
    for seat in table.seats.select_related("player").order_by("position"):
        totals.setdefault(
            seat.player_id,
            {
                "player_id": seat.player_id,
                "player__name": seat.player.name,
                "player__is_bot": seat.player.is_bot,
                "rounds": 0,
                "wins": 0,
                "points": 0,
                "multiplier_bonus": 0,
            },
        )
    lines = [
        {
            "player": _player(row["player_id"], row["player__name"], row["player__is_bot"]),
            "rounds": row["rounds"],
            "wins": row["wins"],
            "points": row["points"] or 0,
            "multiplier_bonus": row["multiplier_bonus"] or 0,
        }
        for row in totals.values()
    ]
    lines.sort(key=lambda line: (_sort_key(scoring, line), line["player"]["name"], line["player"]["id"]))
    rounds = dict(RoundResult.objects.filter(table_id=table.pk).values_list("practice").annotate(Count("id")))
    return {
        "table": table.pk,
        "rules": table.rules,
        "scoring": scoring,
        "rounds": rounds.get(False, 0),
        "practice_rounds": rounds.get(True, 0),
        "players": _with_positions(scoring, lines),
    }


def player_stats(*, player: Any) -> dict[str, Any]:
    """Rounds, wins, win rate and points of one player, overall and per rule set, practice left out
    (counted apart); one query."""
    per_rules = {
        (row["rules"], row["practice"]): row
        for row in PlayerResult.objects.filter(player_id=player.pk)
        .values("rules", "practice")
        .annotate(
            rounds=Count("id"),
            wins=Count("id", filter=Q(won=True)),
            points=Sum("points"),
            multiplier_bonus=Sum("multiplier_bonus"),
        )
        .order_by("rules", "practice")
    }
    practice_rounds = sum(row["rounds"] for (_rules, practice), row in per_rules.items() if practice)
    per_rules = {rules: row for (rules, practice), row in per_rules.items() if not practice}

    def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
        rounds = sum(row["rounds"] for row in rows)
        wins = sum(row["wins"] for row in rows)
        points = sum(row["points"] or 0 for row in rows)
        return {
            "rounds": rounds,
            "wins": wins,
            "win_rate": round(wins / rounds, 4) if rounds else 0.0,
            "points": points,
            "average_points": round(points / rounds, 2) if rounds else 0.0,
            "multiplier_bonus": sum(row["multiplier_bonus"] or 0 for row in rows),
        }

    return {
        "player": _player(player.pk, player.name, player.is_bot),
        "practice_rounds": practice_rounds,
        "overall": summary(list(per_rules.values())),
        "by_rules": {
            rules: summary([per_rules[rules]] if rules in per_rules else []) for rules in ("classic", "tavern", "house")
        },
    }


def player_history(*, player: Any) -> QuerySet[PlayerResult]:
    """The player's finished rounds, newest first."""
    return PlayerResult.objects.filter(player_id=player.pk).select_related("round").order_by("-finished_at", "-id")
