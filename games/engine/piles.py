"""Drawing from the stock: when it is empty, the discard pile below its top is shuffled into a new
stock; a draw takes what there is (a ``drew`` event may count fewer cards than were due)."""

from __future__ import annotations

from . import events as ev
from .cards import secret_shuffle
from .events import Event
from .state import GameState


def draw_cards(state: GameState, seat: int, count: int, reason: str | None, events: list[Event]) -> list[str]:
    """``seat`` draws up to ``count`` cards; ``reason`` names the penalty (None: a voluntary draw)."""
    drawn: list[str] = []
    stock = state.stock
    hand = state.hands[seat]
    for _ in range(count):
        if not stock:
            if len(state.discard) <= 1:
                break
            _reshuffle(state, events)
            stock = state.stock
        card = stock.pop()
        hand.append(card)
        drawn.append(card)
    if reason is not None and seat in state.lacking:
        del state.lacking[seat]  # unknown cards came in: what the seat lacked may have changed
    events.append(ev.drew(seat, drawn, reason))
    return drawn


def _reshuffle(state: GameState, events: list[Event]) -> None:
    cards = state.discard[:-1]
    state.discard = state.discard[-1:]
    secret_shuffle(cards, state.seed, state.shuffles)
    state.shuffles += 1
    state.stock = cards
    events.append(ev.reshuffled(len(cards)))
