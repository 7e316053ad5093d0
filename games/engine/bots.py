"""Bots: ``random`` (a uniformly chosen legal action) and ``basic`` (plays like a sensible person).

The third level, ``strong``, searches (:mod:`games.engine.search`): it needs the events its seat was
shown, not only the state, so the service runs it apart; here any level but ``random`` plays as
``basic`` (which is also how the turn clock's ``autoplay`` finishes a turn).

Both choose only from :func:`~games.engine.moves.legal_actions`, so a bot can never make an
illegal move. The basic bot follows the seeds' advice: say every call; counter a 7 with a 7;
keep jacks for need (or to win); wish the suit it holds most, preferring a suit the next player
showed it lacks by drawing; play the drawn card when it can; shed high-scoring cards first.
It is deterministic (ties go to the first listed action), so an auto-played turn replays exactly.
It looks only at what its seat may see: its hand, the counts and the public table.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from .cards import RANK, SUIT, SUITS, house_points, ranking_points
from .moves import legal_actions
from .state import GameState

#: the bot levels a table may seat, weakest first
BOT_LEVELS = ("random", "basic", "strong")


def choose_bot_action(state: GameState, seat: int, level: str,
                      rng: random.Random | None) -> dict[str, Any] | None:
    """The bot's action for ``seat``, or None when it may not act."""
    actions = legal_actions(state, seat)
    if not actions:
        return None
    if level == "random":
        if rng is None:
            raise ValueError("the random bot needs an rng")
        return _pick_names(rng.choice(actions), rng)
    return _basic(state, seat, actions)


def _pick_names(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    names = action.get("as")
    if not names:
        return action
    chosen = {joker: rng.choice(name) if isinstance(name, list) else name for joker, name in names.items()}
    return {**action, "as": chosen}


def _basic(state: GameState, seat: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    for action in actions:
        if action["type"] == "say":
            return action
    plays = [action for action in actions if action["type"] == "play"]
    if not plays:
        return actions[0]  # draw or pass: whichever is allowed
    hand = state.hands[seat]
    points = house_points if state.rules.scoring == "points" else ranking_points
    players = len(state.hands)
    next_seat = (seat + state.direction) % players
    lacking = set(state.lacking.get(next_seat, ()))
    fewest_other = min(len(h) for i, h in enumerate(state.hands) if i != seat)
    best: tuple[float, int] | None = None
    chosen = plays[0]
    for index, action in enumerate(plays):
        action = name_jokers(action, hand)
        cards = action["cards"]
        names = [action.get("as", {}).get(card, card) for card in cards]
        rest = [card for card in hand if card not in cards]
        suits = Counter(SUIT[card] for card in rest if card[0] != "X" and RANK[card] != "J")
        score = 10.0 * len(cards)
        if not rest:
            score += 1000
        jacks = sum(1 for card in cards if card[0] == "X" or RANK[card] == "J")
        if rest and jacks:
            score -= 40 * jacks  # keep jacks and jokers for need
        score += sum(points(card) for card in cards) * 0.5
        top = names[-1]
        if RANK[top] in ("7", "8") and fewest_other <= 3:
            score += 6
        wish = action.get("wish")
        follow = wish if wish is not None else SUIT[top]
        score += 3 * suits.get(follow, 0)
        if follow in lacking:
            score += 4
        if wish is not None:
            # prefer the wish of the suit held most (ties: one the next player lacks)
            score += 0.5 * suits.get(wish, 0) + (0.3 if wish in lacking else 0)
        if "target" in action:
            score -= len(state.hands[action["target"]])
        key = (score, -index)
        if best is None or key > best:
            best = key
            chosen = action
    return chosen


def name_jokers(action: dict[str, Any], hand: list[str]) -> dict[str, Any]:
    """Name each joker from its list: a 7 of the suit held most, else a card of that suit."""
    names = action.get("as")
    if not names or all(isinstance(name, str) for name in names.values()):
        return action
    suits = Counter(SUIT[card] for card in hand if card[0] != "X")
    order = sorted(SUITS, key=lambda suit: -suits.get(suit, 0))
    chosen = {}
    for joker, options in names.items():
        if isinstance(options, str):
            chosen[joker] = options
            continue
        pick = None
        for suit in order:
            for preferred in ("7", "8", "K", "Q"):
                if preferred + suit in options:
                    pick = preferred + suit
                    break
            if pick:
                break
        chosen[joker] = pick or options[0]
    return {**action, "as": chosen}
