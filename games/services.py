"""Use cases that write: one transaction each, keyword-only arguments, domain errors out.

``move_submit`` is THE path for every action that changes a round: people (``actor="player"``),
bots (``"bot"``), the turn clock (``"clock"``) and the house penalty for an illegal play
(``"system"``). It locks the game row, checks seat, turn and ``expected_version``, applies the
engine, appends a hash-chained ledger row, saves snapshot + version + deadline in one UPDATE,
and lets seated bots answer in the same transaction under the same lock (so a person can play a
whole round against bots with nothing else running). What follows a move is sent two ways:
:data:`moves_appended` inside the transaction, with the round as it is in memory (the streams app
writes its notifications there, so they commit with the move and cost no re-read), and
:data:`move_committed` plus the clock tasks with ``transaction.on_commit``.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.models import Token

from games import engine, sql
from games.clocks import clock_check, clock_schedule, clocks_first
from games.models import Game, IdempotencyRecord, Move, Player, Seat, Table
from games.rule_messages import rule_message
from maumau.errors import (
    ConflictError,
    DomainError,
    IllegalMoveError,
    NotFoundError,
    PermissionDeniedError,
    ValidationFailed,
)

#: Sent inside move_submit's transaction whenever ledger rows were appended: game (as saved),
#: state (engine state after the rows), seats (game-seat order, players loaded), moves (the new
#: rows), writes (a ``games.sql.Together`` holding the move's own INSERT and UPDATE, sent after the
#: receivers: they add their inserts there, so that all of a move's writes cost one round trip).
#: Receivers write what must commit with the move; a receiver that raises fails the move, so they
#: do nothing but plain inserts.
moves_appended = Signal()
#: Sent on commit after every move_submit that appended ledger rows: game_id, version, seqs.
move_committed = Signal()
#: Sent on commit when a round starts: game_id.
round_started = Signal()

#: A request's bots may make at most this many moves (max_turns ends any game long before).
BOT_MOVE_LIMIT = 20_000


def canonical_json(value: Any) -> str:
    """The one serialization that hashes and fingerprints use: sorted keys, no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def move_hash(*, prev_hash: str, row: dict[str, Any]) -> str:
    return hashlib.sha256((prev_hash + canonical_json(row)).encode()).hexdigest()


def move_row(move: Move) -> dict[str, Any]:
    """The fields a ledger hash covers (everything but the hashes themselves)."""
    return {
        "game": move.game_id,
        "seq": move.seq,
        "actor": move.actor,
        "seat": move.seat,
        "player": move.player_id,
        "action": move.action,
        "events": move.events,
        "created_at": move.created_at.isoformat(),
    }


# --- players ---------------------------------------------------------------------------------


def player_create(*, name: str) -> tuple[Player, str]:
    """A person with an auth user and a DRF token; returns (player, token key)."""
    with transaction.atomic():
        user = User.objects.create(username=f"p-{secrets.token_hex(12)}")
        user.set_unusable_password()
        user.save(update_fields=["password"])
        player = Player.objects.create(name=name, user=user)
        token = Token.objects.create(user=user)
    return player, token.key


# --- tables ----------------------------------------------------------------------------------


def _rules_from(name: str, options: dict[str, Any] | None) -> engine.RuleSet:
    try:
        return engine.RuleSet.from_preset(name, options or {})
    except engine.RulesError as exc:
        raise ValidationFailed(
            message=_("These rules are not valid."),
            details={"option": exc.option, "reason": str(exc.message)},
        ) from exc


def table_create(
    *,
    host: Player,
    rules: str,
    options: dict[str, Any] | None = None,
    max_players: int | None = None,
    league_id: int | None = None,
) -> Table:
    """The host sits in seat 0. Options are validated by the engine and stored effective."""
    rule_set = _rules_from(rules, options)
    if max_players is None:
        max_players = min(4, rule_set.max_players)
    if not rule_set.min_players <= max_players <= rule_set.max_players:
        raise ValidationFailed(
            message=_("max_players is out of range for these rules."),
            details={"field": "max_players", "min": rule_set.min_players, "max": rule_set.max_players},
        )
    league = None
    if league_id is not None:
        from scoring.models import League

        league = League.objects.filter(pk=league_id).first()
        if league is None:
            raise NotFoundError(details={"field": "league"})
        if league.status != "active":
            raise ConflictError("table_state", _("This league is over."), details={"reason": "league_finished"})
        if league.rules != rule_set.name:
            raise ValidationFailed(
                message=_("The table's rules must be the league's rules."),
                details={"field": "league", "league_rules": league.rules},
            )
    with transaction.atomic():
        table = Table.objects.create(
            host=host, rules=rule_set.name, options=rule_set.to_json(), max_players=max_players, league=league
        )
        Seat.objects.create(table=table, position=0, player=host)
    return table


def _table_locked(table_id: int) -> Table:
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise NotFoundError()
    return table


def _table_of_host(table_id: int, player: Player) -> Table:
    """The locked table, for what only its host may do while it is not closed."""
    table = _table_locked(table_id)
    _host_check(table, player)
    return table


def _host_check(table: Table, player: Player) -> None:
    if table.host_id != player.pk:
        raise PermissionDeniedError(message=_("Only the host may do this."))
    if table.status == "closed":
        raise ConflictError("table_state", details={"reason": "table_closed"})


def _active_game(table: Table) -> Game | None:
    return table.games.filter(status="active").order_by("-number").first()


def table_join(*, table_id: int, player: Player) -> Table:
    """Take the next free seat (from the next round on if one is running); a leaver, or a person a bot
    stood in for after timeouts, takes their seat back."""
    with transaction.atomic():
        table = _table_locked(table_id)
        if table.status == "closed":
            raise ConflictError("table_state", details={"reason": "table_closed"})
        seats = list(table.seats.all())
        mine = next((s for s in seats if s.player_id == player.pk), None)
        if mine is not None and not mine.left:
            if mine.bot_controlled and not player.is_bot:  # a bot took over after timeouts: take it back
                mine.bot_controlled = False
                mine.consecutive_timeouts = 0
                mine.save(update_fields=["bot_controlled", "consecutive_timeouts"])
                return table
            raise ConflictError("already_seated", details={"position": mine.position})
        if sum(1 for s in seats if not s.left) >= table.max_players:
            raise ConflictError("table_full", details={"max_players": table.max_players})
        if mine is not None:
            mine.left = False
            mine.bot_controlled = False
            mine.save(update_fields=["left", "bot_controlled"])
        else:
            position = max((s.position for s in seats), default=-1) + 1
            Seat.objects.create(table=table, position=position, player=player)
    return table


def table_bot_add(*, table_id: int, player: Player, level: str) -> Table:
    """The host seats a bot; it gets its own bot Player so results always name a Player."""
    with transaction.atomic():
        table = _table_of_host(table_id, player)
        seats = list(table.seats.all())
        if sum(1 for s in seats if not s.left) >= table.max_players:
            raise ConflictError("table_full", details={"max_players": table.max_players})
        position = max((s.position for s in seats), default=-1) + 1
        bot = Player.objects.create(name=f"Bot {position} ({level})", is_bot=True, bot_level=level)
        Seat.objects.create(table=table, position=position, player=bot, bot_controlled=True)
    return table


def table_leave(*, table_id: int, player: Player) -> Table:
    """Leave the table. In a running round a bot takes over the seat at once; the host role
    passes to the next person; a table without people closes."""
    with transaction.atomic():
        table = _table_locked(table_id)
        seats = list(table.seats.select_related("player"))
        mine = next((s for s in seats if s.player_id == player.pk and not s.left), None)
        if mine is None:
            raise PermissionDeniedError(message=_("You are not seated at this table."))
        mine.left = True
        mine.bot_controlled = True
        mine.save(update_fields=["left", "bot_controlled"])
        people = [s for s in seats if not s.left and not s.player.is_bot]
        fields = []
        if table.host_id == player.pk and people:
            table.host_id = people[0].player_id
            fields.append("host")
        game = _active_game(table)
        if not people:
            table.status = "closed"
            fields.append("status")
        if fields:
            table.save(update_fields=fields)
        if game is not None and mine.position in game.positions:
            # The bot that took over answers now if the leaver was on turn.
            move_submit(game_id=game.pk, actor="bot", seat=None, action=None)
    return table


# --- rounds ----------------------------------------------------------------------------------


def _deadlines(game: Game, state: engine.GameState, rules: engine.RuleSet, now: Any, turn_passed: bool) -> None:
    """The turn clock restarts when a new turn begins; the Hermann clock runs while a race is open.

    A turn is one time budget: a call said by another seat, a penalty row or a drawn card that
    may still be played do not give the player on turn more time.
    """
    if state.status != "active":
        game.deadline = None
        game.hermann_deadline = None
        return
    if turn_passed or game.deadline is None:
        game.deadline = now + timedelta(seconds=rules.turn_seconds) if rules.turn_seconds else None
    if state.hermann_open:
        if game.hermann_deadline is None:
            game.hermann_deadline = now + timedelta(seconds=rules.hermann_seconds)
    else:
        game.hermann_deadline = None


def _setup_args(setup: Any, players: int) -> dict[str, Any]:
    if not isinstance(setup, dict):
        raise ValidationFailed(details={"field": "setup", "reason": "must be an object"})
    extra = set(setup) - {"hands", "starter", "stock", "first"}
    if extra:
        raise ValidationFailed(details={"field": "setup", "unknown": sorted(map(str, extra))})
    hands, starter, stock = setup.get("hands"), setup.get("starter"), setup.get("stock", [])
    if not (isinstance(hands, list) and all(isinstance(h, list) and all(isinstance(c, str) for c in h) for h in hands)):
        raise ValidationFailed(details={"field": "setup.hands", "reason": "a list of lists of card codes"})
    if len(hands) != players:
        raise ValidationFailed(details={"field": "setup.hands", "reason": "one hand per seated player",
                                        "players": players})
    if not isinstance(starter, str):
        raise ValidationFailed(details={"field": "setup.starter", "reason": "a card code"})
    if not (isinstance(stock, list) and all(isinstance(c, str) for c in stock)):
        raise ValidationFailed(details={"field": "setup.stock", "reason": "a list of card codes, top first"})
    first = setup.get("first", 0)
    if type(first) is not int or not 0 <= first < players:
        raise ValidationFailed(details={"field": "setup.first", "reason": "a seat number"})
    return {"hands": hands, "starter": starter, "stock": stock, "first": first}


def round_start(*, table_id: int, player: Player, seed: Any = None, setup: Any = None) -> Game:
    """The host starts the first round or the next one ("Nochmal!"), opened by the next seat.

    One round trip reads the locked table, its seats and whether a round runs; one writes the new
    game and the table (fixed SQL, see games/sql.py: a round starts every few dozen moves)."""
    with transaction.atomic():
        found = sql.table_locked_with_seats(table_id)
        if found is None:
            raise NotFoundError()
        table, table_seats, active_games = found
        _host_check(table, player)
        from scoring.services import league_assert_open  # a finished league takes no more rounds

        league_assert_open(league=table.league)
        if active_games:
            raise ConflictError("table_state", _("A round is running at this table."),
                                details={"reason": "round_running"})
        seats = [s for s in table_seats if not s.left]
        rules = engine.RuleSet.from_json(table.options)
        if len(seats) < rules.min_players:
            raise ConflictError("table_state", _("Not enough players at the table."),
                                details={"reason": "not_enough_players", "min_players": rules.min_players})
        players = len(seats)
        if seed is None:
            seed = secrets.token_hex(32)
        elif isinstance(seed, bool) or not isinstance(seed, (int, str)) or not str(seed):
            raise ValidationFailed(details={"field": "seed", "reason": "an integer or a string"})
        seed = str(seed)
        try:
            if setup is not None:
                args = _setup_args(setup, players)
                state = engine.new_game_from_setup(rules, players=players, seed=seed, **args)
                first = args["first"]
            else:
                first = table.rounds_started % players
                state = engine.new_game(rules, players=players, seed=seed, first=first)
        except engine.SetupError as exc:
            raise ValidationFailed(message=_("This deal is not possible."),
                                   details={"field": "setup", "reason": str(exc)}) from exc
        now = timezone.now()
        game = Game(
            table=table,
            number=table.rounds_started + 1,
            rules=rules.to_json(),
            seed=seed,
            setup=setup,
            first=first,
            positions=[s.position for s in seats],
            turn=state.turn,
        )
        game.state_set(state)
        _deadlines(game, state, rules, now, turn_passed=True)
        table.rounds_started += 1
        table.status = "playing"
        writes = sql.Together(independent=True)
        sql.rows_insert([game], together=writes)
        sql.row_update(table, ["rounds_started", "status"], together=writes)
        writes.send()
        game_id = game.pk
        transaction.on_commit(lambda: round_started.send(sender=Game, game_id=game_id))
        clock_schedule(game)  # the first turn's clock task, sent on commit
        if any(s.bot_controlled for s in seats):
            move_submit(game_id=game.pk, actor="bot", seat=None, action=None)
            game.refresh_from_db()
    return game


# --- moves -----------------------------------------------------------------------------------


@dataclass
class MoveOutcome:
    """What move_submit did: the answer body for the caller, and the ledger rows it appended."""

    status_code: int
    body: dict[str, Any]
    game: Game | None = None
    moves: list[Move] = field(default_factory=list)
    replayed: bool = False


@dataclass
class _Round:
    """One locked game with its state and seats, and the ledger rows appended so far."""

    game: Game
    state: engine.GameState
    rules: engine.RuleSet
    seats: list[Seat]  # game seat i -> Seat
    pending: list[Move] = field(default_factory=list)

    def append(self, *, actor: str, seat: int | None, player: Player | None, action: dict[str, Any],
               events: list[dict[str, Any]], now: Any) -> Move:
        game = self.game
        move = Move(game=game, seq=game.version + 1, actor=actor, seat=seat, player=player, action=action,
                    events=events, created_at=now, prev_hash=game.ledger_head)
        move.hash = move_hash(prev_hash=game.ledger_head, row=move_row(move))
        game.version = move.seq
        game.ledger_head = move.hash
        self.pending.append(move)
        return move


def _idempotent_replay(player: Player, key: str, fingerprint: str) -> MoveOutcome | None:
    record = IdempotencyRecord.objects.filter(player=player, key=key).first()
    if record is None:
        return None
    if record.fingerprint != fingerprint:
        raise DomainError("idempotency_key_reused", status=422, details={"key": key})
    return MoveOutcome(status_code=record.status_code, body=record.body, replayed=True)


def _idempotency_claim(player: Player, key: str) -> None:
    """A duplicate that arrives while the first request with its key is still running gets 409.

    On PostgreSQL a transaction-scoped advisory try-lock on (player, key) tells at once; once the
    first commits, a retry finds its stored answer instead. SQLite runs one writer at a time
    (immediate transactions), so a duplicate there simply waits and then gets the replay.
    """
    if connection.vendor != "postgresql":
        return
    digest = hashlib.sha256(f"idempotency:{player.pk}:{key}".encode()).digest()
    lock_id = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [lock_id])
        claimed = cursor.fetchone()[0]
    if not claimed:
        raise ConflictError("idempotency_in_progress", details={"key": key})


@clocks_first
def move_submit(
    *,
    game_id: int,
    actor: str,
    seat: int | None = None,
    player: Player | None = None,
    action: dict[str, Any] | None,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    fingerprint: str = "",
    play_bots: bool = True,
    render: Callable[[Game, engine.GameState, list[Seat], int | None, list[Move]], dict[str, Any]] | None = None,
) -> MoveOutcome:
    """Apply one action (``action=None`` with ``actor="bot"``: let the bots on turn play).

    ``actor="player"`` needs ``player`` (the seat is looked up); ``"bot"``/``"system"`` need a seat;
    ``"clock"`` applies a clock action (``timeout``/``hermann_timeout``) for ``seat=None``.
    ``render(game, state, seats, viewer_seat, moves)`` builds the caller's answer inside the
    transaction, so the answer stored for an Idempotency-Key is exactly the one sent.
    Raises DomainError (400/403/404/409/422); a 422 in ``house`` still commits its penalty row.
    """
    parsed: dict[str, Any] | None = None
    if action is not None:
        try:
            parsed = engine.parse_action(action, clock=actor == "clock")
        except engine.ActionError as exc:
            raise ValidationFailed(message=_("This action is malformed."),
                                   details={"reason": exc.message, **exc.details}) from exc
    refusal: DomainError | None = None
    with transaction.atomic():
        if idempotency_key and player is not None:
            # One look-up, after the claim: on PostgreSQL the claim waits for no one, and once it is
            # ours every earlier request with this key has committed; on SQLite the immediate
            # transaction already runs alone. So a finished first request is always seen here.
            _idempotency_claim(player, idempotency_key)
            replay = _idempotent_replay(player, idempotency_key, fingerprint)
            if replay is not None:
                return replay
        found = sql.game_locked_with_seats(game_id)
        if found is None:
            raise NotFoundError()
        game, table_seats = found
        if actor != "clock":
            clock_check(game)  # a passed deadline is resolved first (ClockDue, see clocks_first)
        seats = game.seats_in_order(table_seats)
        if actor == "player":
            assert player is not None
            seat = next((i for i, s in enumerate(seats) if s.player_id == player.pk), None)
            if seat is None:
                raise PermissionDeniedError(message=_("You are not seated in this round."))
            if seats[seat].left:  # a bot plays this seat now; joining again takes it back
                raise PermissionDeniedError(message=_("You left this table; a bot plays your seat."))
        if game.status != "active":
            raise ConflictError("game_finished")
        if expected_version is not None and expected_version != game.version:
            raise ConflictError("version_conflict", details={"version": game.version})
        state = game.engine_state()
        rnd = _Round(game=game, state=state, rules=state.rules, seats=seats)
        now = timezone.now()
        answer_from = 0
        if parsed is not None:
            try:
                state, events = engine.apply(state, None if actor == "clock" else seat, parsed)
            except engine.IllegalAction as exc:
                refusal = _refusal(rnd, exc, actor=actor, seat=seat, player=player, action=parsed, now=now)
                if isinstance(refusal, ConflictError):
                    raise refusal from exc
            else:
                if actor == "clock":
                    recorded_seat = game.turn
                else:
                    recorded_seat = seat
                rnd.append(actor=actor, seat=recorded_seat, player=player, action=parsed, events=events, now=now)
        if refusal is None and play_bots:
            _bots_play(rnd, now)
        if rnd.pending:
            # The ledger rows, the game row and what receivers add: one statement on PostgreSQL.
            writes = sql.Together(independent=True)
            _save_round(rnd, now, writes)
            _publish(rnd, writes)
            writes.send()
        viewer = seat if actor == "player" else None
        if refusal is not None:
            penalty = [e for m in rnd.pending for e in engine.redact_events(m.events, viewer)]
            refusal.details = {**refusal.details, "penalty": penalty, "version": game.version}
            body: dict[str, Any] = {"error": {"code": refusal.code, "message": str(refusal.message),
                                              "details": refusal.details}}
            status = refusal.status
        else:
            body = render(game, state, seats, viewer, rnd.pending[answer_from:]) if render else {}
            status = 200
        if idempotency_key and player is not None:
            # No savepoint: a duplicate key (only possible if the claim above was not exclusive)
            # fails the whole transaction anyway, and the ConflictError leaves the atomic block.
            try:
                IdempotencyRecord.objects.create(player=player, key=idempotency_key,
                                                 fingerprint=fingerprint, status_code=status, body=body)
            except IntegrityError as exc:
                raise ConflictError("idempotency_in_progress", details={"key": idempotency_key}) from exc
    outcome = MoveOutcome(status_code=status, body=body, game=game, moves=rnd.pending)
    if refusal is not None:
        raise refusal
    return outcome


def _refusal(rnd: _Round, exc: engine.IllegalAction, *, actor: str, seat: int | None, player: Player | None,
             action: dict[str, Any], now: Any) -> DomainError:
    """Map an engine refusal to its error; in ``house`` charge the penalty card (once per retry)."""
    if exc.code == "not_your_turn":
        return ConflictError("not_your_turn", details={"turn": rnd.state.turn})
    if exc.code == "game_over":
        return ConflictError("game_finished")
    if rnd.rules.penalize_illegal and actor in ("player", "bot") and seat is not None:
        penalty = engine.penalize_illegal(rnd.state, seat, action)  # a refused apply() changed nothing
        if penalty:
            rnd.append(actor="system", seat=seat, player=player, action=action, events=penalty, now=now)
    return IllegalMoveError(message=rule_message(exc.code),
                            details={"reason": exc.code, "rule": str(exc.message), **(exc.details or {})})


def _bots_play(rnd: _Round, now: Any) -> None:
    """Seated bots act until a person is on turn or the round ends, under the caller's lock.

    The rng of each bot move is seeded from the game's secret seed and its version, so a bot
    game is reproducible and its choices cannot be predicted from outside.
    """
    state = rnd.state
    for _step in range(BOT_MOVE_LIMIT):
        if state.status != "active":
            return
        acted = False
        if state.hermann_open:
            say = {"type": "say", "word": "hermann"}
            for game_seat, seat in enumerate(rnd.seats):
                if seat.bot_controlled and game_seat != state.turn and say in engine.legal_actions(state, game_seat):
                    _bot_apply(rnd, game_seat, say, now)
                    acted = True
                    if state.status != "active":
                        return
        turn = state.turn
        if turn is not None and rnd.seats[turn].bot_controlled:
            level = rnd.seats[turn].player.bot_level or "basic"
            rng = random.Random(f"{rnd.game.seed}:{rnd.game.version}")
            choice = engine.choose_bot_action(state, turn, level, rng)  # None when it may not act
            if choice is not None:
                acted = _bot_apply(rnd, turn, choice, now) or acted
        if not acted:
            return


def _bot_apply(rnd: _Round, game_seat: int, choice: dict[str, Any], now: Any) -> bool:
    seat = rnd.seats[game_seat]
    try:
        action = engine.parse_action(choice)
        rnd.state, events = engine.apply(rnd.state, game_seat, action)
    except (engine.ActionError, engine.IllegalAction):
        # A bot must only choose legal actions; if it does not, fall back to the first legal one.
        legal = engine.legal_actions(rnd.state, game_seat)
        if not legal:
            return False
        action = engine.parse_action(legal[0])
        rnd.state, events = engine.apply(rnd.state, game_seat, action)
    rnd.append(actor="bot", seat=game_seat, player=seat.player, action=action, events=events, now=now)
    return True


def _save_round(rnd: _Round, now: Any, writes: sql.Together) -> None:
    """One INSERT for the new ledger rows, one UPDATE for the game (added to ``writes``); the
    round's end, if it ended, after they are sent."""
    game, state = rnd.game, rnd.state
    sql.rows_insert(rnd.pending, together=writes)
    turn_passed = game.state["turns"] != state.turns or game.turn != state.turn
    game.state_set(state)
    game.turn = state.turn if state.status == "active" else None
    _deadlines(game, state, rnd.rules, now, turn_passed=turn_passed)
    fields = ["state", "version", "ledger_head", "turn", "deadline", "hermann_deadline"]
    if state.status != "active":
        game.status = "finished"
        game.result = state.result
        game.finished_at = now
        fields += ["status", "result", "finished_at"]
    sql.row_update(game, fields, together=writes)
    if game.status == "finished":
        writes.send()
        _round_finish(game, rnd.seats)


def _round_finish(game: Game, seats: list[Seat]) -> None:
    """The table is free for the next round; results go to scoring in the same transaction."""
    Table.objects.filter(pk=game.table_id, status="playing").update(status="open")
    try:
        from scoring.services import round_result_record
    except ImportError:  # pragma: no cover - scoring app not installed
        return
    round_result_record(game=game, seat_players={index: seat.player_id for index, seat in enumerate(seats)})


def _publish(rnd: _Round, writes: sql.Together) -> None:
    moves_appended.send(sender=Game, game=rnd.game, state=rnd.state, seats=rnd.seats, moves=list(rnd.pending),
                        writes=writes)
    clock_schedule(rnd.game)  # the expiry task for this version's deadlines, sent on commit
    game_id, version = rnd.game.pk, rnd.game.version
    seqs = [m.seq for m in rnd.pending]
    transaction.on_commit(lambda: move_committed.send(sender=Game, game_id=game_id, version=version, seqs=seqs))


def idempotency_records_purge(*, keep: timedelta) -> int:
    """Forget stored answers older than ``keep``: a retry comes within seconds or minutes, and a
    key reused after that is a new request (Stripe keeps keys for 24 hours, so do we by default)."""
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - keep).delete()
    return deleted
