"""Replay and audit of the move ledger.

A round is fully determined by its rules, its seed (or practice setup) and its ledger: replaying
the rows through the engine must reproduce every recorded event and the stored snapshot, and
each row's hash must chain to the one before. Any difference is reported, never repaired.

The chain of a round dealt since fair dealing starts from :func:`ledger_genesis`, a hash of how it
was dealt (fair or practice, the commitment, the entropy), so the ledger itself says whether the
round was practice and which commitment it was dealt under; older rounds start from "".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction

from games import engine
from games.models import Game, Move


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


def ledger_genesis(game: Game) -> str:
    """The ``prev_hash`` of a round's first row: the hash of its deal header ("" before fair dealing)."""
    if game.entropy is None and not game.practice:
        return ""
    header = {
        "table": game.table_id,
        "number": game.number,
        "deal": "setup" if game.setup is not None else "seed" if game.practice else "fair",
        "practice": game.practice,
        "commitment": game.commitment,
        "entropy": game.entropy,
    }
    return hashlib.sha256(("deal:" + canonical_json(header)).encode()).hexdigest()


def initial_state(game: Game) -> engine.GameState:
    """The round as dealt: from its practice setup, or from its seed and opening seat."""
    rules = engine.RuleSet.from_json(game.rules)
    players = len(game.positions)
    if game.setup is not None:
        setup = game.setup
        return engine.new_game_from_setup(
            rules, players=players, hands=setup["hands"], starter=setup["starter"], stock=setup.get("stock", []),
            first=setup.get("first", 0), seed=game.seed,
        )
    return engine.new_game(rules, players=players, seed=game.deal_seed(), first=game.first)


def replay_action(
    state: engine.GameState, actor: str, seat: int | None, action: dict[str, Any]
) -> list[dict[str, Any]]:
    """Apply one ledger row the way move_submit applied it."""
    if actor == "system":
        return engine.penalize_illegal(state, seat, engine.parse_action(action))
    if actor == "clock":
        _state, events = engine.apply(state, None, engine.parse_action(action, clock=True))
        return events
    _state, events = engine.apply(state, seat, engine.parse_action(action))
    return events


def ledger_read(game_id: int) -> tuple[Game, list[Move]] | None:
    """A game's row and its ledger rows as they were at one moment, so that a game that moves
    meanwhile is not reported as different from its ledger: on PostgreSQL one REPEATABLE READ,
    READ ONLY transaction (a snapshot; it blocks no writer), elsewhere one transaction. Inside a
    transaction already open, that one is the snapshot."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            return None
        return game, list(game.moves.order_by("seq"))


def ledger_verify(game: Game, moves: Iterable[Move] | None = None) -> list[str]:
    """Problems found in one game (empty when snapshot, events and hash chain all agree). ``moves``:
    its ledger rows read with it (:func:`ledger_read`); by default they are read now."""
    problems: list[str] = []
    try:
        state = initial_state(game)
    except (engine.SetupError, engine.RulesError, KeyError, TypeError) as exc:
        return [f"cannot rebuild the deal: {exc}"]
    prev_hash = ledger_genesis(game)
    expected_seq = 1
    for move in moves if moves is not None else game.moves.order_by("seq").iterator():
        where = f"seq {move.seq}"
        if move.seq != expected_seq:
            problems.append(f"{where}: expected seq {expected_seq}")
            expected_seq = move.seq
        expected_seq += 1
        if move.prev_hash != prev_hash:
            problems.append(f"{where}: prev_hash does not chain to the row before")
        if move.hash != move_hash(prev_hash=move.prev_hash, row=move_row(move)):
            problems.append(f"{where}: hash does not match the row (tampered)")
        prev_hash = move.hash
        try:
            events = replay_action(state, move.actor, move.seat, move.action)
        except (engine.ActionError, engine.IllegalAction) as exc:
            problems.append(f"{where}: the engine refuses the recorded action: {exc}")
            return problems
        if canonical_json(events) != canonical_json(move.events):
            problems.append(f"{where}: recorded events differ from the replay")
    if expected_seq - 1 != game.version:
        problems.append(f"version {game.version} but {expected_seq - 1} ledger rows")
    if prev_hash != game.ledger_head:
        problems.append("the game's ledger head is not the last row's hash")
    if canonical_json(state.to_json(with_rules=False)) != canonical_json(game.state):
        problems.append("the snapshot differs from the replayed state")
    if (game.status == "finished") != (state.status == "finished"):
        problems.append(f"status {game.status} but the replay is {state.status}")
    return problems
