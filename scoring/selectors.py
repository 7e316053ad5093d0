"""Read paths for results: league standings, table scoreboards, player statistics and history,
the rating leaderboards and a player's ratings.

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

import base64
import binascii
import math
import struct
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import (
    CharField,
    Count,
    Exists,
    F,
    JSONField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    Window,
)
from django.db.models.functions import Coalesce, RowNumber

from games.models import League, LeagueMember, Seat
from maumau.errors import NotFoundError, ValidationFailed
from scoring.members import league_visible_check
from scoring.models import PlayerResult, RaceStep, Rating, RatingPoint, RoundResult, Season, SheetMark, Standing
from scoring.ratings import INITIAL_MU, INITIAL_RATING, INITIAL_SIGMA, PROVISIONAL_ROUNDS, familiar_rating

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


def _leagues(viewer: Any, season: int | None = None) -> QuerySet[League]:
    """Leagues with the caller's role and the member count (and, for the race, a season's players), in the
    league's own query."""
    members = LeagueMember.objects.filter(league=OuterRef("pk"), left_at__isnull=True)
    count = members.order_by().values("league").annotate(count=Count("id")).values("count")
    leagues = League.objects.select_related("loser", "created_by").annotate(
        member_count=Coalesce(Subquery(count), 0),
        your_role=Subquery(members.filter(player=viewer).values("role")[:1]) if viewer is not None
        else Value(None, output_field=CharField()))
    if season is not None:
        number = OuterRef("season") if season == 0 else season
        leagues = leagues.annotate(season_players=Subquery(
            Season.objects.filter(league=OuterRef("pk"), number=number).values("players")[:1],
            output_field=JSONField()))
    return leagues


def league_get(*, league_id: int, viewer: Any = None, race_season: int | None = None) -> League:
    """One league as `viewer` sees it: 404 when it does not exist, or is private and they are not a member.
    `race_season` (0: the current one) reads that season's players with it."""
    league = _leagues(viewer, race_season).filter(pk=league_id).first()
    return league_visible_check(league=league, role=league.your_role if league is not None else None)


def league_list(*, player: Any, mine: bool = False) -> QuerySet[League]:
    """Public leagues and the caller's own (member of), newest first; with `mine`, only their own."""
    leagues = _leagues(player)
    if mine:
        return leagues.filter(your_role__isnull=False)
    return leagues.filter(Q(visibility="public") | Q(your_role__isnull=False))


def league_standings(*, league: League, season: int | None = None) -> list[dict[str, Any]]:
    """A season's league table (the current one by default), best first, from the materialized `Standing`
    rows (one query: who lost a past season comes with it)."""
    scoring = league.scoring
    limit = league.league_limit
    number = league.season if season is None else season
    order = _order(scoring)
    member_rating = Rating.objects.filter(player_id=OuterRef("player_id"), rules=league.rules)
    lost = Exists(Season.objects.filter(league_id=league.pk, number=number, loser_id=OuterRef("player_id")))
    rows = (
        Standing.objects.filter(league_id=league.pk, season=number)
        .annotate(rating=Subquery(member_rating.values("rating")[:1]),
                  rated_rounds=Subquery(member_rating.values("rounds")[:1]), lost=lost)
        .order_by(*order, "player__name", "player_id")
        .values_list("player_id", "player__name", "player__is_bot", "rounds", "wins", "points", "multiplier_bonus",
                     "resigned", "rating", "rated_rounds", "lost", "biggest_round")
    )
    lines = [
        {
            "player": _player(player_id, name, is_bot),
            "rounds": rounds,
            "wins": wins,
            "points": points,
            "multiplier_bonus": bonus,
            "reached_limit": bool(limit) and points >= limit,
            "lost": bool(lost),
            "resigned": resigned,
            "rating": rating,
            "display_rating": None if rating is None else familiar_rating(rating),
            "rating_provisional": (rated_rounds or 0) < PROVISIONAL_ROUNDS,
            "average_points": round(points / rounds, 2) if rounds else 0.0,
            "biggest_round": biggest,
        }
        for player_id, name, is_bot, rounds, wins, points, bonus, resigned, rating, rated_rounds, lost, biggest in rows
    ]
    # The loser has the most points of the round that ended the season, but say so explicitly; who
    # resigned comes after everyone still in (a resigner who lost a house league is both).
    lines.sort(key=lambda line: (line["resigned"], line["lost"]))
    return _with_positions(scoring, lines)


def _season_corrections() -> Subquery:
    """The corrections counted in the outer season: its race steps whose entry corrects another."""
    steps = (RaceStep.objects.filter(league_id=OuterRef("league_id"), season=OuterRef("number"),
                                     round__corrects__isnull=False)
             .order_by().values("league_id").annotate(n=Count("pk")).values("n"))
    return Subquery(steps[:1])


def league_seasons(*, league: League) -> list[dict[str, Any]]:
    """Every season of the league, oldest first (one query)."""
    seasons = Season.objects.filter(league=league).select_related("loser").annotate(corrections=_season_corrections())
    return [season_data(season) for season in seasons]


def season_data(season: Season) -> dict[str, Any]:
    """A season's line. A correction is a step of the race but not a round played: `rounds` counts the
    rounds that count (as the standings do), `corrections` the corrections among the race's `steps`."""
    loser = season.loser
    corrections = getattr(season, "corrections", None)
    if corrections is None:
        corrections = RaceStep.objects.filter(league_id=season.league_id, season=season.number,
                                              round__corrects__isnull=False).count()
    return {"number": season.number, "status": season.status, "started_at": season.started_at,
            "finished_at": season.finished_at,
            "loser": _player(loser.pk, loser.name, loser.is_bot) if loser is not None else None,
            "rounds": season.steps - corrections, "corrections": corrections, "steps": season.steps}


def season_get(*, league: League, number: int) -> Season:
    season = Season.objects.select_related("loser").filter(league=league, number=number).first()
    if season is None:
        raise NotFoundError()
    return season


def league_race(*, league: League, season: int, after: int, limit: int) -> dict[str, Any]:
    """The points of every season player after each counted round, from step `after` on (one query: the
    players came with the league, `league_get(race_season=...)`)."""
    number = season
    steps = list(RaceStep.objects.filter(league_id=league.pk, season=number, step__gt=after).order_by("step")
                 .values_list("step", "round_id", "totals", "round__corrects_id")[: limit + 1])
    more = len(steps) > limit
    steps = steps[:limit]
    return {
        "season": number,
        "limit": league.league_limit or None,
        "players": list(getattr(league, "season_players", None) or []),
        "results": [{"round": step, "id": round_id, "totals": totals, "corrects": corrects}
                    for step, round_id, totals, corrects in steps],
        "next": steps[-1][0] if more else None,
    }


def _rounds_read() -> QuerySet[RoundResult]:
    return (RoundResult.objects.select_related("recorded_by", "corrects")
              .prefetch_related(Prefetch("players", queryset=PlayerResult.objects.select_related("player")
                                         .order_by("seat")),
                                Prefetch("corrects__players", queryset=PlayerResult.objects.select_related("player")
                                         .filter(won=False)),
                                Prefetch("marks", queryset=SheetMark.objects.select_related("player")
                                         .filter(kind__in=("agree", "confirm", "dispute")).order_by("id"))))


def league_round(*, round_id: int) -> dict[str, Any]:
    """One league round as the sheet shows it."""
    return round_data(_rounds_read().get(pk=round_id))


def league_rounds(*, league: League, season: int, after: int, limit: int | None) -> dict[str, Any]:
    """A season's rounds, played and recorded mixed, in ledger order, each with its lines and confirmations."""
    rounds = _rounds_read().filter(league_id=league.pk, season=season, id__gt=after).order_by("id")
    page = list(rounds[: limit + 1]) if limit is not None else list(rounds)
    more = limit is not None and len(page) > limit
    page = page[:limit] if limit is not None else page
    return {"results": [round_data(r) for r in page], "next": page[-1].pk if more else None}


def _waiting_for(r: RoundResult) -> list[Any]:
    """The players a pending recorded round still needs: everyone it, or the entry it corrects, scores (all but
    the winner), but its recorder and those who confirmed it (`scoring.sheet`)."""
    if r.source != "recorded" or r.status != RoundResult.PENDING:
        return []
    scored = {line.player_id: line.player for line in r.players.all() if not line.won}
    if r.corrects is not None:
        scored.update({line.player_id: line.player for line in r.corrects.players.all()})
    agreed = {mark.player_id for mark in r.marks.all() if mark.kind in ("agree", "confirm")}
    return [player for pid, player in sorted(scored.items()) if pid != r.recorded_by_id and pid not in agreed]


def round_data(r: RoundResult) -> dict[str, Any]:
    def ref(player: Any) -> dict[str, Any] | None:
        return None if player is None else _player(player.pk, player.name, player.is_bot)

    return {
        "id": r.pk, "season": r.season, "source": r.source, "status": r.status, "game": r.game_id,
        "recorded_by": ref(r.recorded_by), "corrects": r.corrects_id, "winner": r.winner_id,
        "multiplier": r.multiplier, "finished_at": r.finished_at,
        "players": [{"player": ref(line.player), "seat": line.seat, "rank": line.rank, "cards_left": line.cards_left,
                     "raw_points": line.raw_points, "points": line.points, "won": line.won}
                    for line in r.players.all()],
        # Every confirmation reads `confirm`, whether it was the one that made the round count or not.
        "confirmations": [{"kind": "dispute" if mark.kind == "dispute" else "confirm", "player": ref(mark.player),
                           "at": mark.at} for mark in r.marks.all()],
        "waiting_for": [ref(player) for player in _waiting_for(r)],
    }


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
        # a round recorded on a league's sheet (no table) is not in a player's statistics
        for row in PlayerResult.objects.filter(player_id=player.pk, table_id__isnull=False)
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


def player_history(*, player: Any, viewer: Any = None) -> QuerySet[PlayerResult]:
    """The player's finished rounds played through the service, newest first (a round recorded on a league's
    sheet is on that sheet). Another ``viewer`` does not see the rounds of private tables (a private
    league's among them) unless they sat at the table or are a current member of its league."""
    rows = PlayerResult.objects.filter(player_id=player.pk, table_id__isnull=False)
    if viewer is not None and viewer.pk != player.pk:
        seated = Seat.objects.filter(player_id=viewer.pk).values("table_id")
        member_of = LeagueMember.objects.filter(player_id=viewer.pk, left_at__isnull=True).values("league_id")
        rows = rows.exclude(Q(table__visibility="private") & ~Q(table_id__in=seated)
                            & ~Q(league_id__in=member_of, league_id__isnull=False))
    return rows.select_related("round").order_by("-finished_at", "-id")


# --- ratings -----------------------------------------------------------------------------------------

RATING_RULES = ("classic", "tavern", "house")
#: A leaderboard cursor: the last row's rating (a double), player id and position, and which listing
#: it belongs to (rule set and people-only), packed and base64url-encoded: 28 characters.
_CURSOR = struct.Struct(">dQIB")


def _listing(rules: str, people_only: bool) -> int:
    return RATING_RULES.index(rules) * 2 + int(people_only)


def leaderboard_cursor(*, rules: str, people_only: bool, rating: float, player_id: int, position: int) -> str:
    packed = _CURSOR.pack(rating, player_id, position, _listing(rules, people_only))
    return base64.urlsafe_b64encode(packed).decode()


def leaderboard_cursor_read(cursor: str, *, rules: str, people_only: bool) -> tuple[float, int, int]:
    """(rating, player id, position) of the row a page ends with; 400 for a cursor this listing did not give."""
    try:
        rating, player_id, position, listing = _CURSOR.unpack(base64.urlsafe_b64decode(cursor.encode("ascii")))
    except (ValueError, UnicodeEncodeError, struct.error, binascii.Error):
        listing, rating = -1, math.nan
    if listing != _listing(rules, people_only) or not math.isfinite(rating) or player_id >= 2**63:
        raise ValidationFailed(details={"field": "after", "reason": "a cursor from this leaderboard's `next`"})
    return rating, player_id, position


def leaderboard_query(*, rules: str, people_only: bool, limit: int, after: tuple[float, int, int] | None
                      ) -> QuerySet[Rating]:
    """The rows of a leaderboard page and one more (whether a next page exists), as tuples of
    (player id, name, bot, rating, mu, sigma, rounds), best first (the conservative value, then player id).

    The one index (rules, bot, rating, player) holds people and bots apart: people only is one of its
    ranges; everyone is both ranges' first `limit + 1` rows merged (UNION ALL), on a database that orders
    and limits inside a compound statement (PostgreSQL). SQLite, the small embedded default, sorts the
    rule set's ratings instead."""
    # A provisional rating (too few rated rounds, see scoring.ratings) is not on the board: a new account
    # shows no rank until it has played enough.
    rows = Rating.objects.filter(rules=rules, rounds__gte=settings.MAUMAU_LEADERBOARD_MIN_ROUNDS)
    if after is not None:
        rating, player_id, _position = after
        # rating <= the cursor's is the index range; the OR only drops the equal ratings already shown.
        rows = rows.filter(Q(rating__lt=rating) | Q(rating=rating, player_id__gt=player_id), rating__lte=rating)
    ranked = ("-rating", "player_id")

    def page_of(board: QuerySet[Rating]) -> QuerySet[Rating]:
        return board.order_by(*ranked).values_list(
            "player_id", "player__name", "bot", "rating", "mu", "sigma", "rounds")[: limit + 1]

    if people_only:
        return page_of(rows.filter(bot=False))
    if connection.features.supports_slicing_ordering_in_compound:
        people, bots = page_of(rows.filter(bot=False)), page_of(rows.filter(bot=True))
        return people.union(bots, all=True).order_by(*ranked)[: limit + 1]
    return page_of(rows)


def leaderboard(*, rules: str, people_only: bool, limit: int, after: tuple[float, int, int] | None
                ) -> tuple[list[dict[str, Any]], str | None]:
    """One page of the rule set's leaderboard and the cursor of the next page. Keyset pagination: a
    page is one index range scan (two merged for everyone) wherever it starts (no OFFSET to skip, no
    COUNT over the board); each row's position is carried by the cursor."""
    position = after[2] if after is not None else 0
    found = list(leaderboard_query(rules=rules, people_only=people_only, limit=limit, after=after))
    page = [
        {
            "position": position + index,
            "player": _player(player_id, name, bot),
            "rating": rating,
            "display_rating": familiar_rating(rating),
            "mu": mu,
            "sigma": sigma,
            "rounds": rounds,
            "provisional": rounds < PROVISIONAL_ROUNDS,
        }
        for index, (player_id, name, bot, rating, mu, sigma, rounds) in enumerate(found[:limit], start=1)
    ]
    following = None
    if len(found) > limit and page:
        last = page[-1]
        following = leaderboard_cursor(rules=rules, people_only=people_only, rating=last["rating"],
                                       player_id=last["player"]["id"], position=last["position"])
    return page, following


def player_ratings(*, player: Any, history: int) -> dict[str, Any]:
    """A player's rating under each rule set (the initial one where they have no rated round), each
    with its `history` newest points, oldest first: two queries."""
    stored = {rating.rules: rating for rating in Rating.objects.filter(player_id=player.pk)}
    points: dict[str, list[dict[str, Any]]] = {rules: [] for rules in RATING_RULES}
    if stored and history:
        newest = Window(RowNumber(), partition_by=[F("rules")], order_by=F("round_id").desc())
        rows = (
            RatingPoint.objects.filter(player_id=player.pk)
            .annotate(newest=newest)
            .filter(newest__lte=history)
            .order_by("rules", "round_id")
            .values_list("rules", "round__game_id", "round__finished_at", "rank", "mu", "sigma", "rating")
        )
        for rules, game_id, finished_at, rank, mu, sigma, rating in rows:
            points[rules].append({"game": game_id, "finished_at": finished_at, "rank": rank, "rating": rating,
                                  "display_rating": familiar_rating(rating), "mu": mu, "sigma": sigma})

    def of(rules: str) -> dict[str, Any]:
        rating = stored.get(rules)
        mu, sigma, rounds = (rating.mu, rating.sigma, rating.rounds) if rating else (INITIAL_MU, INITIAL_SIGMA, 0)
        value = rating.rating if rating else INITIAL_RATING
        return {"rating": value, "display_rating": familiar_rating(value), "mu": mu, "sigma": sigma, "rounds": rounds,
                "provisional": rounds < PROVISIONAL_ROUNDS, "history": points[rules]}

    return {"player": _player(player.pk, player.name, player.is_bot),
            "provisional_rounds": PROVISIONAL_ROUNDS,
            "ratings": {rules: of(rules) for rules in RATING_RULES}}


def round_rating_changes(*, game_id: int) -> dict[int, dict[str, Any]]:
    """What a finished round did to its players' ratings, by player id (empty: the round was not rated):
    the shown rating before and after it, the change, and whether it is still provisional. One query:
    each player's point of this round and the point before it under the same rules (the history index)."""
    earlier = RatingPoint.objects.filter(player_id=OuterRef("player_id"), rules=OuterRef("rules"),
                                         round_id__lt=OuterRef("round_id"))
    rows = (
        RatingPoint.objects.filter(round__game_id=game_id)
        .annotate(before=Subquery(earlier.order_by("-round_id").values("rating")[:1]),
                  earlier_rounds=Coalesce(Subquery(earlier.order_by().values("player_id")
                                                   .annotate(n=Count("pk")).values("n")[:1]), 0))
        .values_list("player_id", "rating", "before", "earlier_rounds")
    )
    changes = {}
    for player_id, after, before, earlier_rounds in rows:
        shown_before = familiar_rating(INITIAL_RATING if before is None else before)
        shown_after = familiar_rating(after)
        changes[player_id] = {"before": shown_before, "after": shown_after, "change": shown_after - shown_before,
                              "provisional": earlier_rounds + 1 < PROVISIONAL_ROUNDS}
    return changes


def view_with_rating_changes(view: dict[str, Any]) -> dict[str, Any]:
    """A round's view (``games.selectors.game_view``) with, once it is finished, each result line's rating
    change (`rating`): scoring keeps the ratings, the games layer that draws the view cannot read them."""
    result = view.get("result")
    if view.get("status") != "finished" or not result:
        return view
    if view.get("practice"):  # never rated: no query
        for line in result.get("players", []):
            line["rating"] = None
        return view
    changes = round_rating_changes(game_id=view["id"])
    for line in result.get("players", []):
        line["rating"] = changes.get(line["player"])
    return view
