"""Scoring use cases: create a league, guard it, record a finished round, resign a league,
recompute standings.

The engine already scores a round (`state.result`); this module persists that result once,
in the transaction of the last move, and keeps the league totals (`Standing`) in step.

Concurrency: every write that touches a league's totals first locks the league row
(`select_for_update`). Two tables of one league that finish at the same moment are therefore
applied one after the other, the totals use `F()` increments, and the house limit is judged
on totals that include every earlier round exactly once. Ledger ids are allocated under
that lock, so id order is the order in which rounds were counted (the recompute replays it).
A resignation is written under the same lock and names the last round before it.

A use case that is its own transaction is ``database_retry.written_once_more``: it runs once more
when its session dies before the commit.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import F, Max
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import engine
from games.models import League, LeagueMember, Player, Seat
from games.rule_sets import rule_set_from
from maumau import database_retry
from maumau.errors import DomainError, NotFoundError, PermissionDeniedError, ValidationFailed
from scoring import ratings
from scoring.models import LeagueResignation, PlayerResult, RacePoint, RoundResult, RoundVerdict, Season, Standing
from streams import services as stream_services


@database_retry.written_once_more
def league_create(*, name: str, rules: str, options: dict[str, Any] | None = None, created_by: Any = None,
                  visibility: str = "public", next_season: str = "owner",
                  confirmation: str = "another_player") -> League:
    """Create a league; its options are validated and stored as effective options, as for tables.

    The creator owns it (a `LeagueMember` with role `owner`) and its first season starts now.
    """
    name = (name or "").strip()
    if not name:
        raise DomainError("validation_error", _("A league needs a name."), 400, {"name": "required"})
    rule_set = rule_set_from(rules, options)  # the same validation and error as table options
    league = League.objects.create(name=name, rules=rule_set.name, options=rule_set.to_json(), created_by=created_by,
                                   visibility=visibility, next_season=next_season, confirmation=confirmation,
                                   invite_code=secrets.token_urlsafe(12))
    if created_by is not None:
        LeagueMember.objects.create(league=league, player=created_by, role="owner")
    Season.objects.create(league=league, number=1, started_at=league.created_at)
    return league


def league_assert_open(*, league: League | None) -> None:
    """Refuse a new round in a finished league (409 `league_finished`); called by `round_start`."""
    if league is not None and league.status == League.STATUS_FINISHED:
        raise DomainError(
            "league_finished",
            _("This league is finished: a player has reached the limit or resigned it. No more rounds can be "
              "started in it."),
            409,
            {"league": league.pk, "loser": league.loser_id},
        )


def limit_loser(limit: int, crossing: Iterable[tuple[int, int, int, int, int]]) -> int | None:
    """Pick the league's loser among the players of one round whose total reached `limit`.

    `crossing` holds (total, round_points, rank, seat, player_id) for the players of the round
    just counted; only they can have reached the limit, since nobody had before (the league
    would be finished). "Reached" means total >= limit. When a round takes several players
    past the limit, the one with the most points in total loses; on equal totals the one who
    scored more in that round (they pushed hardest past the line), then the worse rank of the
    round, then the higher seat, so the outcome never depends on query order.
    """
    reached = [line for line in crossing if limit and line[0] >= limit]
    if not reached:
        return None
    return max(reached)[4]


@transaction.atomic(savepoint=False)
def round_result_record(*, game: Any, seat_players: dict[int, int] | None = None,
                        bots: set[int] | None = None) -> RoundResult:
    """`round_result_counted`, and its rating moves written at once: a finished round recorded on its own."""
    round_result, rating_moves = round_result_counted(game=game, seat_players=seat_players, bots=bots)
    if rating_moves is not None:
        ratings.rating_moves_write(rating_moves)
    return round_result


@transaction.atomic(savepoint=False)
def round_result_counted(*, game: Any, seat_players: dict[int, int] | None = None, bots: set[int] | None = None,
                         ) -> tuple[RoundResult, ratings.RatingMoves | None]:
    """Write a finished round's result to the ledger once and count it in its league; return it with
    the moves of its players' ratings, which the caller writes in the same transaction (None for a
    round not rated).

    Called by the move pipeline (`play`) inside the transaction of the last move, with the round's
    players by game seat (`seat_players`; read from the table's seats when not given) and which of
    them are bots (`bots`; read from the players when not given); the pipeline writes the rating
    moves in the move's own statement. A second call for the same game returns the row already
    written (unique per game) and no rating moves. No savepoint of its own: a failure here fails the
    whole move, as it must.

    Multiplier bonus: for the winner of a round, `multiplier - 1`, i.e. the extra jacks laid
    on the last card (house `final_jacks`); 0 for everyone else and in the other rule sets.
    A player's league bonus is the sum over their wins: how many extra multiples of their
    opponents' hands they inflicted.
    """
    table = game.table
    league = None
    if table.league_id is not None:
        league = League.objects.select_for_update().get(pk=table.league_id)
    rules_name = game.rules["rules"]
    if seat_players is None:
        position_players = dict(Seat.objects.filter(table_id=table.pk).values_list("position", "player_id"))
        # Game seat i sits at table position game.positions[i].
        seat_players = {seat: position_players[position] for seat, position in enumerate(game.positions)}
    practice = bool(game.practice)
    if bots is None:
        bots = set(Player.objects.filter(pk__in=seat_players.values(), is_bot=True).values_list("pk", flat=True))
    # The ratings are locked before the ledger row takes its id (rounds that share a player are rated in
    # id order). The lock skips a round already written; only a round it did not lock may be one.
    locked_ratings = ratings.ratings_locked(game=game, practice=practice, rules=rules_name,
                                            seat_players=seat_players, bots=bots)
    if not locked_ratings:
        existing = RoundResult.objects.filter(game_id=game.pk).first()
        if existing is not None:
            return existing, None

    result = game.result
    if not result:
        raise ValueError(f"game {game.pk} has no result to record")
    scoring = game.rules["scoring"]
    round_multiplier = result["multiplier"]
    finished_at = game.finished_at or timezone.now()
    counted = not practice and (league is None or league.status == League.STATUS_ACTIVE)
    season = league.season if league is not None else 1
    rated = bool(locked_ratings)

    round_result = RoundResult(
        game=game,
        table=table,
        league=league,
        number=game.number,
        rules=rules_name,
        scoring=scoring,
        reason=result["reason"],
        winner_id=seat_players.get(result["winner"]),
        multiplier=round_multiplier,
        counted=counted,
        practice=practice,
        rated=rated,
        finished_at=finished_at,
        season=season,
    )
    round_result.save()
    lines = player_results(round_result=round_result, result=result, seat_players=seat_players,
                           table_id=table.pk, league=league, rules=rules_name, finished_at=finished_at)
    if league is not None and counted:
        _step_count(league=league, round_result=round_result, add=lines, at=finished_at, saved=False)
    PlayerResult.objects.bulk_create(lines)
    if not rated:
        return round_result, None
    return round_result, ratings.round_rate(round_result=round_result, lines=lines, ratings=locked_ratings)


def player_results(*, round_result: RoundResult, result: dict[str, Any], seat_players: dict[int, int],
                   table_id: int | None, league: League | None, rules: str, finished_at: Any) -> list[PlayerResult]:
    """The ledger lines of one round, one per seat, from the engine's result (unsaved)."""
    return [
        PlayerResult(
            round=round_result,
            player_id=seat_players[line["seat"]],
            table_id=table_id,
            league=league,
            rules=rules,
            seat=line["seat"],
            rank=line["rank"],
            cards_left=line["cards_left"],
            raw_points=line["raw_points"],
            multiplier=line["multiplier"],
            points=line["points"],
            won=bool(line["won"]),
            multiplier_bonus=result["multiplier"] - 1 if line["won"] else 0,
            practice=round_result.practice,
            counted=False,
            finished_at=finished_at,
        )
        for line in result["players"]
    ]


def _step_count(*, league: League, round_result: RoundResult, add: list[PlayerResult], at: Any,
                remove: list[PlayerResult] | None = None, saved: bool = True) -> None:
    """Count one step of the current season: a round's lines, less the lines of the round it corrects.

    Sets each added line's `counted` (a withdrawn player's line is not); the lines are saved by the
    caller when `saved` is False (a played round's, written after this). Writes the step's race points
    and ends the season if someone reached the limit. The caller holds the league row lock.
    """
    remove = [line for line in remove or [] if line.counted]
    season = league.season
    players = list(dict.fromkeys([line.player_id for line in add] + [line.player_id for line in remove]))
    Standing.objects.bulk_create([Standing(league=league, season=season, player_id=player_id) for player_id in players],
                                 ignore_conflicts=True)
    current = {
        player_id: (points, resigned)
        for player_id, points, resigned in Standing.objects.filter(
            league=league, season=season, player_id__in=players).values_list("player_id", "points", "resigned")
    }
    delta = {player_id: {"rounds": 0, "wins": 0, "points": 0, "multiplier_bonus": 0, "best": 0}
             for player_id in players}
    for line in remove:
        change = delta[line.player_id]
        change["rounds"] -= 1
        change["wins"] -= int(line.won)
        change["points"] -= line.points
        change["multiplier_bonus"] -= line.multiplier_bonus
    for line in add:
        # A player who resigned the league's season is withdrawn: no later line of theirs counts in it.
        line.counted = not current[line.player_id][1]
        if line.counted:
            change = delta[line.player_id]
            change["rounds"] += 1
            change["wins"] += int(line.won)
            change["points"] += line.points
            change["multiplier_bonus"] += line.multiplier_bonus
            change["best"] = max(change["best"], line.points)
    now = timezone.now()
    if saved:
        if remove:
            PlayerResult.objects.filter(pk__in=[line.pk for line in remove]).update(counted=False)
        PlayerResult.objects.filter(pk__in=[line.pk for line in add if line.counted]).update(counted=True)
    removed_players = {line.player_id for line in remove}
    for player_id, change in delta.items():
        if not any(change.values()) and player_id not in removed_players:
            continue
        updates: dict[str, Any] = {
            "rounds": F("rounds") + change["rounds"],
            "wins": F("wins") + change["wins"],
            "points": F("points") + change["points"],
            "multiplier_bonus": F("multiplier_bonus") + change["multiplier_bonus"],
            "updated_at": now,
        }
        if player_id in removed_players:
            updates["best_round"] = _best_round(league=league, season=season, player_id=player_id)
        elif change["best"]:
            updates["best_round"] = Greatest(F("best_round"), change["best"])
        Standing.objects.filter(league=league, season=season, player_id=player_id).update(**updates)
    totals = {player_id: current[player_id][0] + delta[player_id]["points"] for player_id in players}
    league.steps += 1
    RacePoint.objects.bulk_create([
        RacePoint(league=league, season=season, step=league.steps, round_id=round_result.pk, player_id=player_id,
                  points=totals[player_id])
        for player_id in players
    ])
    League.objects.filter(pk=league.pk).update(steps=league.steps)
    loser = limit_loser(
        league.league_limit,
        [(totals[line.player_id], line.points, line.rank, line.seat, line.player_id) for line in add if line.counted],
    )
    if loser is not None:
        _season_end(league=league, loser_id=loser, ended_by="limit", at=at, after_round_id=round_result.pk)


def _best_round(*, league: League, season: int, player_id: int) -> int:
    best = PlayerResult.objects.filter(league=league, round__season=season, player_id=player_id,
                                       counted=True).aggregate(best=Max("points"))["best"]
    return int(best or 0)


def _season_end(*, league: League, loser_id: int | None, ended_by: str, at: Any, after_round_id: int | None) -> None:
    """End the current season (the league row is locked): its standings stay as they are, its loser is named,
    rounds still pending on its sheet are void, and with `next_season` `auto` the next one starts at once."""
    Season.objects.update_or_create(
        league=league, number=league.season,
        defaults={"ended_at": at, "ended_by": ended_by, "loser_id": loser_id, "after_round_id": after_round_id},
        create_defaults={"started_at": league.created_at, "ended_at": at, "ended_by": ended_by, "loser_id": loser_id,
                         "after_round_id": after_round_id},
    )
    RoundResult.objects.filter(league=league, season=league.season, sheet="pending").update(sheet="void")
    league.status, league.loser_id, league.finished_at = League.STATUS_FINISHED, loser_id, at
    league.save(update_fields=["status", "loser", "finished_at"])
    if league.next_season == "auto":
        _season_begin(league=league, at=at)


def _season_begin(*, league: League, at: Any) -> None:
    league.season += 1
    league.status, league.loser_id, league.finished_at, league.steps = League.STATUS_ACTIVE, None, None, 0
    league.save(update_fields=["season", "status", "loser", "finished_at", "steps"])
    Season.objects.create(league=league, number=league.season, started_at=at)


def _last_round_id(league: League) -> int | None:
    return RoundResult.objects.filter(league=league).order_by("-id").values_list("id", flat=True).first()


def _league_locked(league_id: int, player: Any = None) -> League:
    """The locked league, 404 when unknown or (private) when `player` is not a member of it."""
    league = League.objects.select_for_update().filter(pk=league_id).first()
    if league is None or (league.visibility == "private" and _membership(league, player) is None):
        raise NotFoundError()
    return league


def _membership(league: League, player: Any) -> LeagueMember | None:
    if player is None:
        return None
    return LeagueMember.objects.filter(league=league, player_id=player.pk, left_at__isnull=True).first()


@database_retry.written_once_more
def league_resign(*, league_id: int, player: Any) -> League:
    """A player with a counted round in the league's current season leaves that season for good.

    - With a limit (`house`, `league_limit`): the resigner loses the season at once, as if they had
      reached the limit: it finishes with them as `loser`, and a round still running at one
      of its tables is recorded but not counted, like any round that ends after the season did.
    - Without one: the resigner is withdrawn from the season. Their standing keeps what they had scored,
      is marked `resigned` and is ranked last; no line of theirs recorded after the resignation counts
      in the season (their rounds still count for the others, and in their own history and
      statistics). Tables do not refuse them: one rule, applied where results are counted, that the
      replay applies the same way. The next season they play afresh.

    Either way a `LeagueResignation` row is written under the league lock, after the league's last
    recorded round, so `standings_replay` meets it in order with the rounds. A running round is not
    resigned by this: `{"type": "resign"}` does that. 404 for an unknown league, 403 for a
    non-member, 409 once the season is finished or the caller has already resigned it.
    """
    league = _league_locked(league_id, player)
    standing = Standing.objects.filter(league=league, season=league.season, player_id=player.pk).first()
    if standing is None:
        raise PermissionDeniedError(
            message=_("Only a player with a counted round in this league can resign it."),
            details={"league": league.pk, "reason": "not_a_member"},
        )
    if standing.resigned:
        raise DomainError("league_resigned", _("You have already resigned this league."), 409,
                          {"league": league.pk})
    if league.status == League.STATUS_FINISHED:
        raise DomainError("league_finished", _("This league is finished: it can no longer be resigned."), 409,
                          {"league": league.pk, "loser": league.loser_id})
    now = timezone.now()
    last_round = _last_round_id(league)
    LeagueResignation.objects.create(league=league, season=league.season, player_id=player.pk,
                                     after_round_id=last_round, resigned_at=now)
    Standing.objects.filter(pk=standing.pk).update(resigned=True, updated_at=now)
    if league.league_limit:
        _season_end(league=league, loser_id=player.pk, ended_by="resigned", at=now, after_round_id=last_round)
        transaction.on_commit(functools.partial(stream_services.league_over, league_id=league.pk), robust=True)
    return league


# --- members ------------------------------------------------------------------------------------


def _not_a_member(league: League) -> PermissionDeniedError:
    return PermissionDeniedError(
        message=_("Only the league's members play at its tables and appear on its sheet."),
        details={"league": league.pk, "reason": "not_a_member"},
    )


def league_seat_check(*, league: League | None, player: Any, seated_by: Any = None) -> None:
    """Let `player` sit at a table of `league` (at table creation, joining, and the host seating a bot).

    Members play; a bot plays when a member seats it (`seated_by`). Decision for a non-member: in a
    public league they join it on the way (anyone may join a public league, so refusing would only add a
    step), in a private one they are refused (403 `not_a_member`): they need its invite code first.
    Runs inside the caller's transaction; no lock on the league (a membership row is the player's own).
    """
    if league is None:
        return
    if getattr(player, "is_bot", False) and seated_by is not None:
        player = seated_by
    membership = LeagueMember.objects.filter(league=league, player_id=player.pk).first()
    if membership is not None and membership.left_at is None:
        return
    if league.visibility != "public" or getattr(player, "is_bot", False):
        raise _not_a_member(league)
    if membership is None:
        LeagueMember.objects.create(league=league, player_id=player.pk, role="member")
    else:
        LeagueMember.objects.filter(pk=membership.pk).update(left_at=None, joined_at=timezone.now(), role="member")


@database_retry.written_once_more
def league_join(*, league_id: int, player: Any, invite_code: str | None = None) -> LeagueMember:
    """Join a league: a public one with or without its invite code, a private one only with it (404 without:
    it is not shown to outsiders). A member who left joins again; 409 `already_member` for an active one."""
    league = League.objects.select_for_update().filter(pk=league_id).first()
    has_code = isinstance(invite_code, str) and bool(league and league.invite_code) and secrets.compare_digest(
        invite_code, league.invite_code if league else "")
    if league is None or (league.visibility == "private" and not has_code and _membership(league, player) is None):
        raise NotFoundError()
    membership = LeagueMember.objects.filter(league=league, player_id=player.pk).first()
    if membership is not None and membership.left_at is None:
        raise DomainError("already_member", _("You are already a member of this league."), 409, {"league": league.pk})
    if membership is None:
        return LeagueMember.objects.create(league=league, player_id=player.pk, role="member")
    membership.left_at, membership.joined_at, membership.role = None, timezone.now(), "member"
    membership.save(update_fields=["left_at", "joined_at", "role"])
    return membership


@database_retry.written_once_more
def league_leave(*, league_id: int, player: Any) -> LeagueMember:
    """Leave a league: no more seats at its tables nor lines on its sheet; rounds already written stay,
    and so do the standings. The owner cannot leave (409 `owner_cannot_leave`)."""
    league = _league_locked(league_id, player)
    membership = _membership(league, player)
    if membership is None:
        raise _not_a_member(league)
    if membership.role == "owner":
        raise DomainError("owner_cannot_leave", _("The owner cannot leave the league."), 409, {"league": league.pk})
    membership.left_at = timezone.now()
    membership.save(update_fields=["left_at"])
    return membership


@database_retry.written_once_more
def league_role_set(*, league_id: int, by: Any, player_id: int, role: str) -> LeagueMember:
    """The owner names a member scorekeeper (`scorekeeper`) or makes them a plain `member` again."""
    league = _league_locked(league_id, by)
    _owner_check(league, by)
    membership = LeagueMember.objects.filter(league=league, player_id=player_id, left_at__isnull=True).first()
    if membership is None:
        raise ValidationFailed(message=_("That player is not a member of this league."),
                               details={"field": "player", "reason": "not_a_member"})
    if membership.role == "owner":
        raise DomainError("owner_role", _("The owner's role does not change."), 409, {"league": league.pk})
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


def _owner_check(league: League, player: Any) -> None:
    membership = _membership(league, player)
    if membership is None or membership.role != "owner":
        raise PermissionDeniedError(message=_("Only the league's owner may do this."),
                                    details={"league": league.pk, "reason": "not_the_owner"})


# --- seasons ------------------------------------------------------------------------------------


@database_retry.written_once_more
def season_start(*, league_id: int, by: Any) -> League:
    """The owner starts the next season once the current one ended: the same members, fresh standings.
    409 `season_running` while the current season is still on."""
    league = _league_locked(league_id, by)
    _owner_check(league, by)
    if league.status != League.STATUS_FINISHED:
        raise DomainError("season_running", _("The current season is still running."), 409,
                          {"league": league.pk, "season": league.season})
    _season_begin(league=league, at=timezone.now())
    return league


@database_retry.written_once_more
def season_close(*, league_id: int, by: Any) -> League:
    """The owner closes the current season of a league without a limit (one with a limit ends when a player
    reaches it: 409 `league_has_limit`) and the next one starts at once, with fresh standings."""
    league = _league_locked(league_id, by)
    _owner_check(league, by)
    if league.league_limit:
        raise DomainError("league_has_limit", _("A season of a league with a limit ends when a player reaches it."),
                          409, {"league": league.pk, "league_limit": league.league_limit})
    if league.status == League.STATUS_FINISHED:
        raise DomainError("league_finished", _("This season is already over."), 409, {"league": league.pk})
    now = timezone.now()
    auto = league.next_season
    _season_end(league=league, loser_id=None, ended_by="closed", at=now, after_round_id=_last_round_id(league))
    if auto != "auto":
        _season_begin(league=league, at=now)
    return league


# --- the scoresheet -----------------------------------------------------------------------------

#: Bounds of what a client sends on the scoresheet.
MAX_EXTRA_JACKS = 3


@dataclass
class SheetLine:
    """One player of a recorded round as the scorekeeper wrote it: cards left, or the hand's value."""

    player_id: int
    cards: list[str] | None = None
    points: int | None = None


def _sheet_refused(reason: str, message: Any, **details: Any) -> ValidationFailed:
    return ValidationFailed(message=message, details={"reason": reason, **details})


def sheet_result(*, league: League, lines: list[SheetLine], winner_id: int, extra_jacks: int) -> dict[str, Any]:
    """The engine's result of a round played with real cards (`games.engine.round_result`, the code that
    scores played rounds), from the cards left in each hand or, in `points` scoring, a hand's value
    before the multiplier. Raises 400 naming what is wrong; writes nothing."""
    rule_set = engine.RuleSet.from_json(league.options)
    scoring = league.scoring
    if not 2 <= len(lines) <= rule_set.max_players:
        raise _sheet_refused("players", _("A round needs between two players and the most the league's rules seat."),
                             min=2, max=rule_set.max_players)
    seats = [line.player_id for line in lines]
    if len(set(seats)) != len(seats):
        raise _sheet_refused("player_twice", _("A player is on the sheet twice."))
    if winner_id not in seats:
        raise _sheet_refused("winner", _("The winner must be one of the round's players."))
    if not 0 <= extra_jacks <= MAX_EXTRA_JACKS or (extra_jacks and scoring != "points"):
        raise _sheet_refused("extra_jacks", _("Extra jacks on the last card: 0 to 3, and only where points count."),
                             max=MAX_EXTRA_JACKS if scoring == "points" else 0)
    deck = engine.build_deck(rule_set.deck, rule_set.jokers)
    in_deck = set(deck)
    most = sum(engine.house_points(card) for card in deck)
    seen: set[str] = set()
    hands: list[list[str]] = []
    for line in lines:
        won = line.player_id == winner_id
        if line.cards is not None and line.points is not None:
            raise _sheet_refused("cards_or_points", _("Give a hand's cards or its points, not both."),
                                 player=line.player_id)
        if won and (line.cards or line.points):
            raise _sheet_refused("winner_has_cards", _("The winner has no cards left."), player=line.player_id)
        if not won and line.cards is None and line.points is None:
            raise _sheet_refused("cards_or_points", _("Give each other player's cards left or their points."),
                                 player=line.player_id)
        if line.points is not None:
            if scoring != "points":
                raise _sheet_refused("points_not_counted", _("In this league a hand is given by its cards."),
                                     player=line.player_id)
            if not 0 <= line.points <= most:
                raise _sheet_refused("points", _("A hand's points are between 0 and what the whole deck is worth."),
                                     player=line.player_id, max=most)
        for card in line.cards or []:
            if card not in in_deck:
                raise _sheet_refused("not_in_deck", _("This card is not in the league's deck."), card=card)
            if card in seen:
                raise _sheet_refused("card_twice", _("A card is in two hands."), card=card)
            seen.add(card)
        hands.append(list(line.cards or []))
    if len(seen) >= len(deck):
        raise _sheet_refused("too_many_cards", _("More cards than the deck holds."), deck_size=len(deck))
    winner = seats.index(winner_id)
    result = engine.round_result(hands, scoring, winner, "recorded", 1 + extra_jacks)
    given = {seat: line.points for seat, line in enumerate(lines) if line.points is not None}
    if given:
        # A hand given by its value: the engine's rule for it (times the multiplier; the winner 0), ranked as
        # the engine ranks `points` (fewer points rank better, equal points share a rank).
        for row in result["players"]:
            if row["seat"] in given:
                row["raw_points"], row["cards_left"] = given[row["seat"]], 0
                row["points"] = given[row["seat"]] * row["multiplier"]
        ordered = sorted(result["players"], key=lambda row: (not row["won"], row["points"], row["seat"]))
        previous, rank = None, 0
        for position, row in enumerate(ordered, start=1):
            key = (not row["won"], row["points"])
            if key != previous:
                rank, previous = position, key
            row["rank"] = rank
        result["players"] = ordered
    return result


@database_retry.written_once_more
def round_record(*, league_id: int, by: Any, lines: list[SheetLine], winner_id: int, extra_jacks: int = 0,
                 corrects: int | None = None) -> RoundResult:
    """A scorekeeper writes a round played with real cards on the league's sheet.

    Scored by the engine (`sheet_result`), written to the results ledger as `recorded`, never rated (the
    service cannot know how it was played). It counts once another player of the round confirms it, or at
    once where the league lets its scorekeeper alone (`confirmation` `scorekeeper`); until then it is
    pending. `corrects` names a counted recorded round of the current season that this one replaces when it
    counts: entries are never edited. Two scorekeepers recording at once are applied one after the other
    (the league row lock).
    """
    league = _league_locked(league_id, by)
    keeper = _membership(league, by)
    if keeper is None or not keeper.keeps_score:
        raise PermissionDeniedError(message=_("Only the league's scorekeepers record rounds."),
                                    details={"league": league.pk, "reason": "not_a_scorekeeper"})
    if league.status == League.STATUS_FINISHED:
        raise DomainError("league_finished", _("This season is over: its sheet takes no more rounds."), 409,
                          {"league": league.pk, "season": league.season, "loser": league.loser_id})
    target = None
    if corrects is not None:
        target = _correctable(league, corrects)
    members = set(LeagueMember.objects.filter(league=league, left_at__isnull=True,
                                              player_id__in=[line.player_id for line in lines])
                  .values_list("player_id", flat=True))
    outsiders = sorted({line.player_id for line in lines} - members)
    if outsiders:
        raise _sheet_refused("not_a_member", _("Only the league's members appear on its sheet."), players=outsiders)
    result = sheet_result(league=league, lines=lines, winner_id=winner_id, extra_jacks=extra_jacks)
    now = timezone.now()
    round_result = RoundResult.objects.create(
        league=league, number=0, rules=league.rules, scoring=league.scoring, reason="recorded",
        winner_id=winner_id, multiplier=result["multiplier"], counted=False, practice=False, rated=False,
        finished_at=now, kind="recorded", season=league.season, recorded_by_id=by.pk, corrects=target,
        sheet="pending",
    )
    seat_players = {seat: line.player_id for seat, line in enumerate(lines)}
    sheet_lines = player_results(round_result=round_result, result=result, seat_players=seat_players, table_id=None,
                                 league=league, rules=league.rules, finished_at=now)
    PlayerResult.objects.bulk_create(sheet_lines)
    if league.confirmation == "scorekeeper":
        _confirm(league=league, round_result=round_result, player_id=by.pk, at=now)
    return round_result


def _correctable(league: League, round_id: int) -> RoundResult:
    target = RoundResult.objects.filter(pk=round_id, league=league, kind="recorded").first()
    if target is None:
        raise ValidationFailed(message=_("Only a recorded round of this league can be corrected."),
                               details={"field": "corrects", "reason": "not_recorded"})
    if target.season != league.season:
        raise DomainError("season_over", _("A round of an earlier season stays as it was."), 409,
                          {"round": target.pk, "season": target.season})
    if target.sheet != "counted":
        raise DomainError("round_not_standing", _("Only a round that counts can be corrected: this one does not "
                                                  "(it is pending, disputed, or already corrected)."), 409,
                          {"round": target.pk, "sheet": target.sheet})
    return target


def _confirm(*, league: League, round_result: RoundResult, player_id: int, at: Any) -> None:
    RoundVerdict.objects.create(round=round_result, player_id=player_id, kind="confirm",
                                after_round_id=_last_round_id(league), at=at)
    remove: list[PlayerResult] = []
    if round_result.corrects_id is not None:
        remove = list(PlayerResult.objects.filter(round_id=round_result.corrects_id))
        RoundResult.objects.filter(pk=round_result.corrects_id).update(counted=False, sheet="corrected")
    RoundResult.objects.filter(pk=round_result.pk).update(counted=True, sheet="counted")
    round_result.counted, round_result.sheet = True, "counted"
    lines = list(PlayerResult.objects.filter(round_id=round_result.pk))
    _step_count(league=league, round_result=round_result, add=lines, remove=remove, at=at)


def _verdict_target(league: League, round_id: int, player: Any) -> RoundResult:
    round_result = RoundResult.objects.filter(pk=round_id, league=league, kind="recorded").first()
    if round_result is None:
        raise NotFoundError()
    if not PlayerResult.objects.filter(round=round_result, player_id=player.pk).exists():
        raise PermissionDeniedError(message=_("Only a player of the round can confirm or dispute it."),
                                    details={"round": round_id, "reason": "not_in_round"})
    if round_result.sheet != "pending":
        raise DomainError("round_not_pending", _("This round is no longer pending: it was confirmed, disputed, or "
                                                 "its season ended."), 409,
                          {"round": round_id, "sheet": round_result.sheet})
    return round_result


@database_retry.written_once_more
def round_confirm(*, league_id: int, round_id: int, player: Any) -> RoundResult:
    """Another player of a recorded round confirms it: from now on it counts (the two-person rule).

    403 for the scorekeeper who recorded it or anyone not in the round; 409 once it is not pending, or when
    the round it corrects no longer counts.
    """
    league = _league_locked(league_id, player)
    round_result = _verdict_target(league, round_id, player)
    if round_result.recorded_by_id == player.pk:
        raise PermissionDeniedError(message=_("The scorekeeper who recorded a round cannot confirm it."),
                                    details={"round": round_id, "reason": "recorder"})
    if round_result.corrects_id is not None:
        _correctable(league, round_result.corrects_id)
    _confirm(league=league, round_result=round_result, player_id=player.pk, at=timezone.now())
    return round_result


@database_retry.written_once_more
def round_dispute(*, league_id: int, round_id: int, player: Any) -> RoundResult:
    """A player of a pending recorded round disputes it: it never counts (record it again, rightly)."""
    league = _league_locked(league_id, player)
    round_result = _verdict_target(league, round_id, player)
    RoundVerdict.objects.create(round=round_result, player_id=player.pk, kind="dispute",
                                after_round_id=_last_round_id(league), at=timezone.now())
    RoundResult.objects.filter(pk=round_result.pk).update(sheet="disputed")
    round_result.sheet = "disputed"
    return round_result


# --- replay -------------------------------------------------------------------------------------


def _zero() -> dict[str, Any]:
    return {"rounds": 0, "wins": 0, "points": 0, "multiplier_bonus": 0, "best_round": 0, "resigned": False}


@dataclass
class SeasonReplay:
    totals: dict[int, dict[str, Any]] = field(default_factory=dict)
    loser_id: int | None = None
    finished_at: Any = None
    ended_by: str = ""
    steps: int = 0
    withdrawn: set[int] = field(default_factory=set)


@dataclass
class Replay:
    """League totals rebuilt from the ledger alone, season by season, in the order the rounds counted."""

    seasons: dict[int, SeasonReplay] = field(default_factory=dict)
    counted: dict[int, bool] = field(default_factory=dict)
    sheet: dict[int, str] = field(default_factory=dict)
    lines_counted: dict[int, bool] = field(default_factory=dict)
    race: set[tuple[int, int, int, int, int]] = field(default_factory=set)

    def season(self, number: int) -> SeasonReplay:
        return self.seasons.setdefault(number, SeasonReplay())


def standings_replay(*, league: League) -> Replay:
    """Replay a league's ledger: every season's totals, its loser, each round's place on the sheet.

    In ledger order: a played round counts where it stands unless its season has ended; a recorded round
    counts where its confirmation stands, replacing the round it corrects (whose counted lines come off);
    a disputed one never counts. A resignation applies after the round it names: with a limit it ends its
    season (its player loses), without one it withdraws its player from that season. An owner's close ends
    its season. Practice rounds never count (a league refuses them; one written all the same stays out).
    """
    replay = Replay()
    limit = league.league_limit
    rounds = list(RoundResult.objects.filter(league=league).order_by("id").values_list(
        "id", "kind", "season", "practice", "corrects_id", "finished_at"))
    lines: dict[int, list[tuple[Any, ...]]] = {}
    for line in PlayerResult.objects.filter(league=league).order_by("round_id", "seat").values_list(
            "id", "round_id", "player_id", "won", "points", "multiplier_bonus", "rank", "seat").iterator(5000):
        lines.setdefault(line[1], []).append(line)
    seasons_of = {round_id: season for round_id, _kind, season, *_rest in rounds}
    corrects_of = {round_id: corrects for round_id, _kind, _season, _practice, corrects, _at in rounds}
    events: list[tuple[Any, ...]] = [((row[0], 0), "round", row) for row in rounds]
    for round_id, kind, after, at, verdict_id in RoundVerdict.objects.filter(round__league=league).values_list(
            "round_id", "kind", "after_round_id", "at", "id"):
        events.append(((after or 0, 1, at, verdict_id), kind, (round_id, at)))
    for after, season, player_id, at, resignation_id in LeagueResignation.objects.filter(league=league).values_list(
            "after_round_id", "season", "player_id", "resigned_at", "id"):
        events.append(((after or 0, 1, at, resignation_id), "resign", (season, player_id, at)))
    for number, after, at in Season.objects.filter(league=league, ended_by="closed").values_list(
            "number", "after_round_id", "ended_at"):
        events.append(((after or 0, 1, at, 0), "close", (number, at)))
    events.sort(key=lambda event: event[0])

    def end(number: int, loser: int | None, ended_by: str, at: Any) -> None:
        season = replay.season(number)
        season.loser_id, season.finished_at, season.ended_by = loser, at, ended_by

    def count(number: int, round_id: int, add: list[tuple[Any, ...]], remove: list[tuple[Any, ...]], at: Any) -> None:
        season = replay.season(number)
        touched = list(dict.fromkeys([line[2] for line in add] + [line[2] for line in remove]))
        for player_id in touched:
            season.totals.setdefault(player_id, _zero())
        for line in remove:
            if replay.lines_counted.get(line[0]):
                total = season.totals[line[2]]
                total["rounds"] -= 1
                total["wins"] -= int(line[3])
                total["points"] -= line[4]
                total["multiplier_bonus"] -= line[5]
                replay.lines_counted[line[0]] = False
        counted_lines = []
        for line in add:
            counts = line[2] not in season.withdrawn
            replay.lines_counted[line[0]] = counts
            if counts:
                total = season.totals[line[2]]
                total["rounds"] += 1
                total["wins"] += int(line[3])
                total["points"] += line[4]
                total["multiplier_bonus"] += line[5]
                counted_lines.append(line)
        season.steps += 1
        for player_id in touched:
            replay.race.add((number, season.steps, round_id, player_id, season.totals[player_id]["points"]))
        loser = limit_loser(limit, [(season.totals[line[2]]["points"], line[4], line[6], line[7], line[2])
                                    for line in counted_lines])
        if loser is not None:
            end(number, loser, "limit", at)

    for _key, kind, payload in events:
        if kind == "round":
            round_id, round_kind, number, practice, _corrects, finished_at = payload
            replay.counted[round_id] = False
            if round_kind == "recorded":
                replay.sheet[round_id] = "pending"
            for line in lines.get(round_id, []):
                replay.lines_counted[line[0]] = False
            if practice or round_kind == "recorded" or replay.season(number).ended_by:
                continue
            replay.counted[round_id] = True
            count(number, round_id, lines.get(round_id, []), [], finished_at)
        elif kind == "dispute":
            replay.sheet[payload[0]] = "disputed"
        elif kind == "confirm":
            round_id, at = payload
            number = seasons_of[round_id]
            target = corrects_of[round_id]
            if replay.season(number).ended_by or (target is not None and replay.sheet.get(target) != "counted"):
                continue  # refused when it was written; left pending (void below)
            remove = []
            if target is not None:
                remove = lines.get(target, [])
                replay.sheet[target], replay.counted[target] = "corrected", False
            replay.sheet[round_id], replay.counted[round_id] = "counted", True
            count(number, round_id, lines.get(round_id, []), remove, at)
        elif kind == "resign":
            number, player_id, at = payload
            season = replay.season(number)
            season.totals.setdefault(player_id, _zero())["resigned"] = True
            season.withdrawn.add(player_id)
            if limit and not season.ended_by:
                end(number, player_id, "resigned", at)
        elif kind == "close":
            number, at = payload
            if not replay.season(number).ended_by:
                end(number, None, "closed", at)
    for round_id, state in replay.sheet.items():
        if state == "pending" and replay.season(seasons_of[round_id]).ended_by:
            replay.sheet[round_id] = "void"
    for season in replay.seasons.values():
        for total in season.totals.values():
            total["best_round"] = 0
    for round_id, round_lines in lines.items():
        for line in round_lines:
            if replay.lines_counted.get(line[0]):
                total = replay.season(seasons_of[round_id]).totals[line[2]]
                total["best_round"] = max(total["best_round"], line[4])
    return replay


def standings_compare(*, league: League, replay: Replay) -> list[str]:
    """Differences between the stored standings, seasons, sheet and race and a replay (empty: they agree)."""
    problems: list[str] = []
    stored = {
        (row["season"], row["player_id"]): row
        for row in Standing.objects.filter(league=league).values(
            "season", "player_id", "rounds", "wins", "points", "multiplier_bonus", "best_round", "resigned"
        )
    }
    wanted = {(number, player_id): totals for number, season in replay.seasons.items()
              for player_id, totals in season.totals.items()}
    for key in sorted(set(stored) | set(wanted)):
        want = wanted.get(key)
        have = stored.get(key)
        have_totals = {name: have[name] for name in _zero()} if have else None
        if want != have_totals:
            problems.append(f"league {league.pk} season {key[0]} player {key[1]}: stored {have_totals}, ledger {want}")
    current = replay.season(league.season)
    want_status = League.STATUS_FINISHED if current.ended_by else League.STATUS_ACTIVE
    if league.status != want_status or league.loser_id != current.loser_id:
        problems.append(
            f"league {league.pk}: stored {league.status} loser {league.loser_id}, "
            f"ledger {want_status} loser {current.loser_id}"
        )
    for number, loser_id, ended_by in Season.objects.filter(league=league).values_list("number", "loser_id",
                                                                                       "ended_by"):
        season = replay.season(number)
        if (loser_id, ended_by) != (season.loser_id, season.ended_by):
            problems.append(f"league {league.pk} season {number}: stored {ended_by} loser {loser_id}, "
                            f"ledger {season.ended_by} loser {season.loser_id}")
    for round_id, counted, sheet in RoundResult.objects.filter(league=league).values_list("id", "counted", "sheet"):
        if replay.counted.get(round_id, False) != counted:
            problems.append(f"league {league.pk} round {round_id}: counted {counted}, ledger says {not counted}")
        if replay.sheet.get(round_id, "") != sheet:
            problems.append(f"league {league.pk} round {round_id}: sheet {sheet}, ledger {replay.sheet.get(round_id)}")
    for line_id, counted in PlayerResult.objects.filter(league=league).values_list("id", "counted"):
        if replay.lines_counted.get(line_id, False) != counted:
            problems.append(f"league {league.pk} line {line_id}: counted {counted}, ledger says {not counted}")
    race = set(RacePoint.objects.filter(league=league).values_list("season", "step", "round_id", "player_id",
                                                                      "points"))
    if race != replay.race:
        problems.append(f"league {league.pk}: race chart differs from the ledger "
                        f"({len(race - replay.race)} stored points not in it, {len(replay.race - race)} missing)")
    return problems


@database_retry.written_once_more
def league_standings_recompute(*, league_id: int, write: bool = True) -> list[str]:
    """Rebuild one league's standings from its ledger; return what differed before.

    With `write`, every season's standings and race, each season's end and loser, the current season's
    status/loser, and the rounds' and lines' `counted` and sheet marks are replaced by the replay (all derived
    from the ledger, which stays untouched).
    """
    league = League.objects.select_for_update().get(pk=league_id)
    replay = standings_replay(league=league)
    problems = standings_compare(league=league, replay=replay)
    if write and problems:
        Standing.objects.filter(league=league).delete()
        Standing.objects.bulk_create(
            [Standing(league=league, season=number, player_id=player_id, **totals)
             for number, season in replay.seasons.items() for player_id, totals in season.totals.items()],
            batch_size=1000,
        )
        RacePoint.objects.filter(league=league).delete()
        RacePoint.objects.bulk_create(
            [RacePoint(league=league, season=number, step=step, round_id=round_id, player_id=player_id, points=points)
             for number, step, round_id, player_id, points in replay.race], batch_size=1000)
        for number, season in replay.seasons.items():
            Season.objects.filter(league=league, number=number).exclude(ended_by="closed").update(
                loser_id=season.loser_id, ended_by=season.ended_by, ended_at=season.finished_at)
        current = replay.season(league.season)
        league.status = League.STATUS_FINISHED if current.ended_by else League.STATUS_ACTIVE
        league.loser_id = current.loser_id
        league.finished_at = current.finished_at
        league.steps = current.steps
        league.save(update_fields=["status", "loser", "finished_at", "steps"])
        for flag in (True, False):
            RoundResult.objects.filter(id__in=[r for r, c in replay.counted.items() if c == flag]).update(counted=flag)
            PlayerResult.objects.filter(id__in=[r for r, c in replay.lines_counted.items() if c == flag]).update(
                counted=flag)
        for sheet in ("pending", "counted", "disputed", "corrected", "void"):
            RoundResult.objects.filter(id__in=[r for r, s in replay.sheet.items() if s == sheet]).update(sheet=sheet)
    return problems
