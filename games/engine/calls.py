"""Calls (house, seed 004): "Mau", "Mau-Mau", "Pik" and the "Hermann" race.

- A spade needs "pik" (``pik_call``), a play that leaves one card needs "mau" (``announcements``):
  in the move, or said before the next player acts, else one penalty card each. Without
  ``announcements`` the game announces "Mau!" itself after any play that leaves one card.
- The last card needs "maumau" in the same move, else its player draws one card instead of winning
  and play goes on.
- KD (``king_of_diamonds_hermann``) starts the Hermann race: every seat must say "hermann"; when all
  but one have, that one draws one card (``hermann_timeout`` makes all who have not draw one).

Readings where docs/rules.md is silent (**Decision**, closest to the seeds):

- Calls owed are settled by the next *turn* action of any seat (a play, draw, pass or a clock
  timeout); the words of that play count for its own player, so calls owed from one's own previous
  move (an 8 that gives the turn back) are charged before that play is judged.
- "Mau" is owed when, after the whole move (a QH swap included), its player holds exactly one card.
  A penalty card after an emptied hand (a forgotten "Mau-Mau", a last jack that may not win) owes no
  "mau"; without ``announcements`` the game still announces it.
- A new KD while a Hermann race is still running first closes the old race as if its time were up.
- Words in ``say`` that no rule asks for are ignored.
"""

from __future__ import annotations

from typing import Any

from . import events as ev
from .events import Event
from .legality import IllegalAction
from .piles import draw_cards
from .state import GameState


def settle_calls(state: GameState, seat: int, say: Any, events: list[Event]) -> None:
    """A turn action by ``seat``: calls still owed by anyone cost one card each, unless said in ``say``."""
    if not state.owed:
        return
    owed = state.owed
    state.owed = {}
    for debtor in sorted(owed):
        for word in owed[debtor]:
            if debtor == seat and word in say:
                _said(seat, word, events)
            else:
                draw_cards(state, debtor, 1, f"forgot_{word}", events)


def say(state: GameState, seat: int, word: str, events: list[Event]) -> None:
    """A call said on its own, at any time (a ``say`` action)."""
    owed = state.owed.get(seat)
    if owed and word in owed:
        owed.remove(word)
        if not owed:
            del state.owed[seat]
        _said(seat, word, events)
        return
    if word == "hermann" and state.hermann is not None and seat in state.hermann:
        events.append(ev.said(seat, word))
        _hermann_said(state, seat, events)
        return
    if word == "maumau":
        raise IllegalAction("maumau_with_last_card", '"Mau-Mau" is said with the last card, in the same move')
    raise IllegalAction("nothing_to_say", "there is nothing for you to say now", {"word": word})


def announce(state: GameState, seat: int, say: Any, emptied: bool, spade: bool, hermann: bool,
             events: list[Event]) -> None:
    """Calls after a play that did not win: said in the play, or owed until the next player acts."""
    owed = []
    for word in say:
        if (word == "pik" and spade) or (word == "hermann" and hermann):
            events.append(ev.said(seat, word))
    if spade and "pik" not in say:
        owed.append("pik")
    if len(state.hands[seat]) == 1:
        if not state.rules.announcements:
            events.append(ev.mau(seat))
        elif emptied:
            pass  # the penalty card of an emptied hand owes no "mau"
        elif "mau" in say:
            _said(seat, "mau", events)
        else:
            owed.insert(0, "mau")
    if owed:
        state.owed[seat] = owed


def start_hermann(state: GameState, seat: int, said: bool, events: list[Event]) -> None:
    if state.hermann is not None:
        close_hermann(state, list(state.hermann), events)
    state.hermann = list(range(len(state.hands)))
    events.append(ev.hermann_started(seat))
    if said:
        _hermann_said(state, seat, events)


def close_hermann(state: GameState, losers: list[int], events: list[Event]) -> None:
    """The race ends: each of ``losers`` draws one card."""
    state.hermann = None
    events.append(ev.hermann_closed(losers))
    for loser in losers:
        draw_cards(state, loser, 1, "hermann", events)


def _said(seat: int, word: str, events: list[Event]) -> None:
    events.append(ev.said(seat, word))
    if word == "mau":
        events.append(ev.mau(seat))


def _hermann_said(state: GameState, seat: int, events: list[Event]) -> None:
    assert state.hermann is not None
    state.hermann.remove(seat)
    if len(state.hermann) == 1:
        close_hermann(state, list(state.hermann), events)
