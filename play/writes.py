"""The one writer of a move's statement: the ledger rows a request appended, the game row as they
left it, the table set open when the round ended, and what the apps above the stored game returned
for them (the streams app's notifications and wake-ups, the scoring app's rating moves). Those apps
build their rows and leave the writing to the pipeline, so each can be run and tested alone and a
move still writes in one place.

On PostgreSQL the writes are one literal statement, :data:`MOVE_SQL`: a data-modifying ``WITH`` whose
parts take their rows as one JSON array each (``jsonb_to_recordset``). Its text never changes, so it is
prepared once per connection whatever the move wrote (a statement built per number of rows would be
parsed and planned anew for each shape), and a part given no rows writes nothing. Elsewhere (SQLite)
the ORM writes the same rows, one statement each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import DatabaseError, connection
from django.utils import timezone

from games import sql
from games.models import Game, Move, Table
from scoring.models import Rating, RatingPoint
from scoring.ratings import RatingMoves
from streams.channels import PG_CHANNEL
from streams.models import Notification

# bench.http: the move's writes as this one prepared statement, against one built per move from the
# models' metadata (a VALUES row per inserted row).
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
    " finished_at = %s::timestamptz WHERE id = %s::bigint RETURNING 1), "
    "opened AS ("
    "UPDATE games_table SET status = 'open' WHERE id = %s::bigint AND status = 'playing' RETURNING 1), "
    "notes AS ("
    "INSERT INTO streams_notification (player_id, kind, table_id, game_id, data, created_at)"
    " SELECT player_id, kind, table_id, game_id, data, created_at FROM jsonb_to_recordset(%s::jsonb)"
    " AS n(player_id bigint, kind text, table_id bigint, game_id bigint, data jsonb, created_at timestamptz)"
    " RETURNING id), "
    "rated AS ("
    "UPDATE scoring_rating SET mu = r.mu, sigma = r.sigma, rating = r.rating, rounds = r.rounds,"
    " last_round_id = r.last_round_id FROM jsonb_to_recordset(%s::jsonb) AS r(id bigint, mu float8,"
    " sigma float8, rating float8, rounds integer, last_round_id bigint) WHERE scoring_rating.id = r.id"
    " RETURNING 1), "
    "points AS ("
    "INSERT INTO scoring_ratingpoint (round_id, player_id, rules, rank, mu, sigma, rating)"
    " SELECT round_id, player_id, rules, rank, mu, sigma, rating FROM jsonb_to_recordset(%s::jsonb)"
    " AS p(round_id bigint, player_id bigint, rules text, rank integer, mu float8, sigma float8, rating float8)"
    " RETURNING 1), "
    "wake AS (SELECT pg_notify(%s::text, topic) FROM unnest(%s::text[]) AS topic) "
    "SELECT (SELECT array_agg(id ORDER BY id) FROM moves), (SELECT count(*) FROM game),"
    " (SELECT array_agg(id ORDER BY id) FROM notes), (SELECT count(*) FROM rated), (SELECT count(*) FROM wake)"
)

#: The game row's fields a move changes (all written, the unchanged with the values they have).
GAME_FIELDS = ("state", "version", "ledger_head", "turn", "deadline", "hermann_deadline", "status", "result",
               "finished_at")


@dataclass
class MoveWrites:
    """What one statement of a move writes; empty parts write nothing."""

    game: Game | None = None  #: its row as the appended moves left it (one row: else the write fails)
    moves: list[Move] = field(default_factory=list)
    table_opened: int | None = None  #: the table to set open (if it is playing): the round ended
    notifications: list[Notification] = field(default_factory=list)
    rating_moves: RatingMoves | None = None
    wake: tuple[str, ...] = ()  #: topics to ``pg_notify`` (``streams.channels.published_on_commit``)


def move_write(writes: MoveWrites) -> None:
    """Write ``writes`` (in the caller's transaction); inserted rows get their ids, as from ``bulk_create``."""
    now = timezone.now()
    for note in writes.notifications:
        note.created_at = note.created_at or now
    if connection.vendor == "postgresql":
        _written_as_one(writes)
    else:
        _written_by_the_orm(writes)


def _written_as_one(writes: MoveWrites) -> None:
    game = writes.game
    moves = [{"game_id": m.game_id, "seq": m.seq, "actor": m.actor, "seat": m.seat, "player_id": m.player_id,
              "action": m.action, "events": m.events, "created_at": m.created_at.isoformat(),
              "prev_hash": m.prev_hash, "hash": m.hash} for m in writes.moves]
    notes = [{"player_id": n.player_id, "kind": n.kind, "table_id": n.table_id, "game_id": n.game_id,
              "data": n.data, "created_at": n.created_at.isoformat()} for n in writes.notifications]
    rated = writes.rating_moves
    ratings = [{"id": r.pk, "mu": r.mu, "sigma": r.sigma, "rating": r.rating, "rounds": r.rounds,
                "last_round_id": r.last_round_id} for r in (rated.ratings if rated else ())]
    points = [{"round_id": p.round_id, "player_id": p.player_id, "rules": p.rules, "rank": p.rank, "mu": p.mu,
               "sigma": p.sigma, "rating": p.rating} for p in (rated.points if rated else ())]
    if game is not None:
        row = [sql.jsonb(game.state), game.version, game.ledger_head, game.turn, game.deadline,
               game.hermann_deadline, game.status, sql.jsonb(game.result), game.finished_at, game.pk]
    else:
        row = [None] * 10
    params = [sql.jsonb(moves), *row, writes.table_opened, sql.jsonb(notes), sql.jsonb(ratings),
              sql.jsonb(points), PG_CHANNEL, list(writes.wake)]
    with sql.cursor() as c:
        c.execute(MOVE_SQL, params)
        move_ids, games, note_ids, ratings_moved, _woken = c.fetchone()
    if games != (game is not None) or ratings_moved != len(ratings):
        raise DatabaseError(f"expected to update {int(game is not None)} game and {len(ratings)} ratings, "
                            f"found {games} and {ratings_moved}")
    _ids_set(writes.moves, move_ids or [])
    _ids_set(writes.notifications, note_ids or [])


def _ids_set(rows: list[Move] | list[Notification], ids: list[int]) -> None:
    """The ids the rows took, in the order they were inserted (a sequence hands them out in that order)."""
    for row, pk in zip(rows, ids, strict=True):
        row.pk = pk
        row._state.adding = False
        row._state.db = connection.alias


def _written_by_the_orm(writes: MoveWrites) -> None:
    Move.objects.bulk_create(writes.moves)
    game = writes.game
    if game is not None:
        updated = Game.objects.filter(pk=game.pk).update(**{name: getattr(game, name) for name in GAME_FIELDS})
        if updated != 1:
            raise DatabaseError(f"expected one game to update, found {updated}")
    if writes.table_opened is not None:
        Table.objects.filter(pk=writes.table_opened, status="playing").update(status="open")
    Notification.objects.bulk_create(writes.notifications)
    if writes.rating_moves is not None:
        Rating.objects.bulk_update(writes.rating_moves.ratings, RatingMoves.FIELDS)
        RatingPoint.objects.bulk_create(writes.rating_moves.points)
