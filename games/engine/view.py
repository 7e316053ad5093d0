"""What one seat may see: the only way state and events reach a client.

Hidden information by construction (ARCHITECTURE.md, example 3): :func:`player_view` builds the
view field by field from public facts and the seat's own hand; :func:`redact_events` is the one
function every response and every ledger read passes events through. The seed, the stock order,
other hands and cards drawn by others never appear (their counts do). After the round is over its
participants may see everything (``reveal=True``): a full replay.
"""

from __future__ import annotations

from typing import Any

from . import events as ev
from .state import ACTIVE, FINISHED, GameState


def player_view(state: GameState, seat: int | None) -> dict[str, Any]:
    seated = seat is not None and 0 <= seat < len(state.hands)
    return {
        "status": state.status,
        "phase": state.phase if state.status == ACTIVE else FINISHED,
        "turn": state.turn,
        "direction": state.direction,
        "top_card": state.top,
        "top_joker": state.discard[-1] if state.discard[-1][0] == "X" else None,
        "wish": state.wish,
        "pending_draw": state.pending_draw,
        "stock_count": len(state.stock),
        "discard_count": len(state.discard),
        "players": [
            {
                "seat": index,
                "card_count": len(hand),
                "owes": list(state.owed.get(index, ())),
                "sits_out": index in state.sitting_out,
                "hermann_pending": state.hermann is not None and index in state.hermann,
            }
            for index, hand in enumerate(state.hands)
        ],
        "hand": list(state.hands[seat]) if seated else None,
        "drawn_card": state.drawn if seated and seat == state.turn else None,
        "hermann": None if state.hermann is None else {"waiting": list(state.hermann)},
        "turns": state.turns,
        "result": state.result,
    }


def deal_event(state: GameState) -> dict[str, Any]:
    """The deal as an event (for the first ledger entry); redacted like every other event."""
    return ev.dealt([list(hand) for hand in state.hands], state.discard[0], state.turn, len(state.stock))


def redact_event(event: dict[str, Any], seat: int | None, reveal: bool = False) -> dict[str, Any]:
    kind = event.get("type")
    if reveal:
        return dict(event)
    if kind == "drew" and event.get("seat") != seat:
        return {key: value for key, value in event.items() if key != "cards"}
    if kind == "dealt":
        hands = event["hands"]
        return {
            **{key: value for key, value in event.items() if key != "hands"},
            "hands": [list(hand) if index == seat else None for index, hand in enumerate(hands)],
            "hand_counts": [len(hand) for hand in hands],
        }
    return dict(event)


def redact_events(events: list[dict[str, Any]], seat: int | None, reveal: bool = False) -> list[dict[str, Any]]:
    return [redact_event(event, seat, reveal) for event in events]
