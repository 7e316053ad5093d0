"""What each card does when it is laid: the one place for every card's effect.

- 7 (``seven_draws``): the next player draws that many cards; a 7 on an open penalty adds to it and
  passes it on. Drawing the penalty ends the turn unless ``seven_then_play``.
- 8 (``eight_skips``) and A (``ace_skips``): the next player is skipped.
- 9 (``nine_reverses``) and 10 (``ten_reverses``): the direction reverses; with two players that is
  a skip. 9 (``nine_skips_second``): the player after the next sits out (two players: no effect).
- Jack (``jack_wild``): its player wishes a suit, which holds until the next card is played.
- House: QH (``queen_of_hearts_swap``) swaps hands with the ``target`` seat; KD
  (``king_of_diamonds_hermann``) starts the Hermann race and a spade asks for "Pik"
  (:mod:`games.engine.calls`).
- The last card's effect does not apply (it won). An ace and its cover both act.

As the starter (``starter_effects``), read for seat ``first``: a 7 opens a penalty for it, 8 and A
skip it, 9/10 reverse the direction (the opener still starts), a 9 (``nine_skips_second``) makes the
seat after it sit out, a jack lets it play any suit. **Decision**: Q and K have no starter effect
(nobody played them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import events as ev
from .cards import RANK, SUIT
from .events import Event
from .rules import RuleSet
from .state import GameState

PENALTY, SKIP, REVERSE, SIT_OUT, WISH = "penalty", "skip", "reverse", "sit_out", "wish"


def rank_effect(rules: RuleSet, rank: str) -> str | None:
    """The effect of a card of ``rank`` under ``rules``, or None for a plain card."""
    if rank == "7":
        return PENALTY if rules.seven_draws else None
    if rank == "8":
        return SKIP if rules.eight_skips else None
    if rank == "9":
        return REVERSE if rules.nine_reverses else SIT_OUT if rules.nine_skips_second else None
    if rank == "10":
        return REVERSE if rules.ten_reverses else None
    if rank == "A":
        return SKIP if rules.ace_skips else None
    if rank == "J":
        return WISH if rules.jack_wild else None
    return None


@dataclass(slots=True)
class TurnEffects:
    """What the cards of one move do to the turn order, and which calls they ask for."""

    skips: int = 0
    reverses: int = 0
    second_skip: bool = False
    spade: bool = False
    hermann: bool = False


def played_effects(state: GameState, seat: int, names: Sequence[str], events: list[Event] | None) -> TurnEffects:
    """Open or grow the 7 penalty now; return what the cards do to the turn and the calls.
    ``events`` None records nothing (a playout)."""
    rules = state.rules
    effects = TurnEffects()
    for name in names:
        effect = rank_effect(rules, RANK[name])
        if effect == PENALTY:
            state.pending_draw += rules.seven_draws
            if events is not None:
                events.append(ev.penalty_grew(seat, state.pending_draw))
        elif effect == SKIP:
            effects.skips += 1
        elif effect == REVERSE:
            effects.reverses += 1
        elif effect == SIT_OUT:
            effects.second_skip = True
        if name == "KD" and rules.king_of_diamonds_hermann:
            effects.hermann = True
        if SUIT[name] == "S" and rules.pik_call:
            effects.spade = True
    return effects


def starter_effect(state: GameState, starter: str, first: int) -> None:
    effect = rank_effect(state.rules, RANK[starter])
    if effect == PENALTY:
        state.pending_draw = state.rules.seven_draws
    elif effect == SKIP:
        state.turn = (first + 1) % state.players
    elif effect == REVERSE:
        state.direction = -1
    elif effect == SIT_OUT and state.players > 2:
        state.sitting_out.append((first + 1) % state.players)
    elif effect == WISH:
        state.wish = "*"


def set_wish(state: GameState, seat: int, previous_top: str, names: Sequence[str], wish: str | None,
             events: list[Event] | None) -> None:
    """A jack on top wishes; any other card ends the wish. Tracks the first wish of a run of jacks.
    ``events`` None records nothing (a playout)."""
    if rank_effect(state.rules, RANK[state.top]) != WISH:
        state.wish = None
        state.first_wish = None
        return
    run_goes_on = RANK[previous_top] == "J" and all(RANK[name] == "J" for name in names)
    if not run_goes_on:
        state.first_wish = wish
    elif state.first_wish is None:
        state.first_wish = state.wish if state.wish not in (None, "*") else SUIT[previous_top]
    state.wish = wish
    if wish is not None and events is not None:
        events.append(ev.wished(seat, wish))


def swap_hands(state: GameState, seat: int, target: int, events: list[Event]) -> None:
    """The QH: its player and ``target`` exchange hands."""
    state.hands[seat], state.hands[target] = state.hands[target], state.hands[seat]
    events.append(ev.hands_swapped(seat, target))
