"""Scoring use cases: create a league, guard it, count a finished round, resign a league,
recompute standings.

The engine already scores a round (`state.result`); this module turns it into the round's result
rows once, in the transaction of the last move, and returns them for the move pipeline to write
(`round_counted`, written by ``play.writes``); it keeps the league totals (`Standing`) in step itself.

Concurrency: every write that touches a league's totals first locks the league row
(`select_for_update`). Two tables of one league that finish at the same moment are therefore
applied one after the other, the totals use `F()` increments, and the house limit is judged
on totals that include every earlier round exactly once. Result ids are allocated under
that lock, so id order is the order in which rounds were counted (the recompute replays it).
A resignation is written under the same lock and names the last round before it.

A use case that is its own transaction is ``database_retry.written_once_more`` (why:
``maumau.database_retry``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Exists
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import League, LeagueMember, Player, Seat
from games.rule_sets import rule_set_from
from maumau import database_retry
from maumau.errors import DomainError, NotFoundError, PermissionDeniedError
from scoring import ratings, seasons
from scoring.models import LeagueResignation, PlayerResult, RaceStep, RoundResult, Season, Standing
from streams import services as stream_services
from streams.models import Notification


@database_retry.written_once_more
def league_create(*, name: str, rules: str, options: dict[str, Any] | None = None, created_by: Any = None,
                  visibility: str = "public", next_season: str = "owner", scorekeeper_alone: bool = False) -> League:
    """Create a league; its options are validated and stored as effective options, as for tables. Its
    creator owns it (`scoring.members`); its first season starts now."""
    name = (name or "").strip()
    if not name:
        raise DomainError("validation_error", _("A league needs a name."), 400, {"name": "required"})
    rule_set = rule_set_from(rules, options)  # the same validation and error as table options
    league = League.objects.create(name=name, rules=rule_set.name, options=rule_set.to_json(), created_by=created_by,
                                   visibility=visibility, next_season=next_season,
                                   scorekeeper_alone=scorekeeper_alone, invite_code=secrets.token_urlsafe(12))
    Season.objects.create(league=league, number=1, started_at=league.created_at)
    if created_by is not None:
        LeagueMember.objects.create(league=league, player=created_by, role="owner")
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


@dataclass
class RoundCount:
    """A finished round as scoring counts it, unsaved, for the move pipeline to write (``play.writes``):
    the result row, its lines (one per seat; their ``round`` is the unsaved result) and the rating
    moves (None for a round not rated; they name the result the same way). The league's standings
    have moved already: they are scoring's own write (see :func:`round_counted`); the season's race step
    they made (`race_step`, None outside a counted league round) names the result the same way, and
    the season_over notifications of a season the round ended (`season_over`) go with the move's."""

    result: RoundResult
    lines: list[PlayerResult]
    rating_moves: ratings.RatingMoves | None = None
    race_step: RaceStep | None = None
    season_over: list[Notification] = field(default_factory=list)


@transaction.atomic(savepoint=False)
def round_counted(*, game: Any, seat_players: dict[int, int] | None = None, bots: set[int] | None = None,
                  ) -> RoundCount | None:
    """Count a finished round once: return its result, lines and rating moves unsaved, for the caller
    to write in the same transaction; None when the round is recorded already (unique per game).

    Called by the move pipeline (`play`) inside the transaction of the last move, with the round's
    players by game seat (`seat_players`; read from the table's seats when not given) and which of
    them are bots (`bots`; read from the players when not given). No savepoint of its own: a failure
    here fails the whole move, as it must.

    The league's standings are moved here, under the league lock, and not returned: the limit is
    judged on the totals the round leaves, read back in this transaction, and a league it finishes is
    written before the lock is let go; the result rows carry no decision that the writer could get
    wrong. A league round recorded already is found by the same statement that takes the lock.

    Multiplier bonus: for the winner of a round, `multiplier - 1`, i.e. the extra jacks laid
    on the last card (house `final_jacks`); 0 for everyone else and in the other rule sets.
    A player's league bonus is the sum over their wins: how many extra multiples of their
    opponents' hands they inflicted.
    """
    table = game.table
    league = None
    if table.league_id is not None:
        league = (League.objects.select_for_update()
                  .annotate(recorded=Exists(RoundResult.objects.filter(game_id=game.pk))).get(pk=table.league_id))
        if league.recorded:
            return None
    rules_name = game.rules["rules"]
    if seat_players is None:
        position_players = dict(Seat.objects.filter(table_id=table.pk).values_list("position", "player_id"))
        # Game seat i sits at table position game.positions[i].
        seat_players = {seat: position_players[position] for seat, position in enumerate(game.positions)}
    practice = bool(game.practice)
    if bots is None:
        bots = set(Player.objects.filter(pk__in=seat_players.values(), is_bot=True).values_list("pk", flat=True))
    # The ratings are locked before the result row takes its id (rounds that share a player are rated in
    # id order). The lock skips a round already written; only a round it did not lock may be one.
    locked_ratings = ratings.ratings_locked(game=game, practice=practice, rules=rules_name,
                                            seat_players=seat_players, bots=bots)
    if not locked_ratings and league is None and RoundResult.objects.filter(game_id=game.pk).exists():
        return None

    result = game.result
    if not result:
        raise ValueError(f"game {game.pk} has no result to record")
    finished_at = game.finished_at or timezone.now()
    counted = not practice and (league is None or league.status == League.STATUS_ACTIVE)
    round_result = RoundResult(
        game=game,
        table=table,
        league=league,
        number=game.number,
        rules=rules_name,
        scoring=game.rules["scoring"],
        reason=result["reason"],
        winner_id=seat_players.get(result["winner"]),
        multiplier=result["multiplier"],
        counted=counted,
        practice=practice,
        rated=bool(locked_ratings),
        finished_at=finished_at,
        season=league.season if league is not None else 1,
        status=RoundResult.COUNTED if counted or league is None else RoundResult.VOID,
    )
    lines = player_results(round_result=round_result, result=result, seat_players=seat_players,
                           table_id=table.pk, league=league, rules=rules_name, finished_at=finished_at)
    step = None
    if league is not None and counted:
        step = seasons.step_count(league=league, round_result=round_result, lines=lines)
    rating_moves = ratings.round_rate(round_result=round_result, lines=lines, ratings=locked_ratings) \
        if locked_ratings else None
    return RoundCount(result=round_result, lines=lines, rating_moves=rating_moves,
                      race_step=step.race_step if step else None, season_over=step.season_over if step else [])


def player_results(*, round_result: RoundResult, result: dict[str, Any], seat_players: dict[int, int],
                   table_id: int, league: League | None, rules: str, finished_at: Any) -> list[PlayerResult]:
    """The result lines of one round, one per seat, from the engine's result (unsaved)."""
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
            finished_at=finished_at,
        )
        for line in result["players"]
    ]


@database_retry.written_once_more
def league_resign(*, league_id: int, player: Any) -> League:
    """A member (a player with a counted round in the league) leaves it for good.

    - With a limit (`house`, `league_limit`): the resigner loses the league at once, as if they had
      reached the limit: the league finishes with them as `loser`, and a round still running at one
      of its tables is recorded but not counted, like any round that ends after the league did.
    - Without a limit: the resigner is withdrawn. Their standing keeps what they had scored, is
      marked `resigned` and is ranked last; no line of theirs recorded after the resignation counts
      in the league (their rounds still count for the others, and in their own history and
      statistics). Tables do not refuse them: one rule, applied where results are counted, that the
      replay applies the same way.

    Either way a `LeagueResignation` row is written under the league lock, after the league's last
    recorded round, so `standings_replay` meets it in order with the rounds. A running round is not
    resigned by this: `{"type": "resign"}` does that. 404 for an unknown league, 403 for a
    non-member, 409 once the league is finished or the caller has already resigned it.
    """
    league = League.objects.select_for_update().filter(pk=league_id).first()
    if league is None or (league.visibility == "private"
                          and not LeagueMember.objects.filter(league=league, player_id=player.pk).exists()):
        raise NotFoundError()  # a private league is not shown to outsiders
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
    LeagueResignation.objects.create(league=league, season=league.season, player_id=player.pk,
                                     after_round_id=seasons.last_round_id(league), resigned_at=now)
    Standing.objects.filter(pk=standing.pk).update(resigned=True, updated_at=now)
    if league.league_limit:
        stream_services.notifications_create(
            seasons.season_end(league=league, season=seasons.season_of(league), loser_id=player.pk, at=now))
        transaction.on_commit(lambda: stream_services.league_over(league_id=league.pk), robust=True)
    return league


def standings_replay(*, league: League) -> seasons.Replay:
    """Replay a league's round results (`scoring.seasons.sheet_replay`)."""
    return seasons.sheet_replay(league=league)


def standings_compare(*, league: League, replay: seasons.Replay) -> list[str]:
    """Differences between the stored standings, seasons, race and sheet and a replay (empty: they agree)."""
    return seasons.sheet_compare(league=league, replay=replay)


@database_retry.written_once_more
def league_standings_recompute(*, league_id: int, write: bool = True) -> list[str]:
    """Rebuild one league's standings, seasons and race from its round results; return what differed before.

    With `write`, everything derived from the result lines (standings, seasons, race steps, the league's
    season/status/loser and the rounds' `season`, `status` and `counted`) is replaced by the replay.
    """
    league = League.objects.select_for_update().get(pk=league_id)
    replay = standings_replay(league=league)
    problems = standings_compare(league=league, replay=replay)
    if write and problems:
        seasons.sheet_write(league=league, replay=replay)
    return problems
