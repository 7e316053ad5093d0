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

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Exists, F
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import League, Player, Seat
from games.rule_sets import rule_set_from
from maumau import database_retry
from maumau.errors import DomainError, NotFoundError, PermissionDeniedError
from scoring import ratings
from scoring.models import LeagueResignation, PlayerResult, RoundResult, Standing
from streams import services as stream_services


@database_retry.written_once_more
def league_create(*, name: str, rules: str, options: dict[str, Any] | None = None, created_by: Any = None) -> League:
    """Create a league; its options are validated and stored as effective options, as for tables."""
    name = (name or "").strip()
    if not name:
        raise DomainError("validation_error", _("A league needs a name."), 400, {"name": "required"})
    rule_set = rule_set_from(rules, options)  # the same validation and error as table options
    return League.objects.create(name=name, rules=rule_set.name, options=rule_set.to_json(), created_by=created_by)


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


@dataclass
class RoundCount:
    """A finished round as scoring counts it, unsaved, for the move pipeline to write (``play.writes``):
    the result row, its lines (one per seat; their ``round`` is the unsaved result) and the rating
    moves (None for a round not rated; they name the result the same way). The league's standings
    have moved already: they are scoring's own write (see :func:`round_counted`)."""

    result: RoundResult
    lines: list[PlayerResult]
    rating_moves: ratings.RatingMoves | None = None


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
    )
    lines = player_results(round_result=round_result, result=result, seat_players=seat_players,
                           table_id=table.pk, league=league, rules=rules_name, finished_at=finished_at)
    if league is not None and counted:
        _standings_count(league=league, lines=lines)
    rating_moves = ratings.round_rate(round_result=round_result, lines=lines, ratings=locked_ratings) \
        if locked_ratings else None
    return RoundCount(result=round_result, lines=lines, rating_moves=rating_moves)


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


def _standings_count(*, league: League, lines: list[PlayerResult]) -> None:
    """Add one round to the league totals; finish the league if someone reached the limit.

    The caller holds the league row lock.
    """
    Standing.objects.bulk_create(
        [Standing(league=league, player_id=line.player_id) for line in lines], ignore_conflicts=True
    )
    for line in lines:
        # A player who resigned the league is withdrawn: no later line of theirs counts in it.
        Standing.objects.filter(league=league, player_id=line.player_id, resigned=False).update(
            rounds=F("rounds") + 1,
            wins=F("wins") + int(line.won),
            points=F("points") + line.points,
            multiplier_bonus=F("multiplier_bonus") + line.multiplier_bonus,
            updated_at=timezone.now(),
        )
    limit = league.league_limit
    if not limit:
        return
    totals = dict(
        Standing.objects.filter(league=league, player_id__in=[line.player_id for line in lines]).values_list(
            "player_id", "points"
        )
    )
    loser = limit_loser(
        limit, [(totals[line.player_id], line.points, line.rank, line.seat, line.player_id) for line in lines]
    )
    if loser is not None:
        league.status = League.STATUS_FINISHED
        league.loser_id = loser
        league.finished_at = lines[0].finished_at
        league.save(update_fields=["status", "loser", "finished_at"])


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
    if league is None:
        raise NotFoundError()
    standing = Standing.objects.filter(league=league, player_id=player.pk).first()
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
    last_round = RoundResult.objects.filter(league=league).order_by("-id").values_list("id", flat=True).first()
    LeagueResignation.objects.create(league=league, player_id=player.pk, after_round_id=last_round, resigned_at=now)
    Standing.objects.filter(pk=standing.pk).update(resigned=True, updated_at=now)
    if league.league_limit:
        league.status, league.loser_id, league.finished_at = League.STATUS_FINISHED, player.pk, now
        league.save(update_fields=["status", "loser", "finished_at"])
        transaction.on_commit(lambda: stream_services.league_over(league_id=league.pk), robust=True)
    return league


def _zero() -> dict[str, Any]:
    return {"rounds": 0, "wins": 0, "points": 0, "multiplier_bonus": 0, "resigned": False}


@dataclass
class Replay:
    """League totals rebuilt from the round results alone, in the order the rounds were counted."""

    totals: dict[int, dict[str, Any]] = field(default_factory=dict)
    loser_id: int | None = None
    finished_at: Any = None
    counted: dict[int, bool] = field(default_factory=dict)


def standings_replay(*, league: League) -> Replay:
    """Replay a league's round results: sum every round up to and including the one that finished it.

    Practice rounds never count (a league refuses them; one written all the same stays out). A
    resignation applies after the round it names: with a limit it finishes the league (its player
    loses), without one it withdraws its player, whose later lines are left out (`league_resign`).
    """
    replay = Replay()
    for round_id in RoundResult.objects.filter(league=league, practice=True).values_list("id", flat=True):
        replay.counted[round_id] = False
    pending = sorted(
        LeagueResignation.objects.filter(league=league).values_list("after_round_id", "id", "player_id", "resigned_at"),
        key=lambda row: (row[0] or 0, row[1]),
    )
    withdrawn: set[int] = set()

    def resignations_before(round_id: int | None) -> None:
        """Apply the resignations written before round `round_id` (every one left when None)."""
        while pending and (round_id is None or (pending[0][0] or 0) < round_id):
            _after, _id, player_id, resigned_at = pending.pop(0)
            replay.totals.setdefault(player_id, _zero())["resigned"] = True
            withdrawn.add(player_id)
            if league.league_limit and replay.loser_id is None:
                replay.loser_id, replay.finished_at = player_id, resigned_at

    rows = (
        PlayerResult.objects.filter(league=league, practice=False)
        .order_by("round_id", "seat")
        .values_list("round_id", "player_id", "won", "points", "multiplier_bonus", "rank", "seat", "finished_at")
    )
    current_round: int | None = None
    round_lines: list[tuple[Any, ...]] = []

    def close_round() -> None:
        if current_round is None:
            return
        if replay.loser_id is not None:
            replay.counted[current_round] = False
            return
        replay.counted[current_round] = True
        lines = [line for line in round_lines if line[1] not in withdrawn]
        for _round, player_id, won, points, bonus, _rank, _seat, _at in lines:
            total = replay.totals.setdefault(player_id, _zero())
            total["rounds"] += 1
            total["wins"] += int(won)
            total["points"] += points
            total["multiplier_bonus"] += bonus
        loser = limit_loser(
            league.league_limit,
            [(replay.totals[line[1]]["points"], line[3], line[5], line[6], line[1]) for line in lines],
        )
        if loser is not None:
            replay.loser_id = loser
            replay.finished_at = round_lines[0][7]

    for row in rows.iterator(chunk_size=5000):
        if row[0] != current_round:
            close_round()
            current_round, round_lines = row[0], []
            resignations_before(current_round)
        round_lines.append(row)
    close_round()
    resignations_before(None)
    return replay


def standings_compare(*, league: League, replay: Replay) -> list[str]:
    """Differences between the stored standings/league state and a replay (empty: they agree)."""
    problems: list[str] = []
    stored = {
        row["player_id"]: row
        for row in Standing.objects.filter(league=league).values(
            "player_id", "rounds", "wins", "points", "multiplier_bonus", "resigned"
        )
    }
    for player_id in sorted(set(stored) | set(replay.totals)):
        want = replay.totals.get(player_id)
        have = stored.get(player_id)
        have_totals = {key: have[key] for key in _zero()} if have else None
        if want != have_totals:
            problems.append(f"league {league.pk} player {player_id}: stored {have_totals}, results {want}")
    want_status = League.STATUS_FINISHED if replay.loser_id is not None else League.STATUS_ACTIVE
    if league.status != want_status or league.loser_id != replay.loser_id:
        problems.append(
            f"league {league.pk}: stored {league.status} loser {league.loser_id}, "
            f"results {want_status} loser {replay.loser_id}"
        )
    stored_counted = dict(RoundResult.objects.filter(league=league).values_list("id", "counted"))
    for round_id, counted in stored_counted.items():
        if replay.counted.get(round_id, True) != counted:
            problems.append(f"league {league.pk} round {round_id}: counted {counted}, results say {not counted}")
    return problems


@database_retry.written_once_more
def league_standings_recompute(*, league_id: int, write: bool = True) -> list[str]:
    """Rebuild one league's standings from its round results; return what differed before.

    With `write`, the standings, the league's status/loser and the rounds' `counted` marks are
    replaced by the replay (they are all derived from the result lines, which stay untouched).
    """
    league = League.objects.select_for_update().get(pk=league_id)
    replay = standings_replay(league=league)
    problems = standings_compare(league=league, replay=replay)
    if write and problems:
        Standing.objects.filter(league=league).delete()
        Standing.objects.bulk_create(
            [Standing(league=league, player_id=player_id, **totals) for player_id, totals in replay.totals.items()],
            batch_size=1000,
        )
        finished = replay.loser_id is not None
        league.status = League.STATUS_FINISHED if finished else League.STATUS_ACTIVE
        league.loser_id = replay.loser_id
        league.finished_at = replay.finished_at if finished else None
        league.save(update_fields=["status", "loser", "finished_at"])
        uncounted = [round_id for round_id, counted in replay.counted.items() if not counted]
        RoundResult.objects.filter(league=league).exclude(id__in=uncounted).update(counted=True)
        RoundResult.objects.filter(id__in=uncounted).update(counted=False)
    return problems
