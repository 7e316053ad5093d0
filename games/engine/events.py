"""Events: what happened in a move, as plain JSON objects, one constructor per event type.

Every event the engine emits is built here, so this module is the list of them (what they mean in
play: docs/rules.md). Cards drawn and dealt are secret: :mod:`games.engine.view` redacts them for
each seat.
"""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]


def dealt(hands: list[list[str]], starter: str, first: int, stock_count: int) -> Event:
    """The deal (the first ledger entry of a round)."""
    return {"type": "dealt", "hands": hands, "starter": starter, "first": first, "stock_count": stock_count}


def played(seat: int, cards: list[str], jokers: dict[str, str]) -> Event:
    """Cards laid, in order; ``as`` names each joker's card (only when jokers were laid)."""
    event: Event = {"type": "played", "seat": seat, "cards": cards}
    if jokers:
        event["as"] = jokers
    return event


def drew(seat: int, cards: list[str], reason: str | None) -> Event:
    """Cards taken from the stock; ``reason`` is None for a voluntary draw, else the penalty's name."""
    return {"type": "drew", "seat": seat, "count": len(cards), "cards": cards, "reason": reason}


def passed(seat: int) -> Event:
    return {"type": "passed", "seat": seat}


def said(seat: int, word: str) -> Event:
    return {"type": "said", "seat": seat, "word": word}


def mau(seat: int) -> Event:
    """The seat holds one card, and it has been said (by the player or, without calls, by the game)."""
    return {"type": "mau", "seat": seat}


def penalty_grew(seat: int, pending_draw: int) -> Event:
    return {"type": "penalty_grew", "seat": seat, "pending_draw": pending_draw}


def wished(seat: int, suit: str) -> Event:
    return {"type": "wish", "seat": seat, "suit": suit}


def hands_swapped(seat: int, target: int) -> Event:
    return {"type": "hands_swapped", "seats": [seat, target]}


def hermann_started(seat: int) -> Event:
    return {"type": "hermann_started", "seat": seat}


def hermann_closed(losers: list[int]) -> Event:
    return {"type": "hermann_closed", "losers": losers}


def direction_changed(direction: int) -> Event:
    return {"type": "direction", "direction": direction}


def skipped(seat: int) -> Event:
    return {"type": "skipped", "seat": seat}


def turn(seat: int) -> Event:
    return {"type": "turn", "seat": seat}


def reshuffled(count: int) -> Event:
    return {"type": "reshuffled", "count": count}


def timed_out(seat: int, policy: str) -> Event:
    return {"type": "timeout", "seat": seat, "policy": policy}


def round_over(result: dict[str, Any]) -> Event:
    return {"type": "round_over", "result": result}


def resigned(seat: int) -> Event:
    return {"type": "resigned", "seat": seat}


def aborted(seat: int) -> Event:
    return {"type": "aborted", "seat": seat}
