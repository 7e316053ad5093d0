"""Ratings: a multiplayer skill rating per player and rule set, moved by every rated round.

OpenSkill's Plackett-Luce model (the `openskill` library, its defaults: mu 25, sigma 25/3, beta 25/6,
tau 25/300) rates a round from the ranking the engine computed, seat by seat, ties shared (ranks
1, 2, 2, 4 as the round results hold them). The displayed value is the conservative estimate
mu - 3 sigma (OpenSkill's `ordinal`), which starts at 0 and rises as a player proves themselves;
a rating is *provisional* until `PROVISIONAL_ROUNDS` rated rounds.

Which rounds are rated is decided once, when the round is recorded (`ratings_locked`), and kept as
`RoundResult.rated`, which the recompute replays. A round is rated unless (the farms each rule stops):

- it is practice (a chosen seed or setup) or aborted (only practice rounds can be; never recorded);
- a `random` bot sat in it: beating a bot that plays any legal card proves nothing;
- someone resigned before their own first move: a sock account resigning at once would feed its
  owner a win per two requests. The whole round is unrated, for the resigner and everyone else;
- a stand-in bot finished a person's seat (its last `player`/`bot` row on that seat is the bot's:
  they left, or never took it back after timeouts), or made most of its turns (per person seat, `bot`
  rows against all `player`, `bot` and `clock` rows). The round is unrated for everyone: the round
  results mark whole rounds, and an absent person's seat played by a bot is not a fair result for
  the others either;
- someone moved in it but never played a card (every move of their seat a draw, a pass, a timeout or
  the resignation): a sock that draws once and resigns feeds its owner a win per round;
- the same players (the same set, under the same rules) already had
  `MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY` (3) rated rounds in the 24 hours before it ended: repeated
  results between the same accounts count only a few times a day.

Newcomers: a rated round against a *new* opponent (fewer than `MAUMAU_RATING_NEW_ROUNDS` (10) rated
rounds under the rules before it, or a player younger than `MAUMAU_RATING_NEW_HOURS` (24) when it
ended; never a server bot) moves a player's mu by at most `MAUMAU_RATING_NEW_CAP` (0.1, 3 points of the
displayed rating) and leaves their sigma: a fresh sock per round lifts nobody. It counts as a rated round all the same
(two newcomers playing each other stop being new after their first rounds). `ratings_replay` decides
it again from the rounds it has replayed and the players' ages, as the round did.

Bots other than `random` (server bots and bot accounts) are rated like anyone; the leaderboard shows
them as bots. A rating is provisional below `PROVISIONAL_ROUNDS` rated rounds and is not listed on
the leaderboard until `MAUMAU_LEADERBOARD_MIN_ROUNDS` (10); with the daily limit per set of players,
ten rated rounds take more than one set of opponents or more than three days.

Order and concurrency: `ratings_locked` creates the missing rating rows and locks the round's rows
(one upsert whose conflicts lock them in the order of its VALUES, player id, so two rounds that share
players lock them in the same order and never deadlock) *before* the round's result row takes its id.
Two rounds that share a player are therefore rated in the order of their result ids, and
`ratings_replay` (which rates every rated round again in id order from the initial values) reproduces
the stored ratings exactly.

Cost (bench.ratings): rating adds no round trip to the move that ends a round. The lock takes the
place of the look-up for a recorded result that counting a round not rated makes, and what `round_rate` returns
is written by the move pipeline in the move's own statement.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from games import sql
from games.models import Player
from scoring.models import PlayerResult, Rating, RatingPoint, RoundResult

#: The model every rating is computed with; changing a parameter means `ratings_recompute`.
MODEL = PlackettLuce()
#: A rating is shown as provisional until this many rated rounds: about where sigma has fallen from
#: 8.3 to 5 in four-player rounds, so the conservative value has stopped jumping by whole points.
PROVISIONAL_ROUNDS = 10


def display_value(mu: float, sigma: float) -> float:
    """The conservative value shown and ranked by: mu - 3 sigma, which is OpenSkill's ``ordinal()``
    with its defaults to the last bit (written out: a rating object costs more than the round's maths)."""
    return mu - 3 * sigma


#: The familiar scale: 1500 + 30 x the conservative value, so a new player reads 1500 (ordinal 0) and
#: a strong one (ordinal about 20) near 2100, like a chess rating.
FAMILIAR_BASE = 1500
FAMILIAR_PER_POINT = 30


def familiar_rating(ordinal: float) -> int:
    """The rating on the familiar scale, as the API's ``display_rating`` and the client show it."""
    return round(FAMILIAR_BASE + FAMILIAR_PER_POINT * ordinal)


INITIAL_MU: float = MODEL.mu
INITIAL_SIGMA: float = MODEL.sigma
INITIAL_RATING: float = display_value(INITIAL_MU, INITIAL_SIGMA)


def rated_after(current: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
    """Each player's (mu, sigma) after one round, from their (mu, sigma) before and their ranks
    (1 = best; equal ranks are a tie). One player per team, in the order given."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in current]
    return [(team[0].mu, team[0].sigma) for team in MODEL.rate(teams, ranks=list(ranks))]


# --- rating a round --------------------------------------------------------------------------------


@cache
def _lock_sql(players: int, person_seats: int, bots: int, vendor: str) -> str:
    """The one statement that decides and locks (see `ratings_locked`): the rating rows are upserted
    only when no reason not to rate the round (`unrated`) holds and the round is not recorded yet."""
    seats = ", ".join(["%s"] * person_seats) or "NULL"
    bot_ids = ", ".join(["%s"] * bots) or "NULL"
    ids = ", ".join(["%s"] * players)
    rows = ", ".join(["(%s, %s, %s, %s, %s, %s, 0)"] * players)
    kind = "r.action ->> 'type'" if vendor == "postgresql" else "json_extract(r.action, '$.type')"
    unrated = (
        # a stand-in bot made most of a person seat's turns
        f"SELECT 1 FROM games_move WHERE game_id = %s AND seat IN ({seats}) AND actor IN ('player', 'bot', 'clock')"
        " GROUP BY seat HAVING 2 * count(CASE WHEN actor = 'bot' THEN 1 END) > count(*)"
        # a stand-in bot finished a person's seat (the person left, or never took it back after timeouts)
        f" UNION ALL SELECT 1 FROM games_move b WHERE b.game_id = %s AND b.seat IN ({seats}) AND b.actor = 'bot'"
        " AND NOT EXISTS (SELECT 1 FROM games_move m WHERE m.game_id = b.game_id AND m.seat = b.seat"
        " AND m.actor = 'player' AND m.seq > b.seq)"
        # a `random` bot sat in the round
        f" UNION ALL SELECT 1 FROM games_player WHERE id IN ({bot_ids}) AND bot_level = 'random'"
        # someone resigned before their own first move
        f" UNION ALL SELECT 1 FROM games_move r WHERE r.game_id = %s AND r.actor = 'player' AND {kind} = 'resign'"
        " AND NOT EXISTS (SELECT 1 FROM games_move m WHERE m.game_id = r.game_id AND m.seat = r.seat"
        " AND m.actor = 'player' AND m.seq < r.seq)"
        # the same players were rated together often enough in the last day (from one player's recent results)
        " UNION ALL SELECT 1 FROM (SELECT count(*) AS n FROM scoring_playerresult p"
        " JOIN scoring_roundresult rr ON rr.id = p.round_id"
        " WHERE p.player_id = %s AND p.rules = %s AND p.finished_at >= %s AND rr.rated"
        f" AND (SELECT count(*) FROM scoring_playerresult q WHERE q.round_id = p.round_id) = {players}"
        " AND (SELECT count(*) FROM scoring_playerresult q WHERE q.round_id = p.round_id"
        f" AND q.player_id IN ({ids})) = {players}) AS together WHERE together.n >= %s"
        # someone moved but never played a card
        f" UNION ALL SELECT 1 FROM games_move i WHERE i.game_id = %s AND i.seat IN ({seats})"
        f" AND i.actor IN ('player', 'bot', 'clock') GROUP BY i.seat"
        f" HAVING count(CASE WHEN {kind.replace('r.', 'i.')} = 'play' THEN 1 END) = 0"
    )
    return (
        "INSERT INTO scoring_rating (player_id, rules, bot, mu, sigma, rating, rounds)"
        f" SELECT * FROM (VALUES {rows}) AS new_rating WHERE NOT EXISTS ({unrated})"
        " AND NOT EXISTS (SELECT 1 FROM scoring_roundresult WHERE game_id = %s)"
        " ON CONFLICT (rules, player_id) DO UPDATE SET rounds = scoring_rating.rounds"
        " RETURNING player_id, id, mu, sigma, rounds,"
        " (SELECT p.created_at >= %s FROM games_player p WHERE p.id = scoring_rating.player_id),"
        " (SELECT p.is_bot AND p.user_id IS NULL FROM games_player p WHERE p.id = scoring_rating.player_id)"
    )


@dataclass(slots=True)
class LockedRating:
    """A locked rating row as a round moves it: its id, its (mu, sigma) and rounds before the round, and
    whether its player was new then (see the module's docstring)."""

    id: int
    mu: float
    sigma: float
    rounds: int
    new: bool = False


def ratings_locked(*, game: Any, practice: bool, rules: str, seat_players: dict[int, int],
                   bots: set[int]) -> dict[int, LockedRating]:
    """The ratings of a finished round's players under `rules` by player id, locked until the
    transaction ends (created at the initial values where missing), or none when the round is not
    rated or is already recorded.

    A round is not rated for the reasons in the module's docstring. Those checks, the check for a
    recorded result and the lock are one literal statement: an upsert that returns each row, locking them
    in the order of its VALUES, which is player-id order, and inserts nothing when a reason holds or the
    round is recorded.

    A rated round so makes one statement where a round not rated makes the caller's look-up for a row
    already written: the caller looks only when this returns nothing (bench.ratings: cheaper than sending
    the two together in one pipeline).
    """
    if practice or not game.result or game.result.get("reason") == "aborted":
        return {}
    ids = sorted(set(seat_players.values()))
    person_seats = sorted(seat for seat, player_id in seat_players.items() if player_id not in bots)
    bot_ids = sorted(bots & set(ids))
    finished_at = game.finished_at or timezone.now()
    since = finished_at - timedelta(days=1)
    together = settings.MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY or 2**31 - 1
    params: list[Any] = []
    for player_id in ids:
        params += [player_id, rules, player_id in bots, INITIAL_MU, INITIAL_SIGMA, INITIAL_RATING]
    params += [game.pk, *person_seats, game.pk, *person_seats, *bot_ids, game.pk,
               ids[0], rules, since, *ids, together, game.pk, *person_seats, game.pk, young_since(finished_at)]
    with sql.cursor() as cursor:
        cursor.execute(_lock_sql(len(ids), len(person_seats), len(bot_ids), connection.vendor), params)
        rows = cursor.fetchall()
    return {player_id: LockedRating(rating_id, mu, sigma, rounds, is_new(rounds, bool(young), bool(server_bot)))
            for player_id, rating_id, mu, sigma, rounds, young, server_bot in rows}


def young_since(finished_at: Any) -> Any:
    """A player made at or after this, for a round that ended at `finished_at`, is new."""
    return finished_at - timedelta(hours=settings.MAUMAU_RATING_NEW_HOURS)


def is_new(rounds: int, young: bool, server_bot: bool) -> bool:
    """Whether a player with `rounds` rated rounds before a round (and `young` then) is new in it (0 hours:
    age makes nobody new). A server bot never is: the server plays it (a fresh one sits at every table),
    nobody can make it lose on purpose, and the `random` one's rounds are not rated at all."""
    if server_bot:
        return False
    return (young and settings.MAUMAU_RATING_NEW_HOURS > 0) or rounds < settings.MAUMAU_RATING_NEW_ROUNDS


def rated_with_newcomers(current: Sequence[tuple[float, float]], ranks: Sequence[int],
                         new: Sequence[bool]) -> list[tuple[float, float]]:
    """`rated_after`, but a player with a new opponent moves by at most the cap, their sigma kept."""
    after = rated_after(current, ranks)
    cap = settings.MAUMAU_RATING_NEW_CAP
    moved = []
    for index, ((mu, sigma), (new_mu, new_sigma)) in enumerate(zip(current, after, strict=True)):
        if any(flag for other, flag in enumerate(new) if other != index):
            moved.append((mu + max(-cap, min(cap, new_mu - mu)), sigma))
        else:
            moved.append((new_mu, new_sigma))
    return moved


@dataclass(slots=True)
class RatingMoves:
    """What one rated round changes, unsaved: its players' locked ratings moved (new mu, sigma and
    shown value, one round more, this round the last) and a history point per player."""

    ratings: list[Rating]
    points: list[RatingPoint]

    #: The fields of ``ratings`` a round changes.
    FIELDS = ("mu", "sigma", "rating", "rounds", "last_round")


def round_rate(*, round_result: RoundResult, lines: Sequence[PlayerResult],
               ratings: dict[int, LockedRating]) -> RatingMoves:
    """Move the locked `ratings` by one counted round (its result and `lines`, unsaved): what the round
    writes, for the move pipeline to write in the same transaction. The rows name `round_result` as an
    object; they take its id when it is written (``play.writes``)."""
    lines = sorted(lines, key=lambda line: line.seat)
    locked = [ratings[line.player_id] for line in lines]
    after = rated_with_newcomers([(rating.mu, rating.sigma) for rating in locked], [line.rank for line in lines],
                                 [rating.new for rating in locked])
    moved, points = [], []
    for line, rating, (mu, sigma) in zip(lines, locked, after, strict=True):
        value = display_value(mu, sigma)
        moved.append(Rating(pk=rating.id, mu=mu, sigma=sigma, rating=value, rounds=rating.rounds + 1,
                            last_round=round_result))
        points.append(RatingPoint(round=round_result, player_id=line.player_id, rules=round_result.rules,
                                  rank=line.rank, mu=mu, sigma=sigma, rating=value))
    return RatingMoves(ratings=moved, points=points)


# --- replay, compare, recompute --------------------------------------------------------------------


@dataclass
class RatingsReplay:
    """Every rating rebuilt from the round results: (rules, player) -> [mu, sigma, rounds, last round]."""

    ratings: dict[tuple[str, int], list[Any]] = field(default_factory=dict)
    bots: set[int] = field(default_factory=set)
    rounds: int = 0


def _rated_rounds() -> Iterator[tuple[int, str, list[tuple[int, int, bool, bool]]]]:
    """(round id, rules, [(player id, rank, young, server bot) by seat]) of every rated round, in id order;
    `young`: the player was younger than `MAUMAU_RATING_NEW_HOURS` when the round ended."""
    rows = (
        PlayerResult.objects.filter(round__rated=True)
        .order_by("round_id", "seat")
        .values_list("round_id", "rules", "player_id", "rank", "finished_at", "player__created_at", "player__is_bot",
                     "player__user_id")
    )
    current: int | None = None
    rules, lines = "", []
    for round_id, round_rules, player_id, rank, finished_at, created_at, bot, user in rows.iterator(chunk_size=10_000):
        if round_id != current:
            if current is not None:
                yield current, rules, lines
            current, rules, lines = round_id, round_rules, []
        lines.append((player_id, rank, created_at >= young_since(finished_at), bot and user is None))
    if current is not None:
        yield current, rules, lines


def ratings_replay(*, points: list[tuple[int, int, str, int, float, float]] | None = None) -> RatingsReplay:
    """Rate every rated round again, in id order, from the initial values. With `points`, also
    collect each history point as (round id, player id, rules, rank, mu, sigma)."""
    replay = RatingsReplay()
    for round_id, rules, lines in _rated_rounds():
        current = [replay.ratings.get((rules, player_id), [INITIAL_MU, INITIAL_SIGMA, 0, None])
                   for player_id, _rank, _young, _bot in lines]
        new = [is_new(state[2], line[2], line[3]) for state, line in zip(current, lines, strict=True)]
        after = rated_with_newcomers([(state[0], state[1]) for state in current], [line[1] for line in lines], new)
        for (player_id, rank, _young, _bot), state, (mu, sigma) in zip(lines, current, after, strict=True):
            replay.ratings[(rules, player_id)] = [mu, sigma, state[2] + 1, round_id]
            if points is not None:
                points.append((round_id, player_id, rules, rank, mu, sigma))
        replay.rounds += 1
    replay.bots = _bots_among({player_id for _rules, player_id in replay.ratings})
    return replay


def ratings_compare(replay: RatingsReplay) -> list[str]:
    """Differences between the stored ratings and a replay (empty: they agree). History points are
    compared too, streamed in (round, player) order."""
    problems: list[str] = []
    stored: dict[tuple[str, int], list[Any]] = {}
    rows = Rating.objects.values_list("rules", "player_id", "mu", "sigma", "rounds", "last_round_id", "rating", "bot")
    for rules, player_id, mu, sigma, rounds, last_round_id, rating, bot in rows.iterator(chunk_size=10_000):
        stored[(rules, player_id)] = [mu, sigma, rounds, last_round_id]
        if rating != display_value(mu, sigma):
            problems.append(f"{rules} player {player_id}: stored rating {rating}, mu - 3 sigma "
                            f"{display_value(mu, sigma)}")
        if (rules, player_id) in replay.ratings and bot != (player_id in replay.bots):
            problems.append(f"{rules} player {player_id}: stored bot mark {bot}")
    for key in sorted(set(stored) | set(replay.ratings)):
        have = stored.get(key)
        want = replay.ratings.get(key)
        if have != want:
            problems.append(f"{key[0]} player {key[1]}: stored (mu, sigma, rounds, last round) {have}, results {want}")
    return problems


def points_compare(want: list[tuple[int, int, str, int, float, float]]) -> list[str]:
    """Differences between the stored history points and the replay's."""
    problems: list[str] = []
    want_sorted = sorted(want, key=lambda point: (point[0], point[1]))
    stored = RatingPoint.objects.order_by("round_id", "player_id").values_list(
        "round_id", "player_id", "rules", "rank", "mu", "sigma", "rating")
    index = 0
    for round_id, player_id, rules, rank, mu, sigma, rating in stored.iterator(chunk_size=10_000):
        point = want_sorted[index] if index < len(want_sorted) else None
        while point is not None and (point[0], point[1]) < (round_id, player_id):
            problems.append(f"round {point[0]} player {point[1]}: history point missing")
            index += 1
            point = want_sorted[index] if index < len(want_sorted) else None
        if point is None or (point[0], point[1]) != (round_id, player_id):
            problems.append(f"round {round_id} player {player_id}: history point not in the round results' replay")
            continue
        index += 1
        if (rules, rank, mu, sigma, rating) != (*point[2:], display_value(point[4], point[5])):
            problems.append(f"round {round_id} player {player_id}: history point {(rules, rank, mu, sigma)}, "
                            f"results {point[2:]}")
    problems += [f"round {point[0]} player {point[1]}: history point missing" for point in want_sorted[index:]]
    return problems


def ratings_recompute(*, write: bool = True) -> list[str]:
    """Rebuild every rating and history point from the round results; return what differed before.

    On PostgreSQL a check (`write=False`) reads one snapshot (REPEATABLE READ: the round results and the
    ratings are written in one transaction, so the snapshot holds both or neither of a round) and blocks
    nobody; a rebuild holds the rating tables still (a lock that lets readers through and makes a
    finishing round wait) so that no round is rated between the replay and the write.
    """
    snapshot = not write and not connection.in_atomic_block  # (inside a caller's transaction: theirs)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                if write:
                    cursor.execute("LOCK TABLE scoring_rating, scoring_ratingpoint IN EXCLUSIVE MODE")
                elif snapshot:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        points: list[tuple[int, int, str, int, float, float]] = []
        replay = ratings_replay(points=points)
        problems = ratings_compare(replay) + points_compare(points)
        if write and problems:
            RatingPoint.objects.all().delete()
            Rating.objects.all().delete()
            Rating.objects.bulk_create(
                [Rating(player_id=player_id, rules=rules, bot=player_id in replay.bots, mu=mu, sigma=sigma,
                        rating=display_value(mu, sigma), rounds=rounds, last_round_id=last_round)
                 for (rules, player_id), (mu, sigma, rounds, last_round) in replay.ratings.items()],
                batch_size=2000,
            )
            RatingPoint.objects.bulk_create(
                [RatingPoint(round_id=round_id, player_id=player_id, rules=rules, rank=rank, mu=mu, sigma=sigma,
                             rating=display_value(mu, sigma))
                 for round_id, player_id, rules, rank, mu, sigma in points],
                batch_size=5000,
            )
    return problems


def _bots_among(player_ids: set[int]) -> set[int]:
    found: set[int] = set()
    ordered = sorted(player_ids)
    for start in range(0, len(ordered), 5000):
        found.update(Player.objects.filter(pk__in=ordered[start:start + 5000], is_bot=True)
                     .values_list("pk", flat=True))
    return found
