"""Move generation: every action a seat may take now, as JSON objects that can be POSTed as they are.

The same judge as the play checker (:func:`games.engine.legality.judge`) decides which plays need a
wish or may name a target, so a listed action is always accepted. Readings of the listing:

- One entry per choice of wish or target. A joker's name is given as the list of names allowed
  (the client picks one) when the choice changes nothing else about the move.
- A play lists the calls it needs in ``say``, its player's calls still owed included; the same play
  with fewer calls is accepted too and costs their penalty.
- Final jacks are listed in one order (any order is accepted).
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from .cards import RANK, SUIT, SUITS, card_names
from .legality import covers_ace, fits_now, judge
from .rules import RuleSet
from .state import ACTIVE, DRAWN, PLAY, GameState

JACK_NAMES = ("JC", "JS", "JH", "JD")
ACE_NAMES = ("AC", "AS", "AH", "AD")
SEVEN_NAMES = ("7C", "7S", "7H", "7D")
_DRAW = {"type": "draw"}
_PASS = {"type": "pass"}

#: a move before it becomes actions: its cards, and each card's name (a list: a joker's choices)
Move = tuple[list[str], list[Any]]


def legal_actions(state: GameState, seat: int | None) -> list[dict[str, Any]]:
    """Every action ``seat`` may take now: calls it may say, and on its turn plays, draw or pass."""
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


def has_play(state: GameState, seat: int) -> bool:
    """Whether any play is allowed now (cheaper than listing them)."""
    hand = state.hands[seat]
    if state.pending_draw:
        return any(card[0] == "X" or RANK[card] == "7" for card in hand)
    if state.rules.ace_needs_cover:
        return bool(_plays(state, seat))
    return any(card[0] == "X" or fits_now(state, card) for card in hand)


def _sayable(state: GameState, seat: int) -> list[str]:
    words = list(state.owed.get(seat, ()))
    if state.hermann is not None and seat in state.hermann:
        words.append("hermann")
    return words


def _plays(state: GameState, seat: int) -> list[dict[str, Any]]:
    rules = state.rules
    hand = state.hands[seat]
    candidates = [state.drawn] if state.phase == DRAWN else hand
    moves: list[Move] = []
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
            moves.append(([card], [[name for name in any_name if not (cover and RANK[name] == "A")]]))
        elif RANK[card] == "A" and cover:
            continue
        elif fits_now(state, card):
            moves.append(([card], [card]))
    if cover and state.phase == PLAY:
        moves.extend(_ace_chains(state, hand))
    if rules.final_jacks and state.phase == PLAY:
        moves.extend(_with_final_jacks(hand, moves))
    return _entries(state, seat, moves)


def _ace_chains(state: GameState, hand: list[str]) -> list[Move]:
    """Moves that lead with aces, each covered by the next card (house ``ace_needs_cover``)."""
    rules = state.rules
    aces = [card for card in hand if card[0] == "X" or RANK[card] == "A"]
    chains: list[Move] = []
    for length in range(1, len(aces) + 1):
        for lead in permutations(aces, length):
            if lead[0][0] != "X" and not fits_now(state, lead[0]):
                continue
            rest = [card for card in hand if card not in lead]
            for cover in rest:
                if cover[0] != "X" and RANK[cover] == "A":
                    continue  # an ace as the cover belongs in the lead, where it gets its own cover
                names: list[Any] = []
                for position, card in enumerate(lead):
                    follower = lead[position + 1] if position + 1 < length else cover
                    names.append(_joker_ace_names(rules, follower) if card[0] == "X" else card)
                if cover[0] == "X":
                    names.append([name for name in card_names(rules.deck) if RANK[name] != "A"])
                else:
                    last_ace = names[-1] if isinstance(names[-1], str) else None
                    if last_ace is not None and not covers_ace(rules, last_ace, cover):
                        continue
                    if last_ace is None:
                        names[-1] = [ace for ace in names[-1] if covers_ace(rules, ace, cover)]
                        if not names[-1]:
                            continue
                    names.append(cover)
                chains.append(([*lead, cover], names))
    return chains


def _joker_ace_names(rules: RuleSet, follower: str) -> list[str]:
    if follower[0] == "X" or RANK[follower] == "A":
        return list(ACE_NAMES)
    return [ace for ace in ACE_NAMES if covers_ace(rules, ace, follower)]


def _with_final_jacks(hand: list[str], moves: list[Move]) -> list[Move]:
    extended = []
    for cards, names in moves:
        rest = [card for card in hand if card not in cards]
        if rest and all(card[0] == "X" or RANK[card] == "J" for card in rest):
            extra_names = [list(JACK_NAMES) if card[0] == "X" else card for card in rest]
            extended.append(([*cards, *rest], [*names, *extra_names]))
    return extended


def _entries(state: GameState, seat: int, moves: list[Move]) -> list[dict[str, Any]]:
    """Turn moves into actions: one per wish or target, joker names grouped by their outcome."""
    rules = state.rules
    hand_size = len(state.hands[seat])
    entries: list[dict[str, Any]] = []
    for cards, names in moves:
        for needs_wish, needs_target, chosen in _by_outcome(rules, names, hand_size):
            entry: dict[str, Any] = {"type": "play", "cards": list(cards)}
            jokers = {card: name for card, name in zip(cards, chosen, strict=True) if card[0] == "X"}
            if jokers:
                entry["as"] = jokers
            say = _calls(state, seat, cards, chosen, hand_size)
            if needs_target:
                for target in range(len(state.hands)):
                    if target != seat:
                        target_say = [word for word in say if word != "mau"]
                        if rules.announcements and len(state.hands[target]) == 1:
                            target_say.append("mau")  # the swap hands the player one card
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


def _by_outcome(rules: RuleSet, names: list[Any], hand_size: int) -> list[tuple[bool, bool, list[Any]]]:
    """(needs a wish, needs a target, names) for a move, its last joker's names grouped by outcome.

    Every call is taken as said: the listed play carries them."""
    last = names[-1]
    if isinstance(last, str):
        concrete = names
        if len(names) > 1 and not all(isinstance(name, str) for name in names):
            concrete = [name if isinstance(name, str) else name[0] for name in names]
        outcome = judge(rules, concrete, hand_size, said_maumau=True)
        return [(outcome.wish_required, outcome.may_swap, names)]
    head = [name if isinstance(name, str) else name[0] for name in names[:-1]]
    groups: dict[tuple[bool, bool], list[str]] = {}
    for name in last:
        outcome = judge(rules, [*head, name], hand_size, said_maumau=True)
        groups.setdefault((outcome.wish_required, outcome.may_swap), []).append(name)
    return [(needs_wish, needs_target, [*names[:-1], group]) for (needs_wish, needs_target), group in groups.items()]


def _with_say(entry: dict[str, Any], say: list[str]) -> dict[str, Any]:
    if say:
        entry["say"] = list(say)
    return entry


def _calls(state: GameState, seat: int, cards: list[str], names: list[Any], hand_size: int) -> list[str]:
    """The calls a listed play carries: those it asks for, and its player's calls still owed."""
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

