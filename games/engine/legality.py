"""Which play is allowed, and what it will do: the one judge that move listing and checking share.

- A card fits the top card by suit or rank; while a wish holds (after a jack) only the wished suit
  fits (``*``: any suit, a jack starter). A wild jack (``jack_wild``) fits on anything but a jack;
  on a jack it fits as ``jack_on_jack`` says (``first_wished_suit``: only a jack of the suit wished
  when the run of jacks began). A joker fits always, as the card its player names.
- While a 7 penalty is open, only a 7 (or a joker named as a 7) may be played.
- After drawing, only the drawn card may be played. House: an ace needs a cover in the same move
  (``AS, AH, 5H``); ``final_jacks`` lays jacks on the last card.
- :func:`judge` decides whether a play wins and whether it needs a wish or may name a target.
  Whoever lays the last card wins, unless "Mau-Mau" is missing (``announcements``) or the last card
  is a jack and ``jack_can_win`` is off: then its player draws one card and play goes on (with the
  wish). Calls still owed from one's own previous move are charged first (:func:`penalty_cards`):
  those penalty cards are in the hand when the play is judged.

Readings where docs/rules.md is silent (**Decision**, closest to the seeds): during an open 7 penalty a
move is a single 7 (no ace cover, no final jacks). A QH or jack on a winning last card needs no
target or wish (its effect does not apply). A hand emptied without winning for want of "Mau-Mau"
needs neither: a missing wish leaves the jack's own suit, and a missing target swaps nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import RANK, SUIT, SUITS, card_names
from .rules import RuleSet
from .state import DRAWN, GameState


class IllegalAction(Exception):
    """A well-formed action the rules refuse now. ``code`` is stable for clients to switch on."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


def fits(rules: RuleSet, top: str, wish: str | None, first_wish: str | None, name: str) -> bool:
    """Whether the suited card ``name`` may be laid on ``top`` (no open penalty)."""
    rank = RANK[name]
    if rank == "J" and rules.jack_wild:
        if RANK[top] != "J":
            return True
        rule = rules.jack_on_jack
        if rule is True:
            return True
        if rule is False:
            return False
        return SUIT[name] == (first_wish or wish or SUIT[top])
    if wish is not None:
        return wish == "*" or SUIT[name] == wish
    return SUIT[name] == SUIT[top] or rank == RANK[top]


def fits_now(state: GameState, name: str) -> bool:
    return fits(state.rules, state.top, state.wish, state.first_wish, name)


def covers_ace(rules: RuleSet, ace: str, name: str) -> bool:
    """Whether ``name`` covers the ace ``ace`` (a fresh top: no wish)."""
    return fits(rules, ace, None, None, name)


def _jack_is_last(rules: RuleSet, names: Sequence[str]) -> bool:
    """Whether a move's "last card" is a wild jack: its first card after any aces (final jacks follow it)."""
    if not rules.jack_wild:
        return False
    main = names[0]
    if rules.ace_needs_cover:
        main = next((name for name in names if RANK[name] != "A"), names[-1])
    return RANK[main] == "J"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a play of the given cards does to the round."""

    wins: bool
    empties: bool  # the hand is empty after the play (a win unless a call or rule says otherwise)
    wish_required: bool
    may_swap: bool  # a QH that swaps hands when a target is named


#: the few outcomes there are, made once (judging runs for every listed move): [empties][wish][swap]
_WINS = Outcome(wins=True, empties=True, wish_required=False, may_swap=False)
_GOES_ON = [[[Outcome(False, empties, wish, swap) for swap in (False, True)] for wish in (False, True)]
            for empties in (False, True)]


def judge(rules: RuleSet, names: Sequence[str], hand_size: int, said_maumau: bool) -> Outcome:
    """The outcome of laying ``names`` (jokers by their names) from a hand of ``hand_size`` cards.

    Move listing asks it with every call said; the play checker with the calls of the play."""
    empties = len(names) == hand_size
    if empties and said_maumau and (rules.jack_can_win or not _jack_is_last(rules, names)):
        return _WINS
    wish_required = rules.jack_wild and RANK[names[-1]] == "J" and (said_maumau or not empties)
    return _GOES_ON[empties][wish_required][rules.queen_of_hearts_swap and "QH" in names]


def penalty_cards(state: GameState, seat: int, say: Any) -> int:
    """The cards ``seat`` will draw for its own calls still owed and not said in ``say``."""
    owed = state.owed.get(seat)
    if not owed:
        return 0
    before = sum(len(words) for debtor, words in state.owed.items() if debtor < seat)
    unsaid = sum(1 for word in owed if word not in say)
    return max(0, min(unsaid, state.drawable() - before))


@dataclass(slots=True)
class Plan:
    """A play that passed every check: what it will do, decided before anything changes."""

    names: list[str]  # the cards as laid, jokers by their declared names
    main: int  # index of the main card (an ace chain's cover); later cards are final jacks
    wins: bool
    empties: bool
    said_maumau: bool
    say: Any
    swaps: bool  # a QH swap with the given target happens


def check_play(state: GameState, seat: int, action: dict[str, Any]) -> Plan:
    """Validate a play completely, before any change, and return what it will do."""
    rules = state.rules
    hand = state.hands[seat]
    cards = action["cards"]
    given_names = action.get("as") or {}
    if not cards:
        raise IllegalAction("no_cards", "a play lays at least one card")
    if len(set(cards)) != len(cards):
        raise IllegalAction("duplicate_card", "a card is listed twice")
    deck_names = card_names(rules.deck)
    names: list[str] = []
    for card in cards:
        if card not in hand:
            raise IllegalAction("card_not_in_hand", "you do not hold this card", {"card": card})
        if card[0] == "X":
            name = given_names.get(card)
            if name is None:
                raise IllegalAction("joker_name_required", "name the card the joker stands for", {"card": card})
            if not isinstance(name, str) or name not in deck_names:
                raise IllegalAction("invalid_joker_name", "a joker is named as a card of the deck", {"card": card})
            names.append(name)
        else:
            names.append(card)
    if state.phase == DRAWN and cards != [state.drawn]:
        raise IllegalAction("only_drawn_card", "after drawing you may play only the drawn card",
                            {"card": state.drawn})
    if state.pending_draw:
        if len(cards) != 1 or RANK[names[0]] != "7":
            raise IllegalAction("penalty_open", "a penalty is open: play a 7 or draw",
                                {"pending_draw": state.pending_draw})
    elif cards[0][0] != "X" and not fits_now(state, names[0]):
        if RANK[names[0]] == "J" and rules.jack_wild:
            raise IllegalAction("jack_on_jack", "this jack may not be laid on a jack", {"card": cards[0]})
        raise IllegalAction("card_does_not_fit", "the card does not fit the top card",
                            {"card": cards[0], "top": state.top, "wish": state.wish})
    main = 0
    if rules.ace_needs_cover:
        while RANK[names[main]] == "A":
            if main + 1 >= len(cards):
                raise IllegalAction("ace_needs_cover", "an ace needs a fitting card on it in the same move",
                                    {"card": cards[main]})
            if cards[main + 1][0] != "X" and not covers_ace(rules, names[main], names[main + 1]):
                raise IllegalAction("card_does_not_fit", "the card does not cover the ace",
                                    {"card": cards[main + 1], "top": names[main]})
            main += 1
    say = action.get("say") or ()
    outcome, said_maumau = _outcome(state, seat, names, say)
    if len(cards) > main + 1:
        if not rules.final_jacks:
            raise IllegalAction("one_card_per_move", "play one card (an ace with its cover)")
        if any(RANK[name] != "J" for name in names[main + 1 :]):
            raise IllegalAction("final_jacks_only", "only jacks may be laid on the last card")
        if not outcome.empties:
            raise IllegalAction("final_jacks_last_card", "extra jacks go only on your last card")
    wish = action.get("wish")
    if wish is not None and wish not in SUITS:
        raise IllegalAction("invalid_wish", "wish one of C, S, H, D")
    if outcome.wish_required and wish is None:
        raise IllegalAction("wish_required", "a jack wishes a suit: add a wish")
    target = action.get("target")
    if outcome.may_swap:
        if target is None and not outcome.empties:
            raise IllegalAction("target_required", "the queen of hearts swaps hands: name a target seat")
        if target is not None and (target == seat or not 0 <= target < len(state.hands)):
            raise IllegalAction("invalid_target", "swap with another seat of the table", {"target": target})
    return Plan(names=names, main=main, wins=outcome.wins, empties=outcome.empties, said_maumau=said_maumau,
                say=say, swaps=outcome.may_swap and target is not None)


def lone_card_plan(state: GameState, seat: int, card: str, say: Any, target: int | None) -> Plan:
    """What :func:`check_play` plans for one card that it would accept unchanged: a card of the seat's
    to lay that fits (no joker; no ace under ``ace_needs_cover``), with a wish where one is due and a
    target for a QH that swaps. Nothing is checked: the playouts' sensible play (``playouts``) picks
    such cards by the same tests, and checking them again took an eighth of a house rules' playout."""
    outcome, said_maumau = _outcome(state, seat, [card], say)
    return Plan(names=[card], main=0, wins=outcome.wins, empties=outcome.empties, said_maumau=said_maumau,
                say=say, swaps=outcome.may_swap and target is not None)


def _outcome(state: GameState, seat: int, names: list[str], say: Any) -> tuple[Outcome, bool]:
    """A play's outcome (:func:`judge`) with the calls of ``say``, and whether it says "Mau-Mau"."""
    rules = state.rules
    said_maumau = not rules.announcements or "maumau" in say
    hand = state.hands[seat]
    hand_size = len(hand) + penalty_cards(state, seat, say) if state.owed else len(hand)
    return judge(rules, names, hand_size, said_maumau), said_maumau
