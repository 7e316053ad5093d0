"""A round of Mau-Mau: the deal, and ``apply(state, seat, action)`` for every action of a turn.

The turn (docs/rules.md, "A turn"; the options are fields of :class:`~games.engine.rules.RuleSet`):

- Deal ``hand_size`` cards each; the next card is the starter (an excluded rank or a joker goes to
  the bottom of the stock and the next card is turned); the rest is the stock. Seat ``first`` opens.
- On your turn, play (:mod:`games.engine.legality`; what the cards do: :mod:`games.engine.effects`)
  or draw one card. A drawn card (not a penalty) that fits may be played at once, only that card,
  or kept with ``pass``; a drawn card that cannot be played ends the turn by itself (``passed``).
  ``must_play``: drawing is allowed only with no playable card. With nothing to draw, pass.
- An open 7 penalty is drawn whole with one ``draw``.
- A full round of turns in which nobody could play or draw (stalemate) or ``max_turns`` ends the
  round without a winner (:mod:`games.engine.results`).

Readings where docs/rules.md is silent (**Decision**, closest to the seeds):

- The turn's clock (``timeout``): ``penalty`` draws an open 7 penalty first (the player did not
  counter in time), then one card, then the turn passes; ``skip`` draws the open penalty or, if
  drawing is allowed, one card, then passes; ``autoplay`` lets the basic bot finish the turn.
- A pass (or a timed-out turn) by a player who could have played ends a stalemate count: only turns
  in which the player could neither play nor draw count toward it.

``apply`` changes the state in place and returns it with the events; it validates everything
before the first change, so a refused action (:class:`IllegalAction`) leaves the state untouched.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from . import events as ev
from .bots import choose_bot_action
from .calls import announce, close_hermann, say, settle_calls, start_hermann
from .cards import RANK, SUIT, build_deck, secret_shuffle
from .effects import played_effects, set_wish, starter_effect, swap_hands
from .events import Event
from .legality import IllegalAction, Plan, check_play, fits
from .moves import has_play
from .piles import draw_cards
from .results import aborted_result, resigned_result, round_result
from .rules import RuleSet
from .state import ACTIVE, DRAWN, FINISHED, PLAY, GameState

__all__ = ["SetupError", "apply", "new_game", "new_game_from_setup", "penalize_illegal"]


class SetupError(ValueError):
    """A game cannot be set up as asked (seat count, deck mismatch, forbidden starter)."""

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


# --------------------------------------------------------------------------------------------
# Setting up a round
# --------------------------------------------------------------------------------------------


def new_game(rules: RuleSet, players: int, seed: str | int, first: int = 0) -> GameState:
    """Shuffle the deck from ``seed`` and deal. ``seed`` must be secret (``secrets.token_hex``)."""
    _check_seats(rules, players, first)
    seed = str(seed)
    deck = build_deck(rules.deck, rules.jokers)
    secret_shuffle(deck, seed, 0)
    size = rules.hand_size
    hands = [deck[i * size : (i + 1) * size] for i in range(players)]
    rest = deck[players * size :]  # top first
    for _ in range(len(rest)):
        if _starter_allowed(rules, rest[0]):
            break
        rest.append(rest.pop(0))
    else:  # pragma: no cover - RuleSet validation keeps some rank allowed
        raise SetupError("no card of the deck may be the starter")
    starter = rest.pop(0)
    return _start(rules, seed, hands, rest, starter, first)


def new_game_from_setup(rules: RuleSet, hands: list[list[str]], starter: str, stock: list[str],
                        seed: str | int, first: int = 0, players: int | None = None) -> GameState:
    """A rigged deal for practice, tutorials and tests: hands, starter and stock (top first).

    Together they must be exactly the table's deck; hands may have any sizes (an endgame to
    practise). The seed still drives any reshuffle of the discard pile.
    """
    if not isinstance(hands, list) or any(not isinstance(hand, list) for hand in hands):
        raise SetupError("hands must be a list of lists of cards", {"field": "hands"})
    if players is not None and players != len(hands):
        raise SetupError("one hand per seat is needed", {"field": "hands", "seats": players})
    if not isinstance(stock, list):
        raise SetupError("stock must be a list of cards", {"field": "stock"})
    _check_seats(rules, len(hands), first)
    dealt = [card for hand in hands for card in hand] + [starter] + stock
    deck = build_deck(rules.deck, rules.jokers)
    if sorted(map(str, dealt)) != sorted(deck):
        missing = sorted(set(deck) - set(dealt))
        unknown = sorted(str(card) for card in set(map(str, dealt)) - set(deck))
        repeated = sorted({card for card in dealt if dealt.count(card) > 1})
        raise SetupError(
            "hands, starter and stock must be exactly the table's deck",
            {"missing": missing, "unknown": unknown, "repeated": repeated},
        )
    if not _starter_allowed(rules, starter):
        raise SetupError("these rules do not allow this starter", {"field": "starter", "value": starter})
    return _start(rules, str(seed), [list(hand) for hand in hands], list(stock), starter, first)


def _check_seats(rules: RuleSet, players: int, first: int) -> None:
    if not rules.min_players <= players <= rules.max_players:
        raise SetupError(
            f"{rules.name} is played by {rules.min_players} to {rules.max_players} players",
            {"players": players},
        )
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < players:
        raise SetupError("first must be a seat of the table", {"field": "first", "value": first})


def _starter_allowed(rules: RuleSet, card: str) -> bool:
    return card[0] != "X" and RANK[card] not in rules.starter_excludes


def _start(rules: RuleSet, seed: str, hands: list[list[str]], stock_top_first: list[str],
           starter: str, first: int) -> GameState:
    state = GameState(rules, seed, hands, stock_top_first[::-1], [starter], first)
    if rules.starter_effects:
        starter_effect(state, starter, first)
    return state


# --------------------------------------------------------------------------------------------
# Applying actions
# --------------------------------------------------------------------------------------------


def apply(state: GameState, seat: int | None, action: dict[str, Any]) -> tuple[GameState, list[Event]]:
    """Apply ``action`` by ``seat`` (``None`` for the clock). Raises :class:`IllegalAction`."""
    if state.status != ACTIVE:
        raise IllegalAction("game_over", "the round is over")
    kind = action["type"]
    events: list[Event] = []
    if kind == "say":
        say(state, _seated(state, seat), action["word"], events)
        return state, events
    if kind == "hermann_timeout":
        if state.hermann is None:
            raise IllegalAction("no_hermann_race", "no Hermann race is running")
        close_hermann(state, list(state.hermann), events)
        return state, events
    if kind == "timeout":
        _timeout(state, events)
        return state, events
    seat = _seated(state, seat)
    if kind == "resign":  # any time, on turn or not: the round ends (results.resigned_result)
        events.append(ev.resigned(seat))
        _end_round(state, resigned_result(state.hands, state.rules.scoring, seat), events)
        return state, events
    if kind == "abort":  # the service lets only the host abort, and only before the first move
        if state.turns or state.phase != PLAY:
            raise IllegalAction("round_started", "a round can be aborted only before its first move")
        events.append(ev.aborted(seat))
        _end_round(state, aborted_result(state.hands), events)
        return state, events
    if seat != state.turn:
        raise IllegalAction("not_your_turn", "it is not your turn", {"turn": state.turn})
    if kind == "play":
        carry_out_play(state, seat, action, check_play(state, seat, action), events)
    elif kind == "draw":
        _check_draw(state, seat)
        state.penalized_plays = []
        settle_calls(state, seat, (), events)
        draw_on_turn(state, seat, events)
    elif kind == "pass":
        could_play = check_pass(state, seat)
        state.penalized_plays = []
        settle_calls(state, seat, (), events)
        pass_turn(state, seat, could_play, events)
    else:
        raise IllegalAction("unknown_action", f"unknown action type {kind!r}")
    return state, events


def _seated(state: GameState, seat: int | None) -> int:
    if seat is None or not 0 <= seat < len(state.hands):
        raise IllegalAction("not_seated", "this seat does not play in the round")
    return seat


def penalize_illegal(state: GameState, seat: int, action: dict[str, Any]) -> list[Event]:
    """House ``penalize_illegal``: one penalty card for a refused play, charged once.

    Nothing happens when the rule is off, when the action is not a play, when the play is in fact
    legal or refused for a reason that is not a false play (not your turn, round over), or when
    this seat was already penalized for the very same play since the last accepted turn action.
    """
    if not state.rules.penalize_illegal or state.status != ACTIVE or action.get("type") != "play":
        return []
    if not 0 <= seat < len(state.hands) or seat != state.turn:
        return []
    try:
        check_play(state, seat, action)
    except IllegalAction:
        pass
    else:
        return []
    fingerprint = json.dumps(action, sort_keys=True, separators=(",", ":"))
    if [seat, fingerprint] in state.penalized_plays:
        return []
    state.penalized_plays.append([seat, fingerprint])
    events: list[Event] = []
    draw_cards(state, seat, 1, "illegal", events)
    return events


def _check_draw(state: GameState, seat: int) -> None:
    if state.phase == DRAWN:
        raise IllegalAction("draw_limit", "you drew already: play the drawn card or pass")
    if state.pending_draw:
        return
    if state.drawable() <= 0:
        raise IllegalAction("nothing_to_draw", "there is nothing to draw: pass")
    if state.rules.must_play and has_play(state, seat):
        raise IllegalAction("must_play", "you can play, so you must play")


def check_pass(state: GameState, seat: int) -> bool:
    """Validate a pass; returns whether the player could have played (for the stalemate count).
    Public, as are the steps of a turn below, so that the playouts take a turn by ``apply``'s rules."""
    if state.phase == DRAWN:
        return True
    if state.pending_draw:
        raise IllegalAction("pass_not_allowed", "a penalty is open: play a 7 or draw")
    if state.drawable() > 0:
        raise IllegalAction("pass_not_allowed", "draw a card or play")
    could_play = has_play(state, seat)
    if could_play and state.rules.must_play:
        raise IllegalAction("must_play", "you can play, so you must play")
    return could_play


def carry_out_play(state: GameState, seat: int, action: dict[str, Any], plan: Plan, events: list[Event]) -> None:
    """A play as ``plan`` (:func:`check_play`'s) says: the calls still owed settled, the cards laid, then
    the round won or the effects, the wish, a swap, the calls and a Hermann race, and the turn's end."""
    state.penalized_plays = []
    settle_calls(state, seat, plan.say, events)
    rules = state.rules
    cards = action["cards"]
    names = plan.names
    previous_top = state.top
    lay_cards(state, seat, cards, names[-1])
    jokers = {card: name for card, name in zip(cards, names, strict=True) if card[0] == "X"}
    events.append(ev.played(seat, list(cards), jokers))
    if plan.wins:
        if rules.announcements:
            events.append(ev.said(seat, "maumau"))
        final_jacks = len(cards) - plan.main - 1 if rules.final_jacks else 0
        finish_round(state, seat, "mau_mau", 1 + final_jacks, events)
        return
    if plan.empties:
        draw_cards(state, seat, 1, "jack_last" if plan.said_maumau else "forgot_maumau", events)
    effects = played_effects(state, seat, names, events)
    set_wish(state, seat, previous_top, names, action.get("wish"), events)
    if plan.swaps:
        swap_hands(state, seat, action["target"], events)
    announce(state, seat, plan.say, plan.empties, effects.spade, effects.hermann, events)
    if effects.hermann:
        start_hermann(state, seat, "hermann" in plan.say, events)
    end_turn(state, seat, events, effects.skips, effects.reverses, effects.second_skip)


def lay_cards(state: GameState, seat: int, cards: Sequence[str], top: str) -> None:
    """Move a play's cards from the hand to the discard pile, ``top`` (the last one's name) on top;
    the first step of every play, the playouts' too."""
    hand = state.hands[seat]
    for card in cards:
        hand.remove(card)
    state.discard.extend(cards)
    state.top = top
    state.phase = PLAY
    state.drawn = None
    state.idle = 0


def draw_on_turn(state: GameState, seat: int, events: list[Event] | None) -> None:
    """The ``draw`` action once checked: the open 7 penalty whole, or one card, kept to play at once
    when it may be played, else the turn ends. ``events`` None records nothing (a playout's draw)."""
    rules = state.rules
    if state.pending_draw:
        could_counter = has_play(state, seat)
        count = state.pending_draw
        state.pending_draw = 0
        drawn = draw_cards(state, seat, count, "seven", events)
        _count_stuck_turn(state, bool(drawn) or could_counter)
        if rules.seven_then_play:
            return
        end_turn(state, seat, events)
        return
    stock = state.stock
    if stock:  # one card off the stock, most draws: draw_cards' own short way, without the call
        card = stock.pop()
        state.hands[seat].append(card)
        if events is not None:
            events.append(ev.drew(seat, [card], None))
    else:
        card = draw_cards(state, seat, 1, None, events)[0]
    state.idle = 0
    if rules.must_play:
        _note_lacking(state, seat)
    if card[0] == "X" or (fits(rules, state.top, state.wish, state.first_wish, card)
                          and not (rules.ace_needs_cover and RANK[card] == "A")):
        state.phase = DRAWN
        state.drawn = card
        return
    if events is not None:
        events.append(ev.passed(seat))
    end_turn(state, seat, events)


def pass_turn(state: GameState, seat: int, could_play: bool, events: list[Event] | None) -> None:
    """The ``pass`` action once :func:`check_pass` said ``could_play``: the stalemate count, then the
    turn ends. ``events`` None records nothing (a playout's pass)."""
    if state.phase == PLAY:
        _count_stuck_turn(state, could_play)
    if events is not None:
        events.append(ev.passed(seat))
    end_turn(state, seat, events)


def _note_lacking(state: GameState, seat: int) -> None:
    """Public knowledge for the basic bot: under ``must_play`` a voluntary draw shows a missing suit."""
    suit = state.wish if state.wish not in (None, "*") else SUIT[state.top]
    state.lacking[seat] = [suit]


def _count_stuck_turn(state: GameState, could_move: bool) -> None:
    """The stalemate count: turns in a row in which the player could neither play nor draw."""
    state.idle = 0 if could_move else state.idle + 1


def _timeout(state: GameState, events: list[Event]) -> None:
    rules = state.rules
    seat = state.turn
    policy = rules.timeout_policy
    events.append(ev.timed_out(seat, policy))
    state.penalized_plays = []
    if policy == "autoplay":
        turns = state.turns
        while state.status == ACTIVE and state.turns == turns and state.turn == seat:
            _, more = apply(state, seat, choose_bot_action(state, seat, "basic", None))
            events.extend(more)
        return
    settle_calls(state, seat, (), events)
    if state.pending_draw:
        count = state.pending_draw
        state.pending_draw = 0
        draw_cards(state, seat, count, "seven", events)
        state.idle = 0
        if policy == "penalty":
            draw_cards(state, seat, 1, "timeout", events)
    elif policy == "penalty":
        draw_cards(state, seat, 1, "timeout", events)
        state.idle = 0
    elif state.phase == PLAY and state.drawable() > 0 and not (rules.must_play and has_play(state, seat)):
        draw_cards(state, seat, 1, None, events)
        state.idle = 0
    elif state.phase == PLAY:
        _count_stuck_turn(state, state.drawable() > 0 or has_play(state, seat))
    if state.status == ACTIVE:
        events.append(ev.passed(seat))
        end_turn(state, seat, events)


def end_turn(state: GameState, seat: int, events: list[Event] | None, skips: int = 0,
             reverses: int = 0, second_skip: bool = False) -> None:
    """Pass the turn on from ``seat``, past the seats its cards skip and those sitting out, and end
    the round at a stalemate or ``max_turns``. ``events`` None records nothing (a playout)."""
    state.phase = PLAY
    state.drawn = None
    players = len(state.hands)
    if skips or reverses or second_skip or state.sitting_out:
        current = _next_seat(state, seat, players, events, skips, reverses, second_skip)
    else:  # nobody skipped and nobody sitting out: most turns
        current = (seat + state.direction) % players
    state.turn = current
    state.turns += 1
    if state.idle >= players:
        finish_round(state, None, "stalemate", 1, events)
    elif state.turns >= state.rules.max_turns:
        finish_round(state, None, "max_turns", 1, events)
    elif events is not None:
        events.append(ev.turn(current))


def _next_seat(state: GameState, seat: int, players: int, events: list[Event] | None, skips: int,
               reverses: int, second_skip: bool) -> int:
    """The seat after ``seat`` once the cards' reverses and skips and the seats sitting out are served."""
    if reverses % 2:
        state.direction = -state.direction
        if events is not None:
            events.append(ev.direction_changed(state.direction))
    if players == 2:
        skips += reverses
    step = state.direction
    current = seat
    for _ in range(skips):
        current = (current + step) % players
        if current in state.sitting_out:
            state.sitting_out.remove(current)  # one sitting-out is served by one skip
        if events is not None:
            events.append(ev.skipped(current))
    current = (current + step) % players
    guard = 0
    while current in state.sitting_out and guard < players:
        state.sitting_out.remove(current)
        if events is not None:
            events.append(ev.skipped(current))
        current = (current + step) % players
        guard += 1
    if second_skip and players > 2:
        state.sitting_out.append((current + step) % players)
    return current


def finish_round(state: GameState, winner: int | None, reason: str, multiplier: int,
                 events: list[Event] | None) -> None:
    """End the round with ``winner`` (None: nobody won) and score it. ``events`` None: a playout."""
    _end_round(state, round_result(state.hands, state.rules.scoring, winner, reason, multiplier), events)


def _end_round(state: GameState, result: dict[str, Any], events: list[Event] | None) -> None:
    state.status = FINISHED
    state.owed = {}
    state.hermann = None
    state.pending_draw = 0
    state.result = result
    if events is not None:
        events.append(ev.round_over(state.result))
