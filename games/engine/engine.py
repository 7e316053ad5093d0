"""The rules of Mau-Mau as two functions: ``legal_actions(state, seat)`` and ``apply(state, seat, action)``.

The rules (RULES.md is binding; the options are fields of :class:`~games.engine.rules.RuleSet`):

- Deal ``hand_size`` cards each; the next card is the starter (an excluded rank or a joker goes to
  the bottom of the stock and the next card is turned); the rest is the stock. Seat ``first`` opens.
- On your turn, play a card that matches the top card (same suit or rank; after a jack the wished
  suit) or draw. A drawn card (not a penalty) that fits may be played at once, only that card, or
  kept with ``pass``; a drawn card that cannot be played ends the turn by itself (``passed`` event).
  ``must_play``: drawing is allowed only with no playable card. Without it, at most one voluntary draw.
- Empty stock: the discard pile below its top is shuffled into a new stock; if there is still nothing
  to draw, the player passes.
- 7 (``seven_draws``): the next player draws that many; a 7 on an open penalty adds to it and passes
  it on; while a penalty is open only a 7 (or a joker named as a 7) may be played. Drawing the penalty
  ends the turn unless ``seven_then_play``. 8 (``eight_skips``) and A (``ace_skips``) skip the next
  player; 9 (``nine_reverses``) and 10 (``ten_reverses``) reverse the direction (with two players:
  a skip); 9 (``nine_skips_second``) makes the player after next sit out (two players: no effect).
- Jack (``jack_wild``): fits on anything (not on an open penalty) and wishes a suit, which holds until
  the next card is played. ``jack_on_jack`` false: no jack on a jack; ``first_wished_suit``: a jack on
  a jack only of the suit wished when the run of jacks began. ``jack_can_win`` false: a jack as the
  last card does not win; its player draws one penalty card and play goes on with the wish.
- House: a joker is played as any card its player names and then is that card (it always fits,
  but on an open penalty only as a 7). An ace needs a cover in the same move (``AS, AH, 5H``). QH
  swaps hands with the ``target`` seat. KD starts the "Hermann" race: every seat must say it; when
  all but one have, that one draws one card (``hermann_timeout`` makes all who have not draw one).
  A spade needs "pik", a play that leaves one card needs "mau": in the move, or said before the next
  player acts, else one penalty card each. The last card needs "maumau" in the same move, else its
  player draws one card instead of winning and play goes on. ``final_jacks``: jacks laid on the last
  card in the same move multiply the others' points (1 + number of extra jacks).
- Whoever lays the last card wins; its effect does not apply. A full round of turns in which no one
  could play or draw (stalemate) or ``max_turns`` ends the round without a winner.

Readings where RULES.md is silent (**Decision**, closest to the seeds):

- The turn's clock (``timeout``): ``penalty`` draws an open 7 penalty first (the player did not
  counter in time), then one card, then the turn passes; ``skip`` draws the open penalty or, if
  drawing is allowed, one card, then passes; ``autoplay`` lets the basic bot finish the turn.
- Calls owed ("mau", "pik") are settled by the next *turn* action of any seat (a play, draw, pass or
  a clock timeout); the words of that play count for its own player. "Mau" is owed when, after the
  whole move (a QH swap included), its player holds exactly one card. A move that should have won
  but lacked "maumau" owes no "mau" for the penalty card.
- A new KD while a Hermann race is still running first closes the old race as if its time were up.
- A QH or jack on a winning last card needs no target or wish (the effect does not apply). If the
  round goes on after all (forgotten "maumau"), a missing wish leaves the jack's own suit and a
  missing target swaps nothing.
- During an open 7 penalty a move is a single 7: no ace cover and no final jacks.
- Words in ``say`` that no rule asks for are ignored.
- A starter with ``starter_effects``: 7 opens a penalty for seat ``first``, 8 and (``ace_skips``) A
  skip it, 9/10 reverse the direction (the opener still starts), a jack lets the opener play any
  suit; Q and K have no starter effect (nobody played them).

``apply`` changes the state in place and returns it with the events; it validates everything
before the first change, so a refused action (:class:`IllegalAction`) leaves the state untouched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from .cards import RANK, SUIT, SUITS, build_deck, card_names, secret_shuffle
from .rules import RuleSet
from .scoring import round_result
from .state import ACTIVE, DRAWN, FINISHED, PLAY, GameState

JACK_NAMES = ("JC", "JS", "JH", "JD")
ACE_NAMES = ("AC", "AS", "AH", "AD")
SEVEN_NAMES = ("7C", "7S", "7H", "7D")
_DRAW = {"type": "draw"}
_PASS = {"type": "pass"}


class IllegalAction(Exception):
    """A well-formed action the rules refuse now. ``code`` is stable for clients to switch on."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


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
        _starter_effects(state, starter, first)
    return state


def _starter_effects(state: GameState, starter: str, first: int) -> None:
    rules = state.rules
    rank = RANK[starter]
    if rank == "7" and rules.seven_draws:
        state.pending_draw = rules.seven_draws
    elif (rank == "8" and rules.eight_skips) or (rank == "A" and rules.ace_skips):
        state.turn = (first + 1) % state.players
    elif (rank == "9" and rules.nine_reverses) or (rank == "10" and rules.ten_reverses):
        state.direction = -1
    elif rank == "9" and rules.nine_skips_second and state.players > 2:
        state.sitting_out.append((first + 1) % state.players)
    elif rank == "J" and rules.jack_wild:
        state.wish = "*"


# --------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------


def _fits(rules: RuleSet, top: str, wish: str | None, first_wish: str | None, name: str) -> bool:
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


def _fits_now(state: GameState, name: str) -> bool:
    return _fits(state.rules, state.top, state.wish, state.first_wish, name)


def _on_ace(rules: RuleSet, ace: str, name: str) -> bool:
    """Whether ``name`` covers the ace ``ace`` (a fresh top: no wish)."""
    return _fits(rules, ace, None, None, name)


# --------------------------------------------------------------------------------------------
# Legal actions
# --------------------------------------------------------------------------------------------


def legal_actions(state: GameState, seat: int | None) -> list[dict[str, Any]]:
    """Every action ``seat`` may take now, each a JSON object that can be POSTed as it is.

    One entry per choice of wish or target. A joker's name is given as the list of names allowed
    (the client picks one) when the choice changes nothing else about the move. A play lists the
    calls it needs in ``say``; the same play with fewer calls is accepted too and costs their
    penalty. Final jacks are listed in one order (any order is accepted).
    """
    if state.status != ACTIVE or seat is None or not 0 <= seat < len(state.hands):
        return []
    actions: list[dict[str, Any]] = [{"type": "say", "word": word} for word in _sayable(state, seat)]
    if seat != state.turn:
        return actions
    plays = _plays(state, seat)
    actions.extend(plays)
    if state.phase == DRAWN:
        actions.append(_PASS)
    elif state.pending_draw:
        actions.append(_DRAW)
    elif state.drawable() > 0:
        if not (plays and state.rules.must_play):
            actions.append(_DRAW)
    elif not (plays and state.rules.must_play):
        actions.append(_PASS)
    return actions


def _sayable(state: GameState, seat: int) -> list[str]:
    words = list(state.owed.get(seat, ()))
    if state.hermann is not None and seat in state.hermann:
        words.append("hermann")
    return words


def _plays(state: GameState, seat: int) -> list[dict[str, Any]]:
    rules = state.rules
    hand = state.hands[seat]
    if state.phase == DRAWN:
        candidates = [state.drawn]
    else:
        candidates = hand
    moves: list[tuple[list[str], list[Any]]] = []  # (cards, names: str or list of str per card)
    if state.pending_draw:
        for card in candidates:
            if card[0] == "X":
                moves.append(([card], [list(SEVEN_NAMES)]))
            elif RANK[card] == "7":
                moves.append(([card], [card]))
        return _entries(state, seat, moves)
    cover = rules.ace_needs_cover
    any_name = card_names(rules.deck)
    for card in candidates:
        if card[0] == "X":
            names = [name for name in any_name if not (cover and RANK[name] == "A")]
            moves.append(([card], [names]))
        elif RANK[card] == "A" and cover:
            continue
        elif _fits_now(state, card):
            moves.append(([card], [card]))
    if cover and state.phase == PLAY:
        moves.extend(_ace_chains(state, hand))
    if rules.final_jacks and state.phase == PLAY:
        moves.extend(_with_final_jacks(hand, moves))
    return _entries(state, seat, moves)


def _ace_chains(state: GameState, hand: list[str]) -> list[tuple[list[str], list[Any]]]:
    """Moves that lead with aces, each covered by the next card (house ``ace_needs_cover``)."""
    rules = state.rules
    aces = [card for card in hand if card[0] == "X" or RANK[card] == "A"]
    chains: list[tuple[list[str], list[Any]]] = []
    if not aces:
        return chains
    for length in range(1, len(aces) + 1):
        for lead in permutations(aces, length):
            if lead[0][0] != "X" and not _fits_now(state, lead[0]):
                continue
            rest = [card for card in hand if card not in lead]
            for cover in rest:
                if cover[0] != "X" and RANK[cover] == "A":
                    continue  # an ace as the cover belongs in the lead, where it gets its own cover
                names: list[Any] = []
                for position, card in enumerate(lead):
                    follower = lead[position + 1] if position + 1 < length else cover
                    if card[0] == "X":
                        names.append(_joker_ace_names(rules, follower))
                    else:
                        names.append(card)
                if cover[0] == "X":
                    names.append([name for name in card_names(rules.deck) if RANK[name] != "A"])
                else:
                    last_ace = names[-1] if isinstance(names[-1], str) else None
                    if last_ace is not None and not _on_ace(rules, last_ace, cover):
                        continue
                    if last_ace is None:
                        names[-1] = [ace for ace in names[-1] if _on_ace(rules, ace, cover)]
                        if not names[-1]:
                            continue
                    names.append(cover)
                chains.append(([*lead, cover], names))
    return chains


def _joker_ace_names(rules: RuleSet, follower: str) -> list[str]:
    if follower[0] == "X" or RANK[follower] == "A":
        return list(ACE_NAMES)
    return [ace for ace in ACE_NAMES if _on_ace(rules, ace, follower)]


def _with_final_jacks(hand: list[str], moves: list[tuple[list[str], list[Any]]]) -> list[tuple[list[str], list[Any]]]:
    extended = []
    for cards, names in moves:
        rest = [card for card in hand if card not in cards]
        if rest and all(card[0] == "X" or RANK[card] == "J" for card in rest):
            extra_names = [list(JACK_NAMES) if card[0] == "X" else card for card in rest]
            extended.append(([*cards, *rest], [*names, *extra_names]))
    return extended


def _entries(state: GameState, seat: int, moves: list[tuple[list[str], list[Any]]]) -> list[dict[str, Any]]:
    """Turn moves into action objects: one per wish or target, joker names grouped by consequence."""
    rules = state.rules
    hand_size = len(state.hands[seat])
    entries: list[dict[str, Any]] = []
    for cards, names in moves:
        last = names[-1]
        groups: dict[tuple[bool, bool], list[str]] = {}
        if isinstance(last, list):
            for name in last:
                groups.setdefault(_needs(state, cards, names[:-1] + [name], hand_size), []).append(name)
        else:
            groups[_needs(state, cards, names, hand_size)] = [last]
        for (needs_wish, needs_target), last_names in groups.items():
            chosen = names[:-1] + [last_names if isinstance(last, list) else last_names[0]]
            entry: dict[str, Any] = {"type": "play", "cards": list(cards)}
            jokers = {card: name for card, name in zip(cards, chosen, strict=True) if card[0] == "X"}
            if jokers:
                entry["as"] = jokers
            say = _calls(state, seat, cards, chosen, hand_size)
            if needs_target:
                for target in range(len(state.hands)):
                    if target != seat:
                        left = len(state.hands[target])
                        target_say = [w for w in say if w != "mau"]
                        if rules.announcements and left == 1:
                            target_say.append("mau")
                        variant = dict(entry, target=target)
                        if needs_wish:
                            for suit in SUITS:
                                entries.append(_with_say(dict(variant, wish=suit), target_say))
                        else:
                            entries.append(_with_say(variant, target_say))
            elif needs_wish:
                for suit in SUITS:
                    entries.append(_with_say(dict(entry, wish=suit), say))
            else:
                entries.append(_with_say(entry, say))
    return entries


def _with_say(entry: dict[str, Any], say: list[str]) -> dict[str, Any]:
    if say:
        entry["say"] = list(say)
    return entry


def _needs(state: GameState, cards: list[str], names: list[Any], hand_size: int) -> tuple[bool, bool]:
    """(needs a wish, needs a target) for a move whose last name is fixed."""
    rules = state.rules
    last = names[-1]
    empties = len(cards) == hand_size
    main_last = _main_last(rules, names)
    wins = empties and (rules.jack_can_win or not (rules.jack_wild and RANK[main_last] == "J"))
    if wins:
        return False, False
    needs_wish = rules.jack_wild and RANK[last] == "J"
    needs_target = rules.queen_of_hearts_swap and any(name == "QH" for name in names if isinstance(name, str))
    return needs_wish, needs_target


def _main_last(rules: RuleSet, names: list[Any]) -> str:
    """The "last card" of a move: the first non-ace (the cover), before any final jacks."""
    if not rules.ace_needs_cover:
        name = names[0]
        return name if isinstance(name, str) else name[0]
    for name in names:
        if isinstance(name, list):
            if RANK[name[0]] != "A":
                return name[0]
        elif RANK[name] != "A":
            return name
    return names[-1] if isinstance(names[-1], str) else names[-1][0]


def _calls(state: GameState, seat: int, cards: list[str], names: list[Any], hand_size: int) -> list[str]:
    rules = state.rules
    words: list[str] = []
    if rules.announcements:
        left = hand_size - len(cards)
        if left == 0:
            words.append("maumau")
        elif left == 1:
            words.append("mau")
    flat = [name for entry in names for name in (entry if isinstance(entry, list) else [entry])]
    if rules.pik_call and any(SUIT[name] == "S" for name in flat):
        words.append("pik")
    if rules.king_of_diamonds_hermann and "KD" in flat:
        words.append("hermann")
    for word in state.owed.get(seat, ()):
        if word not in words:
            words.append(word)
    return words


# --------------------------------------------------------------------------------------------
# Applying actions
# --------------------------------------------------------------------------------------------


def apply(state: GameState, seat: int | None, action: dict[str, Any]) -> tuple[GameState, list[dict[str, Any]]]:
    """Apply ``action`` by ``seat`` (``None`` for the clock). Raises :class:`IllegalAction`."""
    if state.status != ACTIVE:
        raise IllegalAction("game_over", "the round is over")
    kind = action["type"]
    events: list[dict[str, Any]] = []
    if kind == "say":
        _say(state, _seat(state, seat), action["word"], events)
        return state, events
    if kind == "hermann_timeout":
        if state.hermann is None:
            raise IllegalAction("no_hermann_race", "no Hermann race is running")
        _close_hermann(state, list(state.hermann), events)
        return state, events
    if kind == "timeout":
        _timeout(state, events)
        return state, events
    seat = _seat(state, seat)
    if seat != state.turn:
        raise IllegalAction("not_your_turn", "it is not your turn", {"turn": state.turn})
    if kind == "play":
        plan = _check_play(state, seat, action)
        state.charged = []
        _settle_calls(state, seat, plan.say, events)
        _play(state, seat, action, plan, events)
    elif kind == "draw":
        _check_draw(state, seat)
        state.charged = []
        _settle_calls(state, seat, (), events)
        _draw(state, seat, events)
    elif kind == "pass":
        playable = _check_pass(state, seat)
        state.charged = []
        _settle_calls(state, seat, (), events)
        if state.phase == PLAY:
            state.idle = 0 if playable else state.idle + 1
        events.append({"type": "passed", "seat": seat})
        _end_turn(state, seat, events)
    else:
        raise IllegalAction("unknown_action", f"unknown action type {kind!r}")
    return state, events


def _seat(state: GameState, seat: int | None) -> int:
    if seat is None or not 0 <= seat < len(state.hands):
        raise IllegalAction("not_seated", "this seat does not play in the round")
    return seat


def penalize_illegal(state: GameState, seat: int, action: dict[str, Any]) -> list[dict[str, Any]]:
    """House ``penalize_illegal``: one penalty card for a refused play, charged once.

    Nothing happens when the rule is off, when the action is not a play, when the play is in fact
    legal or refused for a reason that is not a false play (not your turn, round over), or when
    this seat was already charged for the very same play since the last accepted turn action.
    """
    if not state.rules.penalize_illegal or state.status != ACTIVE or action.get("type") != "play":
        return []
    if not 0 <= seat < len(state.hands) or seat != state.turn:
        return []
    try:
        _check_play(state, seat, action)
    except IllegalAction:
        pass
    else:
        return []
    fingerprint = json.dumps(action, sort_keys=True, separators=(",", ":"))
    if [seat, fingerprint] in state.charged:
        return []
    state.charged.append([seat, fingerprint])
    events: list[dict[str, Any]] = []
    _draw_cards(state, seat, 1, "illegal", events)
    return events


@dataclass(slots=True)
class _Plan:
    """A play that passed every check: what it will do, decided before anything changes."""

    names: list[str]  # the cards as laid, jokers by their declared names
    end: int  # index of the main card (an ace chain's cover); later cards are final jacks
    wins: bool
    empties: bool  # the hand is empty after the play (a win unless a call or rule says otherwise)
    said_maumau: bool
    say: Any
    swaps: bool  # a QH swap with the given target happens


def _check_play(state: GameState, seat: int, action: dict[str, Any]) -> _Plan:
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
    elif cards[0][0] != "X" and not _fits_now(state, names[0]):
        if RANK[names[0]] == "J" and rules.jack_wild:
            raise IllegalAction("jack_on_jack", "this jack may not be laid on a jack", {"card": cards[0]})
        raise IllegalAction("card_does_not_fit", "the card does not fit the top card",
                            {"card": cards[0], "top": state.top, "wish": state.wish})
    end = 0
    if rules.ace_needs_cover:
        while RANK[names[end]] == "A":
            if end + 1 >= len(cards):
                raise IllegalAction("ace_needs_cover", "an ace needs a fitting card on it in the same move",
                                    {"card": cards[end]})
            if cards[end + 1][0] != "X" and not _on_ace(rules, names[end], names[end + 1]):
                raise IllegalAction("card_does_not_fit", "the card does not cover the ace",
                                    {"card": cards[end + 1], "top": names[end]})
            end += 1
    extras = len(cards) - end - 1
    say = action.get("say") or ()
    empties = len(cards) == len(hand) + _penalty_cards(state, seat, say)
    if extras:
        if not rules.final_jacks:
            raise IllegalAction("one_card_per_move", "play one card (an ace with its cover)")
        if any(RANK[name] != "J" for name in names[end + 1 :]):
            raise IllegalAction("final_jacks_only", "only jacks may be laid on the last card")
        if not empties:
            raise IllegalAction("final_jacks_last_card", "extra jacks go only on your last card")
    main_last = names[end]
    jack_last = rules.jack_wild and RANK[main_last] == "J"
    said_maumau = not rules.announcements or "maumau" in say
    wins = empties and said_maumau and (rules.jack_can_win or not jack_last)
    top_after = names[-1]
    wish = action.get("wish")
    if wish is not None and wish not in SUITS:
        raise IllegalAction("invalid_wish", "wish one of C, S, H, D")
    if not wins and rules.jack_wild and RANK[top_after] == "J" and wish is None:
        if not empties or (jack_last and not rules.jack_can_win and said_maumau):
            raise IllegalAction("wish_required", "a jack wishes a suit: add a wish")
    target = action.get("target")
    swaps = rules.queen_of_hearts_swap and "QH" in names
    if not wins and swaps:
        if target is None and not empties:
            raise IllegalAction("target_required", "the queen of hearts swaps hands: name a target seat")
        if target is not None and (target == seat or not 0 <= target < len(state.hands)):
            raise IllegalAction("invalid_target", "swap with another seat of the table", {"target": target})
    return _Plan(names=names, end=end, wins=wins, empties=empties, said_maumau=said_maumau, say=say,
                 swaps=swaps and target is not None)


def _check_draw(state: GameState, seat: int) -> None:
    if state.phase == DRAWN:
        raise IllegalAction("draw_limit", "you drew already: play the drawn card or pass")
    if state.pending_draw:
        return
    if state.drawable() <= 0:
        raise IllegalAction("nothing_to_draw", "there is nothing to draw: pass")
    if state.rules.must_play and _has_play(state, seat):
        raise IllegalAction("must_play", "you can play, so you must play")


def _check_pass(state: GameState, seat: int) -> bool:
    """Validate a pass; returns whether the player could have played (for the stalemate count)."""
    if state.phase == DRAWN:
        return True
    if state.pending_draw:
        raise IllegalAction("pass_not_allowed", "a penalty is open: play a 7 or draw")
    if state.drawable() > 0:
        raise IllegalAction("pass_not_allowed", "draw a card or play")
    playable = _has_play(state, seat)
    if playable and state.rules.must_play:
        raise IllegalAction("must_play", "you can play, so you must play")
    return playable


def _has_play(state: GameState, seat: int) -> bool:
    """Whether any play is allowed now (cheaper than listing them)."""
    rules = state.rules
    hand = state.hands[seat]
    if state.pending_draw:
        return any(card[0] == "X" or RANK[card] == "7" for card in hand)
    if rules.ace_needs_cover:
        return bool(_plays(state, seat))
    return any(card[0] == "X" or _fits_now(state, card) for card in hand)


def _penalty_cards(state: GameState, seat: int, say: Any) -> int:
    """The cards ``seat`` will draw for its own calls still owed and not said in ``say``."""
    owed = state.owed.get(seat)
    if not owed:
        return 0
    before = sum(len(words) for debtor, words in state.owed.items() if debtor < seat)
    unsaid = sum(1 for word in owed if word not in say)
    return max(0, min(unsaid, state.drawable() - before))


def _settle_calls(state: GameState, seat: int, say: Any, events: list[dict[str, Any]]) -> None:
    """A turn action: calls still owed by anyone cost one card each, unless said in this play."""
    if not state.owed:
        return
    owed = state.owed
    state.owed = {}
    for debtor in sorted(owed):
        for word in owed[debtor]:
            if debtor == seat and word in say:
                events.append({"type": "said", "seat": seat, "word": word})
                if word == "mau":
                    events.append({"type": "mau", "seat": seat})
            else:
                _draw_cards(state, debtor, 1, f"forgot_{word}", events)


def _say(state: GameState, seat: int, word: str, events: list[dict[str, Any]]) -> None:
    owed = state.owed.get(seat)
    if owed and word in owed:
        owed.remove(word)
        if not owed:
            del state.owed[seat]
        events.append({"type": "said", "seat": seat, "word": word})
        if word == "mau":
            events.append({"type": "mau", "seat": seat})
        return
    if word == "hermann" and state.hermann is not None and seat in state.hermann:
        events.append({"type": "said", "seat": seat, "word": word})
        _hermann_said(state, seat, events)
        return
    if word == "maumau":
        raise IllegalAction("maumau_with_last_card", '"Mau-Mau" is said with the last card, in the same move')
    raise IllegalAction("nothing_to_say", "there is nothing for you to say now", {"word": word})


def _hermann_said(state: GameState, seat: int, events: list[dict[str, Any]]) -> None:
    assert state.hermann is not None
    state.hermann.remove(seat)
    if len(state.hermann) == 1:
        _close_hermann(state, list(state.hermann), events)


def _close_hermann(state: GameState, losers: list[int], events: list[dict[str, Any]]) -> None:
    state.hermann = None
    events.append({"type": "hermann_closed", "losers": losers})
    for loser in losers:
        _draw_cards(state, loser, 1, "hermann", events)


def _play(state: GameState, seat: int, action: dict[str, Any], plan: _Plan,
          events: list[dict[str, Any]]) -> None:
    rules = state.rules
    cards = action["cards"]
    names = plan.names
    say = plan.say
    hand = state.hands[seat]
    previous_top = state.top
    for card in cards:
        hand.remove(card)
    state.discard.extend(cards)
    state.top = names[-1]
    state.phase = PLAY
    state.drawn = None
    state.idle = 0
    played: dict[str, Any] = {"type": "played", "seat": seat, "cards": list(cards)}
    jokers = {card: name for card, name in zip(cards, names, strict=True) if card[0] == "X"}
    if jokers:
        played["as"] = jokers
    events.append(played)
    if plan.wins:
        if rules.announcements:
            events.append({"type": "said", "seat": seat, "word": "maumau"})
        multiplier = 1 + (len(cards) - plan.end - 1 if rules.final_jacks else 0)
        _finish(state, seat, "mau_mau", multiplier, events)
        return
    if plan.empties:
        reason = "forgot_maumau" if not plan.said_maumau else "jack_last"
        _draw_cards(state, seat, 1, reason, events)
    effects = _card_effects(state, seat, names, events)
    _set_wish(state, seat, previous_top, names, action.get("wish"), events)
    if plan.swaps:
        target = action["target"]
        state.hands[seat], state.hands[target] = state.hands[target], state.hands[seat]
        events.append({"type": "hands_swapped", "seats": [seat, target]})
    _announce(state, seat, plan, effects, events)
    if effects.hermann:
        _start_hermann(state, seat, "hermann" in say, events)
    _end_turn(state, seat, events, effects.skips, effects.reverses, effects.second_skip)


@dataclass(slots=True)
class _Effects:
    """What the cards of one move do to the turn order and which calls they ask for."""

    skips: int = 0
    reverses: int = 0
    second_skip: bool = False
    spade: bool = False
    hermann: bool = False


def _card_effects(state: GameState, seat: int, names: list[str], events: list[dict[str, Any]]) -> _Effects:
    """The effects of every card laid, in order (an ace and its cover both act)."""
    rules = state.rules
    effects = _Effects()
    for name in names:
        rank = RANK[name]
        if rank == "7" and rules.seven_draws:
            state.pending_draw += rules.seven_draws
            events.append({"type": "penalty_grew", "seat": seat, "pending_draw": state.pending_draw})
        elif rank == "8" and rules.eight_skips:
            effects.skips += 1
        elif rank == "9" and rules.nine_reverses:
            effects.reverses += 1
        elif rank == "9" and rules.nine_skips_second:
            effects.second_skip = True
        elif rank == "10" and rules.ten_reverses:
            effects.reverses += 1
        elif rank == "A" and rules.ace_skips:
            effects.skips += 1
        if name == "KD" and rules.king_of_diamonds_hermann:
            effects.hermann = True
        if SUIT[name] == "S" and rules.pik_call:
            effects.spade = True
    return effects


def _set_wish(state: GameState, seat: int, previous_top: str, names: list[str], wish: str | None,
              events: list[dict[str, Any]]) -> None:
    """A jack on top wishes; any other card ends the wish. Tracks the first wish of a run of jacks."""
    if not (state.rules.jack_wild and RANK[state.top] == "J"):
        state.wish = None
        state.first_wish = None
        return
    run_goes_on = RANK[previous_top] == "J" and all(RANK[name] == "J" for name in names)
    if not run_goes_on:
        state.first_wish = wish
    elif state.first_wish is None:
        state.first_wish = state.wish if state.wish not in (None, "*") else SUIT[previous_top]
    state.wish = wish
    if wish is not None:
        events.append({"type": "wish", "seat": seat, "suit": wish})


def _announce(state: GameState, seat: int, plan: _Plan, effects: _Effects,
              events: list[dict[str, Any]]) -> None:
    """Calls after a play that did not win: said now, or owed until the next player acts."""
    rules = state.rules
    say = plan.say
    owed = []
    for word in say:
        if (word == "pik" and effects.spade) or (word == "hermann" and effects.hermann):
            events.append({"type": "said", "seat": seat, "word": word})
    if effects.spade and "pik" not in say:
        owed.append("pik")
    if len(state.hands[seat]) == 1:
        if not rules.announcements:
            events.append({"type": "mau", "seat": seat})  # the game announces it for the player
        elif plan.empties:
            pass  # the penalty card of an emptied hand owes no "mau"
        elif "mau" in say:
            events.append({"type": "said", "seat": seat, "word": "mau"})
            events.append({"type": "mau", "seat": seat})
        else:
            owed.insert(0, "mau")
    if owed:
        state.owed[seat] = owed


def _start_hermann(state: GameState, seat: int, said: bool, events: list[dict[str, Any]]) -> None:
    if state.hermann is not None:
        _close_hermann(state, list(state.hermann), events)
    state.hermann = list(range(len(state.hands)))
    events.append({"type": "hermann_started", "seat": seat})
    if said:
        _hermann_said(state, seat, events)


def _draw(state: GameState, seat: int, events: list[dict[str, Any]]) -> None:
    rules = state.rules
    if state.pending_draw:
        could_counter = _has_play(state, seat)
        count = state.pending_draw
        state.pending_draw = 0
        drawn = _draw_cards(state, seat, count, "seven", events)
        state.idle = 0 if drawn or could_counter else state.idle + 1
        if rules.seven_then_play:
            return
        _end_turn(state, seat, events)
        return
    drawn = _draw_cards(state, seat, 1, None, events)
    state.idle = 0
    _note_lacking(state, seat)
    card = drawn[0]
    if card[0] == "X" or (_fits_now(state, card) and not (rules.ace_needs_cover and RANK[card] == "A")):
        state.phase = DRAWN
        state.drawn = card
        return
    events.append({"type": "passed", "seat": seat})
    _end_turn(state, seat, events)


def _note_lacking(state: GameState, seat: int) -> None:
    """Public knowledge for the basic bot: under ``must_play`` a voluntary draw shows a missing suit."""
    if not state.rules.must_play:
        return
    suit = state.wish if state.wish not in (None, "*") else SUIT[state.top]
    state.lacking[seat] = [suit]


def _draw_cards(state: GameState, seat: int, count: int, reason: str | None,
                events: list[dict[str, Any]]) -> list[str]:
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
    events.append({"type": "drew", "seat": seat, "count": len(drawn), "cards": drawn, "reason": reason})
    return drawn


def _reshuffle(state: GameState, events: list[dict[str, Any]]) -> None:
    cards = state.discard[:-1]
    state.discard = state.discard[-1:]
    secret_shuffle(cards, state.seed, state.shuffles)
    state.shuffles += 1
    state.stock = cards
    events.append({"type": "reshuffled", "count": len(cards)})


def _timeout(state: GameState, events: list[dict[str, Any]]) -> None:
    rules = state.rules
    seat = state.turn
    policy = rules.timeout_policy
    events.append({"type": "timeout", "seat": seat, "policy": policy})
    state.charged = []
    if policy == "autoplay":
        from .bots import choose_bot_action  # the bot uses legal_actions: imported late to avoid a cycle

        turns = state.turns
        while state.status == ACTIVE and state.turns == turns and state.turn == seat:
            action = choose_bot_action(state, seat, "basic", None)
            _, more = apply(state, seat, action)
            events.extend(more)
        return
    _settle_calls(state, seat, (), events)
    if state.pending_draw:
        count = state.pending_draw
        state.pending_draw = 0
        _draw_cards(state, seat, count, "seven", events)
        state.idle = 0
        if policy == "penalty":
            _draw_cards(state, seat, 1, "timeout", events)
    elif policy == "penalty":
        _draw_cards(state, seat, 1, "timeout", events)
        state.idle = 0
    elif state.phase == PLAY and state.drawable() > 0 and not (rules.must_play and _has_play(state, seat)):
        _draw_cards(state, seat, 1, None, events)
        state.idle = 0
    if state.status == ACTIVE:
        events.append({"type": "passed", "seat": seat})
        _end_turn(state, seat, events)


def _end_turn(state: GameState, seat: int, events: list[dict[str, Any]], skips: int = 0,
              reverses: int = 0, second_skip: bool = False) -> None:
    state.phase = PLAY
    state.drawn = None
    players = len(state.hands)
    if reverses % 2:
        state.direction = -state.direction
        events.append({"type": "direction", "direction": state.direction})
    if players == 2:
        skips += reverses
    step = state.direction
    current = seat
    for _ in range(skips):
        current = (current + step) % players
        if current in state.sitting_out:
            state.sitting_out.remove(current)  # one sitting-out is served by one skip
        events.append({"type": "skipped", "seat": current})
    current = (current + step) % players
    guard = 0
    while current in state.sitting_out and guard < players:
        state.sitting_out.remove(current)
        events.append({"type": "skipped", "seat": current})
        current = (current + step) % players
        guard += 1
    if second_skip and players > 2:
        state.sitting_out.append((current + step) % players)
    state.turn = current
    state.turns += 1
    if state.idle >= players:
        _finish(state, None, "stalemate", 1, events)
    elif state.turns >= state.rules.max_turns:
        _finish(state, None, "max_turns", 1, events)
    else:
        events.append({"type": "turn", "seat": current})


def _finish(state: GameState, winner: int | None, reason: str, multiplier: int,
            events: list[dict[str, Any]]) -> None:
    state.status = FINISHED
    state.phase = FINISHED
    state.owed = {}
    state.hermann = None
    state.pending_draw = 0
    state.result = round_result(state.hands, state.rules.scoring, winner, reason, multiplier)
    events.append({"type": "round_over", "result": state.result})
