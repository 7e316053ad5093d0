"""Use cases that write: one transaction each, keyword-only arguments, domain errors out. A use case's
transaction is ``database_retry.written_once_more`` (why: ``maumau.database_retry``; the move pipeline
has its own such loop).

``move_submit`` is the one path for everything that changes a round: a person's action, the bots on
turn, and the turn clock (the sweep and a request that finds a passed deadline).
Its body reads as the pipeline it runs. What follows a move is explicit: the apps above the stored
game return what a move means for them (the streams app its notifications and wake-ups, the scoring
app a finished round's result, lines and rating moves) and the pipeline writes it with the move
(``play.writes``: one statement on PostgreSQL, two at a round's end); webhook deliveries and a
strong bot's task go out on commit, the clocks stay in the game row (``play.clocks``). It returns
the round as it left it or raises; answering HTTP, and replaying an answer for an Idempotency-Key,
is the API's.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import engine, sql
from games.ledger import ledger_genesis, move_hash, move_row
from games.models import Game, IdempotencyRecord, League, LeagueMember, Move, Player, Seat, Table
from games.rule_messages import rule_message
from games.rule_sets import rule_set_from
from maumau import database_retry, observability
from maumau.errors import (
    ConflictError,
    DomainError,
    IllegalMoveError,
    NotFoundError,
    PermissionDeniedError,
    ValidationFailed,
)
from play import tasks, writes
from scoring import members
from scoring import services as scoring_services
from streams import channels
from streams import services as stream_services

#: A request's bots may make at most this many moves (max_turns ends any game long before).
BOT_MOVE_LIMIT = 20_000
#: A player's entropy: 1 to 64 printable ASCII characters without spaces, so it reads and hashes the same
#: everywhere (no Unicode normalization, no trimming) and fits its column.
ENTROPY = re.compile(r"[\x21-\x7e]{1,64}")


# --- tables ----------------------------------------------------------------------------------


@database_retry.written_once_more
def table_create(
    *,
    host: Player,
    rules: str,
    options: dict[str, Any] | None = None,
    max_players: int | None = None,
    league_id: int | None = None,
    visibility: str = "public",
    spectators: str = "anyone",
    spectator_delay: int = 0,
) -> Table:
    """The host sits in seat 0. Options are validated by the engine and stored effective. Every table
    gets an ``invite_code``: needed to join a private one, or to watch a public one open to invited spectators."""
    rule_set = rule_set_from(rules, options)
    if max_players is None:
        max_players = min(4, rule_set.max_players)
    if not rule_set.min_players <= max_players <= rule_set.max_players:
        raise ValidationFailed(
            message=_("max_players is out of range for these rules."),
            details={"field": "max_players", "min": rule_set.min_players, "max": rule_set.max_players},
        )
    league = league_for_table(league_id, rule_set, player=host)
    if league is not None and league.visibility == "private":
        visibility = "private"  # a private league's tables are private: 404 to anyone but its members
    table = Table(host=host, rules=rule_set.name, options=rule_set.to_json(), max_players=max_players,
                  league=league, visibility=visibility, spectators=spectators, spectator_delay=spectator_delay,
                  invite_code=secrets.token_urlsafe(12))
    _next_seed_draw(table)
    table.save()
    Seat.objects.create(table=table, position=0, player=host, nonce=secrets.token_hex(16))
    return table


def league_for_table(league_id: int | None, rule_set: engine.RuleSet, *, player: Player) -> League | None:
    """The league a new table (or a seek's table) plays for: it exists (and is shown to ``player``), is
    running, has these rules, and ``player`` is one of its members (only members play at its tables)."""
    if league_id is None:
        return None
    league = League.objects.filter(pk=league_id).first()
    if league is None or (league.visibility == "private" and members.membership(league=league, player=player) is None):
        raise NotFoundError(details={"field": "league"})
    members.league_seat_check(league_id=league.pk, player=player)
    if league.status != "active":
        raise ConflictError("table_state", _("This league is over."), details={"reason": "league_finished"})
    if league.rules != rule_set.name:
        raise ValidationFailed(message=_("The table's rules must be the league's rules."),
                               details={"field": "league", "league_rules": league.rules})
    return league


def _next_seed_draw(table: Table) -> None:
    """A fresh secret server seed for the table's next fair round, committed now: its SHA-256 is in
    the table view before anyone's entropy for that round is final (see ``round_start``)."""
    table.next_seed = secrets.token_hex(32)
    table.next_commitment = engine.seed_commitment(table.next_seed)


def entropy_checked(entropy: Any) -> str:
    """A player's entropy as given, or 400 naming the field."""
    if not isinstance(entropy, str) or not ENTROPY.fullmatch(entropy):
        raise ValidationFailed(details={"field": "entropy",
                                        "reason": "1 to 64 printable ASCII characters without spaces"})
    return entropy


def _table_locked(table_id: int, player: Player | None = None) -> Table:
    """The locked table; a private one answers ``player`` without a seat at it as a missing table does
    (404), so that outsiders cannot tell which private tables exist."""
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None or (player is not None and table.visibility == "private"
                         and not table.seats.filter(player=player).exists()):
        raise NotFoundError()
    return table


def _table_of_host(table_id: int, player: Player) -> Table:
    """The locked table, for what only its host may do while it is not closed."""
    table = _table_locked(table_id, player)
    _host_check(table, player)
    return table


def _host_check(table: Table, player: Player) -> None:
    if table.host_id != player.pk:
        raise PermissionDeniedError(message=_("Only the host may do this."))
    if table.status == "closed":
        raise ConflictError("table_state", details={"reason": "table_closed"})


def _active_game(table: Table) -> Game | None:
    return table.games.filter(status="active").order_by("-number").first()


def _seat_add(table: Table, position: int, player: Player, *, bot_controlled: bool = False,
              entropy: str = "") -> Seat:
    """A new seat with its server nonce; the people already at the table are told once it commits."""
    seat = Seat.objects.create(table=table, position=position, player=player, bot_controlled=bot_controlled,
                               entropy=entropy, nonce=secrets.token_hex(16))
    transaction.on_commit(lambda: stream_services.player_joined(seat_id=seat.pk), robust=True)
    return seat


@database_retry.written_once_more
def table_join(*, table_id: int, player: Player, entropy: str | None = None, invite_code: str | None = None) -> Table:
    """Take the next free seat (from the next round on if one is running); a leaver, or a person a bot
    stood in for after timeouts, takes their seat back. ``entropy`` is mixed into the next fair deal.
    A private table takes newcomers only with its ``invite_code``, or the members of its league (404
    otherwise: it is not shown to them)."""
    if entropy is not None:
        entropy = entropy_checked(entropy)
    table = _table_locked(table_id)
    seats = list(table.seats.all())
    mine = next((s for s in seats if s.player_id == player.pk), None)
    if (table.visibility == "private" and mine is None and not table.invite_code_matches(invite_code)
            and not _league_member(table, player)):
        raise NotFoundError()
    if table.status == "closed":
        raise ConflictError("table_state", details={"reason": "table_closed"})
    if mine is not None and not mine.left:
        if mine.bot_controlled and player.user_id is not None:  # a bot took over after timeouts: take it back
            mine.bot_controlled = False
            mine.consecutive_timeouts = 0
            mine.entropy = entropy or mine.entropy
            mine.save(update_fields=["bot_controlled", "consecutive_timeouts", "entropy"])
            return table
        raise ConflictError("already_seated", details={"position": mine.position})
    if sum(1 for s in seats if not s.left) >= table.max_players:
        raise ConflictError("table_full", details={"max_players": table.max_players})
    members.league_seat_check(league_id=table.league_id, player=player)  # only members play at a league's tables
    if mine is not None:
        mine.left = False
        mine.bot_controlled = False
        mine.entropy = entropy or mine.entropy
        mine.save(update_fields=["left", "bot_controlled", "entropy"])
    else:
        _seat_add(table, max((s.position for s in seats), default=-1) + 1, player, entropy=entropy or "")
    return table


def _league_member(table: Table, player: Player) -> bool:
    """A current member of the table's league: they join a private league's table without its code."""
    return table.league_id is not None and LeagueMember.objects.filter(
        league_id=table.league_id, player=player, left_at__isnull=True).exists()


@database_retry.written_once_more
def seat_reclaim(*, table_id: int, player: Player) -> bool:
    """A person who comes back takes their seat back from the bot that stood in after timeouts (not a
    seat they left: joining again takes that one). Every request of theirs to the table or one of its
    rounds calls this when their seat shows a bot; returns whether it took one back."""
    if player.user_id is None or player.is_bot:
        return False
    taken = Seat.objects.filter(table_id=table_id, player=player, left=False, bot_controlled=True).update(
        bot_controlled=False, consecutive_timeouts=0)
    return bool(taken)


@database_retry.written_once_more
def seat_entropy_set(*, table_id: int, player: Player, entropy: Any) -> Table:
    """The caller's entropy for the table's next fair round (any time before it starts; a round
    uses it up). Set it after the last seat was taken: see ``round_start`` for why."""
    entropy = entropy_checked(entropy)
    table = _table_locked(table_id, player)
    if table.status == "closed":
        raise ConflictError("table_state", details={"reason": "table_closed"})
    mine = table.seats.filter(player=player, left=False).first()
    if mine is None:
        raise PermissionDeniedError(message=_("You are not seated at this table."))
    mine.entropy = entropy
    mine.save(update_fields=["entropy"])
    return table


@database_retry.written_once_more
def table_bot_add(*, table_id: int, player: Player, level: str) -> Table:
    """The host seats a bot; it gets its own bot Player so results always name a Player."""
    table = _table_of_host(table_id, player)
    seats = list(table.seats.all())
    if sum(1 for s in seats if not s.left) >= table.max_players:
        raise ConflictError("table_full", details={"max_players": table.max_players})
    members.league_seat_check(league_id=table.league_id, player=player)  # a member seats the league's bots
    position = max((s.position for s in seats), default=-1) + 1
    level = engine.bot_level(level)
    bot = Player.objects.create(name=f"Bot {position} ({level})", is_bot=True, bot_level=level)
    _seat_add(table, position, bot, bot_controlled=True)
    return table


@database_retry.written_once_more
def table_leave(*, table_id: int, player: Player) -> Table:
    """Leave the table. In a running round a bot takes over the seat at once; the host role
    passes to the next person; a table without people closes."""
    table = _table_locked(table_id, player)
    seats = list(table.seats.select_related("player"))
    mine = next((s for s in seats if s.player_id == player.pk and not s.left), None)
    if mine is None:
        raise PermissionDeniedError(message=_("You are not seated at this table."))
    mine.left = True
    mine.bot_controlled = True
    mine.save(update_fields=["left", "bot_controlled"])
    people = [s for s in seats if not s.left and s.player.user_id is not None]
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
        move_submit(game_id=game.pk, actor="bot", action=None)
    return table


# --- rounds ----------------------------------------------------------------------------------


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


@database_retry.written_once_more
def round_start(*, table_id: int, player: Player, seed: Any = None, setup: Any = None) -> Game:
    """The host starts the first round or the next one ("Nochmal!"), opened by the next seat.

    Without ``seed`` or ``setup`` the round is dealt fairly, by commit and reveal, so that neither
    the server nor any one player chooses the deal alone:

    - The table holds the secret server seed of its next round, drawn when the table was opened or
      the round before it started; its SHA-256 (``next_commitment``) is in the table view from then on.
    - Every seated player may set their own entropy (on joining, or ``POST .../entropy``) after seeing
      that commitment; a seat that gave none mixes in the server nonce recorded when it was taken.
    - The deck is shuffled from ``engine.deal_seed(server seed, every seat's entropy)``; the round shows
      the commitment and the entropy, and reveals the server seed when it is over.

    Ordering is what makes it fair. The server seed is fixed before any entropy that is set after the
    commitment was shown, so the server cannot grind seeds against it; a player does not know the
    server seed, so their entropy cannot steer the deal either. A player's entropy is used up by the
    round (set it anew for the next one): entropy kept from before the next commitment was drawn would
    let the server choose that seed knowing it. A server nonce gives no such guarantee (the server
    chose it), and neither does entropy set before a later seat was taken (the server chose that
    seat's nonce knowing it): a player who wants the guarantee sets entropy after the last join.

    A chosen ``seed`` or ``setup`` is practice: marked so everywhere, never counted, refused at a
    league table; it leaves the table's committed seed and the players' entropy for the next fair round.
    """
    table = _table_of_host(table_id, player)
    scoring_services.league_assert_open(league=table.league)  # a finished league takes no more rounds
    practice = seed is not None or setup is not None
    if practice and table.league_id is not None:
        raise ConflictError("table_state", _("A league round is dealt fairly: a chosen seed or setup is "
                                             "for practice at a table outside a league."),
                            details={"reason": "practice_in_league", "league": table.league_id})
    if table.games.filter(status="active").exists():
        raise ConflictError("table_state", _("A round is running at this table."),
                            details={"reason": "round_running"})
    seats = [s for s in table.seats.select_related("player") if not s.left]
    _takeovers_reset(seats)
    rules = engine.RuleSet.from_json(table.options)
    if len(seats) < rules.min_players:
        raise ConflictError("table_state", _("Not enough players at the table."),
                            details={"reason": "not_enough_players", "min_players": rules.min_players})
    players = len(seats)
    game = Game(table=table, number=table.rounds_started + 1, rules=rules.to_json(), setup=setup,
                practice=practice, positions=[s.position for s in seats])
    game.first = table.rounds_started % players
    if practice:
        state = _practice_deal(game, rules, players, seed, setup)
    else:
        state = _fair_deal(game, table, seats, rules)
    game.turn = state.turn
    game.state_set(state)
    game.ledger_head = ledger_genesis(game)
    _deadlines_set(game, state, timezone.now(), turn_passed=True)
    game.save()
    table.rounds_started += 1
    table.status = "playing"
    table.save(update_fields=["rounds_started", "status", "next_seed", "next_commitment"])
    # A lambda, not a partial: Django names a robust callback that failed by its __qualname__.
    transaction.on_commit(lambda: stream_services.round_started(game_id=game.pk), robust=True)
    if any(s.bot_controlled for s in seats):
        move_submit(game_id=game.pk, actor="bot", action=None)
        game.refresh_from_db()
    return game


def _takeovers_reset(seats: list[Seat]) -> None:
    """A new round gives every present person their seat back from the bot that stood in for them in
    the last one, so a round a person starts is never played to its end by bots alone in one request."""
    back = [s for s in seats if s.bot_controlled and s.player.user_id is not None and not s.player.is_bot]
    for seat in back:
        seat.bot_controlled, seat.consecutive_timeouts = False, 0
    if back:
        Seat.objects.filter(pk__in=[s.pk for s in back]).update(bot_controlled=False, consecutive_timeouts=0)


def _practice_deal(game: Game, rules: engine.RuleSet, players: int, seed: Any, setup: Any) -> engine.GameState:
    """The host's chosen seed or setup (a setup's reshuffles still come from a secret seed)."""
    if seed is None:
        seed = secrets.token_hex(32)
    elif isinstance(seed, bool) or not isinstance(seed, (int, str)) or not str(seed):
        raise ValidationFailed(details={"field": "seed", "reason": "an integer or a string"})
    game.seed = str(seed)
    try:
        if setup is not None:
            args = _setup_args(setup, players)
            game.first = args["first"]
            return engine.new_game_from_setup(rules, players=players, seed=game.seed, **args)
        return engine.new_game(rules, players=players, seed=game.seed, first=game.first)
    except engine.SetupError as exc:
        raise ValidationFailed(message=_("This deal is not possible."),
                               details={"field": "setup", "reason": str(exc)}) from exc


def _fair_deal(game: Game, table: Table, seats: list[Seat], rules: engine.RuleSet) -> engine.GameState:
    """Deal from the table's committed server seed and every seat's entropy; draw and commit the next
    round's seed, and use up the entropy the players gave (see ``round_start``)."""
    if not table.next_seed:  # a table written without one (not through table_create): committed only now
        _next_seed_draw(table)
    for seat in seats:
        if not seat.nonce:
            seat.nonce = secrets.token_hex(16)
            seat.save(update_fields=["nonce"])
    game.seed, game.commitment = table.next_seed, table.next_commitment
    game.entropy = [{"value": s.entropy, "source": "player"} if s.entropy else {"value": s.nonce, "source": "server"}
                    for s in seats]
    state = engine.new_game(rules, players=len(seats), seed=game.deal_seed(), first=game.first)
    _next_seed_draw(table)
    Seat.objects.filter(pk__in=[s.pk for s in seats if s.entropy]).update(entropy="")
    return state


def _deadlines_set(game: Game, state: engine.GameState, now: datetime, turn_passed: bool) -> None:
    """The turn clock (with its reminder) restarts when a new turn begins; the Hermann clock runs while
    a race is open. The clock sweep and the request path read them from the row (``play.clocks``).

    A turn is one time budget: a call said by another seat, a penalty row or a drawn card that
    may still be played do not give the player on turn more time, nor a second reminder.
    """
    if state.status != "active":
        game.deadline = game.hermann_deadline = game.reminder_at = None
        return
    if turn_passed or game.deadline is None:
        turn_seconds = state.rules.turn_seconds
        game.deadline = now + timedelta(seconds=turn_seconds) if turn_seconds else None
        game.reminder_at = stream_services.reminder_at(deadline=game.deadline, turn_seconds=turn_seconds or 0)
    if state.hermann_open:
        if game.hermann_deadline is None:
            game.hermann_deadline = now + timedelta(seconds=state.rules.hermann_seconds)
    else:
        game.hermann_deadline = None


# --- moves -----------------------------------------------------------------------------------


@dataclass
class MoveOutcome:
    """What move_submit did: the round as it left it (game row, engine state, seats in game-seat
    order), the caller's game seat (None: not a seated person) and the ledger rows it appended."""

    game: Game
    state: engine.GameState
    seats: list[Seat]
    seat: int | None
    moves: list[Move]


@dataclass
class LockedRound:
    """One locked game with its engine state and seats (game-seat order), and the ledger rows this
    request appends; every row moves the game's version, hash chain head and deadlines with it."""

    game: Game
    state: engine.GameState
    seats: list[Seat]
    now: datetime
    appended: list[Move] = field(default_factory=list)

    def append(self, *, actor: str, seat: int | None, player: Player | None, action: dict[str, Any],
               events: list[dict[str, Any]], turn_before: tuple[int, int | None]) -> None:
        """Record an applied action; ``turn_before`` is (turns, turn) before it, to restart the clock."""
        game = self.game
        move = Move(game=game, seq=game.version + 1, actor=actor, seat=seat, player=player, action=action,
                    events=events, created_at=self.now, prev_hash=game.ledger_head)
        move.hash = move_hash(prev_hash=game.ledger_head, row=move_row(move))
        game.version, game.ledger_head = move.seq, move.hash
        self.appended.append(move)
        turn_passed = turn_before != (self.state.turns, self.state.turn)
        _deadlines_set(game, self.state, self.now, turn_passed)

    def apply(self, *, actor: str, seat: int | None, player: Player | None, action: dict[str, Any]) -> None:
        """The engine's ``apply`` for ``seat`` (None: the clock), recorded; IllegalAction changes nothing."""
        turn_before = (self.state.turns, self.state.turn)
        self.state, events = engine.apply(self.state, None if actor == "clock" else seat, action)
        self.append(actor=actor, seat=seat, player=player, action=action, events=events, turn_before=turn_before)


def move_submit(
    *,
    game_id: int,
    actor: str,
    player: Player | None = None,
    action: dict[str, Any] | None,
    expected_version: int | None = None,
    play_bots: bool = True,
    bot_seat: int | None = None,
) -> MoveOutcome:
    """Apply one action of ``actor``: ``"player"`` (``player``'s ``action``), ``"bot"`` (``action=None``:
    the bots on turn play; or the ``action`` a thinking bot of game seat ``bot_seat`` chose outside the
    lock, see ``play.thinking``) or ``"clock"`` (``action=None``: resolve the passed deadlines; with
    ``expected_version`` only those of that version).

    Returns the outcome or raises DomainError (400/403/404/409/422). What was appended before a
    refusal is written all the same, and commits with the caller's transaction or this one: the
    timeouts a late action missed, and in ``house`` the penalty card of an illegal play (the refusal's
    details then say what it cost, as its player may see it).
    """
    action = _action_parsed(action)
    # database_retry.written_once_more's loop, kept here: a refusal leaves the transaction normally.
    retry_allowed = not connection.in_atomic_block
    for attempt in (1, 2):
        refusal: DomainError | None = None
        committing = False
        try:
            # No savepoint inside a caller's transaction: a refusal leaves this block normally (what
            # was appended stays), and anything else fails the caller's transaction as it must.
            with transaction.atomic(savepoint=False):
                found = sql.game_locked_with_seats(game_id)
                if found is None:  # raised after the block: a caller that catches it may go on
                    refusal = NotFoundError()
                    committing = True
                    break
                game, table_seats = found
                locked = LockedRound(game=game, state=game.engine_state(), seats=game.seats_in_order(table_seats),
                                     now=timezone.now())
                seat: int | None = None
                try:
                    if actor == "clock":
                        _open_check(locked, expected_version)  # a finished round has no clock
                        clocks_due_apply(locked)
                    else:
                        clocks_due_apply(locked)  # a late action comes after the timeout it missed
                        seat = _seat_of(locked, player) if actor == "player" else None
                        if seat is not None:
                            _seat_taken_back(locked.seats[seat])
                        _open_check(locked, expected_version)
                        if action is not None and actor == "bot":
                            _bot_choice_apply(locked, bot_seat, action)
                        elif action is not None:
                            if action["type"] == "abort":
                                _abort_check(locked, player)
                            _action_apply(locked, seat, player, action)
                    if play_bots:
                        _bots_play(locked)
                except DomainError as exc:
                    refusal = exc
                if locked.appended:
                    _game_fields_settle(locked)
                    _round_save(locked)
                if isinstance(refusal, IllegalMoveError):
                    penalty = [e for m in locked.appended if m.actor == "system"
                               for e in engine.redact_events(m.events, seat)]
                    refusal.details = {**refusal.details, "penalty": penalty, "version": locked.game.version}
                committing = True
            break
        except (OperationalError, InterfaceError) as exc:
            if committing or attempt == 2 or not retry_allowed or database_retry.pool_exhausted(exc):
                raise  # no free connection: waiting out the pool's timeout again would not help
            connection.close()
    if refusal is not None:
        if isinstance(refusal, IllegalMoveError):
            observability.illegal_move_refused()
        raise refusal
    return MoveOutcome(game=game, state=locked.state, seats=locked.seats, seat=seat, moves=locked.appended)


def _action_parsed(action: dict[str, Any] | None) -> dict[str, Any] | None:
    if action is None:
        return None
    try:
        return engine.parse_action(action)
    except engine.ActionError as exc:
        raise ValidationFailed(message=_("This action is malformed."),
                               details={"reason": exc.message, **exc.details}) from exc


#: On PostgreSQL, the claim of an Idempotency-Key and the look-up of its answer in one statement.
IDEMPOTENCY_CLAIM_SQL = (
    "SELECT pg_try_advisory_xact_lock(%s), r.id, r.fingerprint, r.status_code, r.body"
    " FROM (SELECT 1) AS one LEFT JOIN games_idempotencyrecord r ON r.player_id = %s AND r.key = %s")
IDEMPOTENCY_COLUMNS = ("id", "fingerprint", "status_code", "body")


def idempotent_answer(*, player: Player, key: str, fingerprint: str) -> IdempotencyRecord | None:
    """The stored answer of an earlier request with this key that committed, for the caller's
    transaction to replay; None when there is none (the caller answers, then stores its answer with
    :func:`idempotent_answer_store` in the same transaction).

    A duplicate that arrives while the first is still running gets 409: on PostgreSQL a
    transaction-scoped advisory try-lock on (player, key) tells at once. The look-up runs in the same
    statement, on the snapshot taken before the lock was won: a first request that commits in between
    is not seen, and then the duplicate's own answer fails on the unique key (409 too) and takes its
    move with it. SQLite runs one writer at a time (immediate transactions): a duplicate there waits,
    then replays. The same key with another request is 422.
    """
    if connection.vendor == "postgresql":
        digest = hashlib.sha256(f"idempotency:{player.pk}:{key}".encode()).digest()
        with sql.cursor() as cursor:
            cursor.execute(IDEMPOTENCY_CLAIM_SQL, [int.from_bytes(digest[:8], "big", signed=True), player.pk, key])
            claimed, *row = cursor.fetchone()
        if not claimed:
            raise ConflictError("idempotency_in_progress", details={"key": key})
        record = sql.load(IdempotencyRecord, IDEMPOTENCY_COLUMNS, row) if row[0] is not None else None
    else:
        record = IdempotencyRecord.objects.filter(player=player, key=key).first()
    if record is not None and record.fingerprint != fingerprint:
        raise DomainError("idempotency_key_reused", status=422, details={"key": key})
    return record


def idempotent_answer_store(*, player: Player, key: str, fingerprint: str, status_code: int,
                            body: dict[str, Any]) -> None:
    """Store the answer given for this key, in the transaction of the request it answers; 409 when
    a request with the same key committed meanwhile (see :func:`idempotent_answer`)."""
    try:
        IdempotencyRecord.objects.create(player=player, key=key, fingerprint=fingerprint, status_code=status_code,
                                         body=body)
    except IntegrityError as exc:
        raise ConflictError("idempotency_in_progress", details={"key": key}) from exc


def _seat_of(locked: LockedRound, player: Player | None) -> int:
    seat = next((i for i, s in enumerate(locked.seats) if player is not None and s.player_id == player.pk), None)
    if seat is None:  # a spectator may not act (403); an outsider who may not watch gets the 404 of no round
        watched = player is not None and Table.objects.filter(pk=locked.game.table_id, visibility="public",
                                                              spectators="anyone").exists()
        if watched:
            raise PermissionDeniedError(message=_("You are not seated in this round."))
        raise NotFoundError()
    if locked.seats[seat].left:  # a bot plays this seat now; joining again takes it back
        raise PermissionDeniedError(message=_("You left this table; a bot plays your seat."))
    return seat


def _seat_taken_back(seat: Seat) -> None:
    """A person acting in their own round is back: the bot that stood in for them stops (seat row locked)."""
    if seat.bot_controlled and seat.player.user_id is not None and not seat.player.is_bot:
        seat.bot_controlled, seat.consecutive_timeouts = False, 0
        seat.save(update_fields=["bot_controlled", "consecutive_timeouts"])


def _open_check(locked: LockedRound, expected_version: int | None) -> None:
    if locked.game.status != "active":
        raise ConflictError("game_finished")
    if expected_version is not None and expected_version != locked.game.version:
        raise ConflictError("version_conflict", details={"version": locked.game.version})


def _abort_check(locked: LockedRound, player: Player | None) -> None:
    """Only the table's host aborts, only a practice round (a chosen seed or setup, never counted), and
    only with no move yet (not even a bot's or the clock's).

    A fair round is never aborted once dealt: the host sees their hand first, so aborting until it
    suits them would re-roll the deal of a rated or league round at no cost, and leave no trace in
    standings or history. A fair round that should not be played is resigned (which counts as one)."""
    host_id = Table.objects.filter(pk=locked.game.table_id).values_list("host_id", flat=True).first()
    if player is None or host_id != player.pk:
        raise PermissionDeniedError(message=_("Only the host may do this."))
    if not locked.game.practice:
        raise ConflictError("table_state", _("A fairly dealt round cannot be aborted: resign it instead."),
                            details={"reason": "fair_round"})
    if locked.game.version or locked.appended:
        raise ConflictError("table_state", _("A round can be aborted only before its first move."),
                            details={"reason": "round_started", "version": locked.game.version})


def _action_apply(locked: LockedRound, seat: int, player: Player | None, action: dict[str, Any]) -> None:
    """A person's action; an illegal play in ``house`` costs one penalty card (once per retry)."""
    try:
        locked.apply(actor="player", seat=seat, player=player, action=action)
    except engine.IllegalAction as exc:
        if exc.code == "not_your_turn":
            raise ConflictError("not_your_turn", details={"turn": locked.state.turn}) from exc
        if exc.code == "game_over":
            raise ConflictError("game_finished") from exc
        if locked.state.rules.penalize_illegal:
            turn_before = (locked.state.turns, locked.state.turn)
            penalty = engine.penalize_illegal(locked.state, seat, action)  # a refused apply() changed nothing
            if penalty:
                locked.append(actor="system", seat=seat, player=player, action=action, events=penalty,
                              turn_before=turn_before)
        raise IllegalMoveError(message=rule_message(exc.code),
                               details={"reason": exc.code, "rule": str(exc.message), **(exc.details or {})}) from exc


def clocks_due_apply(locked: LockedRound) -> int:
    """Resolve the passed deadlines of the locked round as clock rows (the Hermann race first, then
    the turn by the table's ``timeout_policy``); the bots on turn answer each. Returns how many.

    The same step for every path (the sweep, a request): no re-check is needed beyond the
    deadlines of the locked row. A Hermann timeout can leave the turn's deadline passed too, so a
    couple of rounds may run; the bound only guards against a clock misconfigured to zero.
    """
    applied = 0
    for _step in range(4):
        game = locked.game
        if game.status != "active" or locked.state.status != "active":
            break
        if game.hermann_deadline is not None and game.hermann_deadline <= locked.now:
            action = {"type": "hermann_timeout"}
        elif game.deadline is not None and game.deadline <= locked.now:
            action = {"type": "timeout"}
            _timeout_streak_count(locked)
        else:
            break
        policy = "hermann" if action["type"] == "hermann_timeout" else locked.state.rules.timeout_policy
        due = game.hermann_deadline if action["type"] == "hermann_timeout" else game.deadline
        transaction.on_commit(functools.partial(_timeout_observed, policy, due))
        locked.apply(actor="clock", seat=locked.state.turn, player=None, action=engine.parse_action(action, clock=True))
        applied += 1
        _bots_play(locked)
    return applied


def _timeout_observed(policy: str, due: Any) -> None:
    observability.timeout_committed(policy, (timezone.now() - due).total_seconds())


def _timeout_streak_count(locked: LockedRound) -> None:
    """Count the turn holder's timeouts in a row; at ``MAUMAU_CLOCK_TAKEOVER_TIMEOUTS`` a bot takes
    the seat over (so the others can finish). Own moves break the streak; Hermann timeouts and
    refused-play penalties do not count. Read from this round's ledger, this request's rows first."""
    turn = locked.state.turn
    seat = locked.seats[turn] if turn is not None else None
    if seat is None or seat.bot_controlled:
        return
    limit = settings.MAUMAU_CLOCK_TAKEOVER_TIMEOUTS
    recent = [(m.actor, m.action) for m in reversed(locked.appended) if m.seat == turn and m.actor != "system"]
    recent += (Move.objects.filter(game_id=locked.game.pk, seat=turn).exclude(actor="system")
               .order_by("-seq").values_list("actor", "action")[: 4 * max(limit, 1)])
    streak = 1
    for actor, action in recent:
        if actor == "clock" and action.get("type") == "hermann_timeout":
            continue
        if actor == "clock" and action.get("type") == "timeout":
            streak += 1
            continue
        break
    seat.consecutive_timeouts = streak
    fields = ["consecutive_timeouts"]
    if limit and streak >= limit and not _present_in_house(locked, seat, limit):
        seat.bot_controlled = True
        fields.append("bot_controlled")
    seat.save(update_fields=fields)


def _present_in_house(locked: LockedRound, seat: Seat, turns: int) -> bool:
    """In ``house`` a slow turn costs the penalty card, and a bot takes over only an absent person: one
    with no request for ``turns`` turns' time (``Player.last_seen_at``, see ``games.presence``)."""
    rules = locked.state.rules
    if rules.name != "house" or seat.player.user_id is None:
        return False
    absent_after = timedelta(seconds=max(rules.turn_seconds, 1) * turns)
    return seat.player.last_seen_at is not None and locked.now - seat.player.last_seen_at < absent_after


def _bots_play(locked: LockedRound) -> None:
    """Seated bots act until a person is on turn or the round ends, under the caller's lock.

    The generator of each bot move is seeded by an HMAC of the round's secret seed and its version
    (``engine.bot_seed``), so a bot game is reproducible from the seed revealed after the round, and
    its choices cannot be predicted from anything a player sees while it runs.
    """
    for _step in range(BOT_MOVE_LIMIT):
        state = locked.state
        if state.status != "active":
            return
        acted = False
        if state.hermann_open:
            say = {"type": "say", "word": "hermann"}
            for game_seat, seat in enumerate(locked.seats):
                if seat.bot_controlled and game_seat != state.turn and say in engine.legal_actions(state, game_seat):
                    _bot_apply(locked, game_seat, say)
                    acted = True
                    if locked.state.status != "active":
                        return
        turn = locked.state.turn
        if turn is not None and locked.seats[turn].bot_controlled:
            level = engine.bot_level(locked.seats[turn].player.bot_level)  # rows of before: basic, strong
            if level == "hard":  # it thinks in a task after the commit, not under this lock (play.thinking)
                tasks.bot_move_schedule(locked.game)
                return
            generator = random.Random(engine.bot_seed(locked.game.seed, locked.game.version))
            choice = engine.choose_bot_action(locked.state, turn, level, generator)  # None when it may not act
            if choice is not None:
                acted = _bot_apply(locked, turn, choice) or acted
        if not acted:
            return


def _bot_choice_apply(locked: LockedRound, game_seat: int | None, choice: dict[str, Any]) -> None:
    """A thinking bot's move, chosen outside the lock for the version the caller expects (checked
    before): made only while a bot still plays that seat."""
    if game_seat is None or not 0 <= game_seat < len(locked.seats) or not locked.seats[game_seat].bot_controlled:
        raise ConflictError("not_your_turn", details={"turn": locked.state.turn})
    _bot_apply(locked, game_seat, choice)


def _bot_apply(locked: LockedRound, game_seat: int, choice: dict[str, Any]) -> bool:
    player = locked.seats[game_seat].player
    try:
        locked.apply(actor="bot", seat=game_seat, player=player, action=engine.parse_action(choice))
    except (engine.ActionError, engine.IllegalAction):
        # A bot must only choose legal actions; if it does not, fall back to the first legal one.
        legal = engine.legal_actions(locked.state, game_seat)
        if not legal:
            return False
        locked.apply(actor="bot", seat=game_seat, player=player, action=engine.parse_action(legal[0]))
    return True


def _round_save(locked: LockedRound) -> None:
    """Write the appended ledger rows, the game row (settled by :func:`_game_fields_settle`) and what
    follows from them: the notifications the streams app builds and the wake-ups, and when the round
    ended the table set open and the round's result, lines and rating moves the scoring app counts
    (with the season_over of a season it ended).
    One statement (``play.writes``), two when the round ended: the round is counted after the ledger
    rows are written (the ratings lock counts who played them), and the notifications tell it. Then
    what follows on commit: webhook deliveries (the clocks and reminders are the game row's: nothing
    for the broker)."""
    game = locked.game
    transaction.on_commit(functools.partial(observability.moves_committed, list(locked.appended)))
    pending = writes.MoveWrites(game=game, moves=locked.appended)
    if game.status == "finished":  # the table is free for the next round; the result counts
        writes.move_write(pending)
        pending = writes.MoveWrites(table_opened=game.table_id)
        if (game.result or {}).get("reason") != "aborted":  # an aborted round never counts, not even as played
            pending.round_count = scoring_services.round_counted(
                game=game, seat_players={index: seat.player_id for index, seat in enumerate(locked.seats)},
                bots={seat.player_id for seat in locked.seats if seat.player.is_bot})
    pending.notifications = stream_services.move_notifications(game=game, seats=locked.seats, moves=locked.appended)
    if pending.round_count is not None:  # a season the round ended is told with it
        pending.notifications += pending.round_count.season_over
    pending.wake = channels.published_on_commit(
        channels.game_topic(game.pk), *sorted({channels.player_topic(n.player_id) for n in pending.notifications}))
    writes.move_write(pending)
    stream_services.notifications_dispatch(pending.notifications, seats=locked.seats)


def _game_fields_settle(locked: LockedRound) -> None:
    """Bring the game row in line with the state after the appended rows (the answer is rendered
    from it)."""
    game, state = locked.game, locked.state
    game.state_set(state)
    game.turn = state.turn if state.status == "active" else None
    if state.status != "active":
        game.status, game.result, game.finished_at = "finished", state.result, locked.now


def idempotency_records_purge(*, keep: timedelta) -> int:
    """Forget stored answers older than ``keep``: a retry comes within seconds or minutes, and a
    key reused after that is a new request (Stripe keeps keys for 24 hours, so do we by default)."""
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - keep).delete()
    return deleted
