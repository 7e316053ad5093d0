"""The one writer of a move's statement: the ledger rows a request appended, the game row as they
left it, the table set open when the round ended, and what the apps above the stored game returned
for them: the streams app's notifications and wake-ups, the scoring app's round count (the round's
result, its lines, its rating moves and a league round's race step, ``scoring.services.round_counted``).
Those apps build their rows and leave the writing to the pipeline, so each can be run and tested alone and a move still
writes in one place.

One write stays with scoring: a league's standings (a materialized sum per league and player). They
are moved under the league lock, where the league limit is judged on the totals the round leaves and
a league it finishes is closed before the lock is let go; handing them here would split that decision
from the write it depends on.

On PostgreSQL a move's rows are one literal statement, :data:`MOVE_SQL` (the ledger rows, the game
row, the notifications and their wake-ups), and the move that ends a round adds a second,
:data:`ROUND_END_SQL` (the table set open, the round's result, lines, race step and rating moves, and
the notifications that tell them). Each is a data-modifying ``WITH`` whose parts take their rows as
one JSON array each (``jsonb_to_recordset``); the round's lines and rating rows take the result's id
from its ``RETURNING``. Their texts never change, so each is prepared once per connection whatever
was written (a statement built per number of rows would be parsed and planned anew for each shape),
and a part given no rows writes nothing. Elsewhere (SQLite) the ORM writes the same rows, one
statement each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from games import sql
from games.models import Game, Move, Table
from scoring import services as scoring_services
from scoring.models import PlayerResult, Rating, RatingPoint, RoundResult
from scoring.ratings import RatingMoves
from scoring.services import RoundCount
from streams import services as stream_services
from streams.channels import PG_CHANNEL
from streams.models import Notification

_NOTES = (
    "notes AS ("
    "INSERT INTO streams_notification (player_id, kind, table_id, game_id, data, created_at)"
    " SELECT player_id, kind, table_id, game_id, data, created_at FROM jsonb_to_recordset(%s::jsonb)"
    " AS n(player_id bigint, kind text, table_id bigint, game_id bigint, data jsonb, created_at timestamptz)"
    " RETURNING id), "
    "wake AS (SELECT pg_notify(%s::text, topic) FROM unnest(%s::text[]) AS topic) ")

# bench.http: a move's writes as this one prepared statement, against one built per move from the
# models' metadata (a VALUES row per inserted row), and against MOVE_SQL and ROUND_END_SQL as one
# statement (every part costs PostgreSQL its executor set-up even when it is given no rows).
MOVE_SQL = (
    "WITH moves AS ("
    "INSERT INTO games_move (game_id, seq, actor, seat, player_id, action, events, created_at, prev_hash, hash)"
    " SELECT game_id, seq, actor, seat, player_id, action, events, created_at, prev_hash, hash"
    " FROM jsonb_to_recordset(%s::jsonb) AS m(game_id bigint, seq integer, actor text, seat integer,"
    " player_id bigint, action jsonb, events jsonb, created_at timestamptz, prev_hash text, hash text)"
    " RETURNING id), "
    "game AS ("
    "UPDATE games_game SET state = %s::jsonb, version = %s::integer, ledger_head = %s::text, turn = %s::integer,"
    " deadline = %s::timestamptz, hermann_deadline = %s::timestamptz, status = %s::text, result = %s::jsonb,"
    " reminder_at = %s::timestamptz, finished_at = %s::timestamptz WHERE id = %s::bigint RETURNING 1), "
    + _NOTES +
    "SELECT (SELECT array_agg(id ORDER BY id) FROM moves), (SELECT count(*) FROM game),"
    " (SELECT array_agg(id ORDER BY id) FROM notes), (SELECT count(*) FROM wake)"
)

# bench.http (with MOVE_SQL): what follows a round's end, the second statement of the move that ended it.
ROUND_END_SQL = (
    "WITH opened AS ("
    "UPDATE games_table SET status = 'open' WHERE id = %s::bigint AND status = 'playing' RETURNING 1), "
    "result AS ("
    "INSERT INTO scoring_roundresult (game_id, table_id, league_id, number, rules, scoring, reason, winner_id,"
    " multiplier, counted, practice, rated, finished_at, source, season, status)"
    " SELECT game_id, table_id, league_id, number, rules, scoring, reason, winner_id, multiplier, counted,"
    " practice, rated, finished_at, source, season, status FROM jsonb_to_recordset(%s::jsonb) AS r(game_id bigint,"
    " table_id bigint, league_id bigint, number integer, rules text, scoring text, reason text, winner_id bigint,"
    " multiplier integer, counted boolean, practice boolean, rated boolean, finished_at timestamptz, source text,"
    " season integer, status text)"
    " RETURNING id), "
    "lines AS ("
    "INSERT INTO scoring_playerresult (round_id, player_id, table_id, league_id, rules, seat, rank, cards_left,"
    " raw_points, multiplier, points, won, multiplier_bonus, practice, finished_at)"
    " SELECT result.id, l.player_id, l.table_id, l.league_id, l.rules, l.seat, l.rank, l.cards_left, l.raw_points,"
    " l.multiplier, l.points, l.won, l.multiplier_bonus, l.practice, l.finished_at"
    " FROM result, jsonb_to_recordset(%s::jsonb) AS l(player_id bigint, table_id bigint, league_id bigint,"
    " rules text, seat integer, rank integer, cards_left integer, raw_points integer, multiplier integer,"
    " points integer, won boolean, multiplier_bonus integer, practice boolean, finished_at timestamptz)"
    " RETURNING id), "
    "race AS ("
    "INSERT INTO scoring_racestep (league_id, season, step, round_id, totals)"
    " SELECT s.league_id, s.season, s.step, result.id, s.totals FROM result, jsonb_to_recordset(%s::jsonb)"
    " AS s(league_id bigint, season integer, step integer, totals jsonb)"
    " RETURNING id), "
    "rated AS ("
    "UPDATE scoring_rating SET mu = r.mu, sigma = r.sigma, rating = r.rating, rounds = r.rounds,"
    " last_round_id = result.id FROM result, jsonb_to_recordset(%s::jsonb) AS r(id bigint, mu float8,"
    " sigma float8, rating float8, rounds integer) WHERE scoring_rating.id = r.id"
    " RETURNING 1), "
    "points AS ("
    "INSERT INTO scoring_ratingpoint (round_id, player_id, rules, rank, mu, sigma, rating)"
    " SELECT result.id, p.player_id, p.rules, p.rank, p.mu, p.sigma, p.rating"
    " FROM result, jsonb_to_recordset(%s::jsonb)"
    " AS p(player_id bigint, rules text, rank integer, mu float8, sigma float8, rating float8)"
    " RETURNING 1), "
    + _NOTES +
    "SELECT (SELECT id FROM result), (SELECT array_agg(id ORDER BY id) FROM lines), (SELECT id FROM race),"
    " (SELECT count(*) FROM rated), (SELECT array_agg(id ORDER BY id) FROM notes), (SELECT count(*) FROM wake)"
)

#: The game row's fields a move changes (all written, the unchanged with the values they have).
GAME_FIELDS = ("state", "version", "ledger_head", "turn", "deadline", "hermann_deadline", "reminder_at", "status",
               "result", "finished_at")


@dataclass
class MoveWrites:
    """What one statement writes, empty parts nothing: a move's rows (``game``, ``moves``) or what
    follows a round's end (``table_opened``, ``round_count``), each with its notifications."""

    game: Game | None = None  #: its row as the appended moves left it (one row: else the write fails)
    moves: list[Move] = field(default_factory=list)
    table_opened: int | None = None  #: the table to set open (if it is playing): the round ended
    round_count: RoundCount | None = None  #: the ended round's result, lines and rating moves
    notifications: list[Notification] = field(default_factory=list)
    wake: tuple[str, ...] = ()  #: topics to ``pg_notify`` (``streams.channels.published_on_commit``)


def move_write(writes: MoveWrites) -> None:
    """Write ``writes`` (in the caller's transaction); inserted rows get their ids, as from ``bulk_create``."""
    if (writes.game is not None or writes.moves) and (writes.table_opened is not None or writes.round_count):
        raise ValueError("a move's rows and what follows its round's end are two writes")
    now = timezone.now()
    for note in writes.notifications:
        note.created_at = note.created_at or now
    if connection.vendor != "postgresql":
        _written_by_the_orm(writes)
    elif writes.game is not None or writes.moves:
        _move_written(writes)
    else:
        _round_end_written(writes)


@transaction.atomic
def round_recorded(*, game: Game, seat_players: dict[int, int] | None = None,
                   bots: set[int] | None = None) -> RoundResult:
    """Count and write a finished round outside a move (a round's end without its last move: the
    scoring tests, ``bench.scoring``), with the season_over of a season it ended; the round's row when
    it was recorded already."""
    count = scoring_services.round_counted(game=game, seat_players=seat_players, bots=bots)
    if count is None:
        return RoundResult.objects.get(game_id=game.pk)
    move_write(MoveWrites(round_count=count))
    stream_services.notifications_create(count.season_over)
    return count.result


def _rows(objects: Any, names: tuple[str, ...]) -> Any:
    """Model instances as one JSON array of their fields ``names`` (datetimes in ISO form), a ``pk``
    as ``id``."""
    rows = []
    for obj in objects:
        row = {}
        for name in names:
            value = getattr(obj, name)
            row["id" if name == "pk" else name] = value.isoformat() if hasattr(value, "isoformat") else value
        rows.append(row)
    return sql.jsonb(rows)


MOVE_COLUMNS = ("game_id", "seq", "actor", "seat", "player_id", "action", "events", "created_at", "prev_hash",
                "hash")
RESULT_COLUMNS = ("game_id", "table_id", "league_id", "number", "rules", "scoring", "reason", "winner_id",
                  "multiplier", "counted", "practice", "rated", "finished_at", "source", "season", "status")
RACE_COLUMNS = ("league_id", "season", "step", "totals")
LINE_COLUMNS = ("player_id", "table_id", "league_id", "rules", "seat", "rank", "cards_left", "raw_points",
                "multiplier", "points", "won", "multiplier_bonus", "practice", "finished_at")
NOTE_COLUMNS = ("player_id", "kind", "table_id", "game_id", "data", "created_at")
RATING_COLUMNS = ("pk", "mu", "sigma", "rating", "rounds")
POINT_COLUMNS = ("player_id", "rules", "rank", "mu", "sigma", "rating")


def _move_written(writes: MoveWrites) -> None:
    game = writes.game
    if game is not None:
        row = [sql.jsonb(game.state), game.version, game.ledger_head, game.turn, game.deadline,
               game.hermann_deadline, game.status, sql.jsonb(game.result), game.reminder_at, game.finished_at,
               game.pk]
    else:
        row = [None] * 11
    params = [_rows(writes.moves, MOVE_COLUMNS), *row, _rows(writes.notifications, NOTE_COLUMNS), PG_CHANNEL,
              list(writes.wake)]
    with sql.cursor() as c:
        c.execute(MOVE_SQL, params)
        move_ids, games, note_ids, _woken = c.fetchone()
    if games != (game is not None):
        raise DatabaseError(f"expected to update {int(game is not None)} game, found {games}")
    _ids_set(writes.moves, move_ids or [])
    _ids_set(writes.notifications, note_ids or [])


def _round_end_written(writes: MoveWrites) -> None:
    count = writes.round_count
    rated = count.rating_moves if count is not None else None
    ratings = rated.ratings if rated else []
    params = [writes.table_opened, _rows([count.result] if count else [], RESULT_COLUMNS),
              _rows(count.lines if count else [], LINE_COLUMNS),
              _rows([count.race_step] if count and count.race_step else [], RACE_COLUMNS),
              _rows(ratings, RATING_COLUMNS), _rows(rated.points if rated else [], POINT_COLUMNS),
              _rows(writes.notifications, NOTE_COLUMNS), PG_CHANNEL, list(writes.wake)]
    with sql.cursor() as c:
        c.execute(ROUND_END_SQL, params)
        result_id, line_ids, race_id, ratings_moved, note_ids, _woken = c.fetchone()
    if ratings_moved != len(ratings) or (result_id is not None) != (count is not None):
        raise DatabaseError(f"expected to update {len(ratings)} ratings and to insert {int(count is not None)} "
                            f"result, found {ratings_moved} and {result_id}")
    _ids_set(writes.notifications, note_ids or [])
    if count is not None:
        _ids_set([count.result], [result_id])
        _ids_set(count.lines, line_ids or [])
        for line in count.lines:
            line.round_id = result_id
        if count.race_step is not None:
            _ids_set([count.race_step], [race_id])
            count.race_step.round_id = result_id
        for rating in ratings:
            rating.last_round_id = result_id
        for point in rated.points if rated else ():
            point.round_id = result_id


def _ids_set(rows: list[Any], ids: list[int]) -> None:
    """The ids the rows took, in the order they were inserted (a sequence hands them out in that order)."""
    for model_row, pk in zip(rows, ids, strict=True):
        model_row.pk = pk
        model_row._state.adding = False
        model_row._state.db = connection.alias


def _written_by_the_orm(writes: MoveWrites) -> None:
    Move.objects.bulk_create(writes.moves)
    game = writes.game
    if game is not None:
        updated = Game.objects.filter(pk=game.pk).update(**{name: getattr(game, name) for name in GAME_FIELDS})
        if updated != 1:
            raise DatabaseError(f"expected one game to update, found {updated}")
    if writes.table_opened is not None:
        Table.objects.filter(pk=writes.table_opened, status="playing").update(status="open")
    count = writes.round_count
    if count is not None:
        count.result.save()  # the lines and rating rows name it: they take its id as they are written
        PlayerResult.objects.bulk_create(count.lines)
        if count.race_step is not None:  # the season's race step of a counted league round
            count.race_step.save()
        if count.rating_moves is not None:
            Rating.objects.bulk_update(count.rating_moves.ratings, RatingMoves.FIELDS)
            RatingPoint.objects.bulk_create(count.rating_moves.points)
    Notification.objects.bulk_create(writes.notifications)
