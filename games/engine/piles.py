"""Drawing from the stock: when it is empty, the discard pile below its top is shuffled into a new
stock; a draw takes what there is (a ``drew`` event may count fewer cards than were due)."""

from __future__ import annotations

from . import events as ev
from .cards import secret_shuffle
from .events import Event
from .state import GameState


def draw_cards(state: GameState, seat: int, count: int, reason: str | None,
               events: list[Event] | None) -> list[str]:
    """``seat`` draws up to ``count`` cards; ``reason`` names the penalty (None: a voluntary draw).
    ``events`` None records nothing (a playout)."""
    stock = state.stock
    hand = state.hands[seat]
    if count == 1 and stock and reason is None:  # a voluntary draw from the stock: most draws
        card = stock.pop()
        hand.append(card)
        if events is not None:
            events.append(ev.drew(seat, [card], None))
        return [card]
    drawn: list[str] = []
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
    if events is not None:
        events.append(ev.drew(seat, drawn, reason))
    return drawn


def _reshuffle(state: GameState, events: list[Event] | None) -> None:
    cards = state.discard[:-1]
    state.discard = state.discard[-1:]
    secret_shuffle(cards, state.seed, state.shuffles)
    state.shuffles += 1
    state.stock = cards
    if events is not None:
        events.append(ev.reshuffled(len(cards)))
