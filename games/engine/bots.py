"""Bots, by the levels people choose: ``easy``, ``medium`` (the basic bot: plays like a sensible
person) and ``hard`` (searches); and ``random`` (a uniformly chosen legal action, never rated).

``hard`` searches (:mod:`games.engine.search`): it needs the events its seat was shown, not only the
state, so the service runs it apart; here ``hard`` plays as ``medium`` (which is also how the turn
clock's ``autoplay`` finishes a turn). ``easy`` plays like a beginner: it says every call, plays
when it can and goes out when it can, but most of its plays (:data:`EASY_SLIPS`) are a fitting card
at random, a jack among them, with a wish at random; the others are the basic bot's. Its slips come
from the generator it is given (the service seeds it from the round), so it replays exactly. The names the service first
had, ``basic`` and ``strong``, stay accepted for ``medium`` and ``hard`` (:func:`bot_level`).

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
from collections.abc import Mapping
from typing import Any

from .cards import RANK, SUIT, SUITS, house_points, ranking_points
from .moves import legal_actions
from .state import GameState

#: the bot levels a table may seat, weakest first
LEVELS = ("random", "easy", "medium", "hard")
#: the first names of two levels, still accepted
LEVEL_ALIASES = {"basic": "medium", "strong": "hard"}
#: every name a client may send for a level (the levels, then the aliases)
BOT_LEVELS = LEVELS + tuple(LEVEL_ALIASES)
#: the share of an easy bot's plays made at random among its fitting cards (at 0.5, in two-player
#: tavern rounds rated against each other, easy and medium settled within each other's noise)
EASY_SLIPS = 0.8

# The basic bot's weights for a play (search weighs hands with them too: ``playouts.basic_weigh``).
PER_CARD = 10.0  # each card laid
GOING_OUT = 1000  # the play empties the hand
JACK_KEPT = 40  # less, per jack or joker laid with cards left: keep them for need
POINTS_SHED = 0.5  # per point laid: shed high-scoring cards first
NEAR_END = 3  # another hand this small ...
ATTACK_NEAR_END = 6  # ... makes a 7 or an 8 worth this much more
FOLLOW_HELD = 3  # per card left of the suit that follows
NEXT_LACKS = 4  # the suit that follows is one the next seat lacks
WISH_HELD = 0.5  # a wish: per card left of the wished suit, again (the suit held most)
WISH_NEXT_LACKS = 0.3  # a wish of a suit the next seat lacks, again (breaks ties)

# The hard bot's own plays at a table of two (``playouts.basic_weigh(own=True)``): how its search plays its seat on
# in the playouts, and the choice that stands where the search shows none better. Under the rules of the
# playouts' fast path (classic, tavern), the basic bot's weighing changed where self-play against the basic
# bot found it worth more: half the points shed, no weight for the suit that follows, and two new terms
# for a plain card: the cards left of its rank (a pair of a rank can change the suit later: keep it) and
# the suits left in hand (a suit laid out is one fewer to be caught without). Without search it wins 0.532
# (classic) and 0.520 (tavern) of two-player rounds against the basic bot, a lead of +0.031 and +0.019 over
# the basic bot in the seat (40,000 deals each, bench.bots --own-play-games 40000 --seed-start 500000); with
# four players (tavern) it wins less than the basic bot (-0.012), so there the search plays as the basic bot.
OWN_POINTS_SHED = 0.25
OWN_FOLLOW_HELD = 0.0
OWN_RANK_HELD = -4.0  # per card left of the rank of the plain card laid
OWN_SUITS_LEFT = -3.0  # per suit left in hand after a plain card is laid


def bot_level(name: str) -> str:
    """The level a stored or sent name stands for (``basic`` is ``medium``, ``strong`` is ``hard``;
    no name at all is ``medium``, as the service's first bots were)."""
    name = LEVEL_ALIASES.get(name, name) or "medium"
    if name not in LEVELS:
        raise ValueError(f"unknown bot level {name!r}")
    return name


def choose_bot_action(state: GameState, seat: int, level: str,
                      rng: random.Random | None) -> dict[str, Any] | None:
    """The bot's action for ``seat``, or None when it may not act."""
    actions = legal_actions(state, seat)
    if not actions:
        return None
    level = bot_level(level)
    if level in ("random", "easy") and rng is None:
        raise ValueError(f"the {level} bot needs an rng")
    if level == "random":
        return _pick_names(rng.choice(actions), rng)  # type: ignore[union-attr]
    if level == "easy":
        return _easy(state, seat, actions, rng)  # type: ignore[arg-type]
    return _basic(state, seat, actions)


def _easy(state: GameState, seat: int, actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """The basic bot's action, but a fitting card at random for :data:`EASY_SLIPS` of its plays (never
    when a play would go out: a beginner sees that)."""
    plays = [action for action in actions if action["type"] == "play"]
    if plays and not any(action["type"] == "say" for action in actions) and rng.random() < EASY_SLIPS:
        held = len(state.hands[seat])
        if all(len(action["cards"]) < held for action in plays):
            return _pick_names(rng.choice(plays), rng)
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
    held = suits_held(hand)  # once: a house hand lists dozens of plays (joker names, ace chains, targets)
    naming = _joker_suits(hand)
    best: tuple[float, int] | None = None
    chosen = plays[0]
    for index, action in enumerate(plays):
        action = _named(action, naming)
        cards = action["cards"]
        suits = dict(held)
        for card in cards:
            if card[0] != "X" and RANK[card] != "J":
                suits[SUIT[card]] -= 1
        score = play_weight(suits, len(hand) - len(cards), cards,
                            [action.get("as", {}).get(card, card) for card in cards],
                            action.get("wish"), points, lacking, fewest_other)
        if "target" in action:
            score -= len(state.hands[action["target"]])
        key = (score, -index)
        if best is None or key > best:
            best = key
            chosen = action
    return chosen


def suits_held(hand: list[str]) -> dict[str, int]:
    """The cards of each suit in ``hand``, jacks and jokers aside: what the basic bot follows and wishes."""
    held = {suit: 0 for suit in SUITS}
    for card in hand:
        if card[0] != "X" and RANK[card] != "J":
            held[SUIT[card]] += 1
    return held


def play_weight(suits: Mapping[str, int], rest: int, cards: list[str], names: list[str], wish: str | None,
                points: Any, lacking: Any, fewest_other: int) -> float:
    """The basic bot's weight for laying ``cards`` (as ``names``) with ``wish``, ``rest`` cards and
    ``suits`` (the suits of those cards, jacks and jokers aside) left in hand, before a QH swap's
    target is weighed: the seeds' advice in numbers. The playouts of the house rules weigh a plain
    card with it too (``playouts``), so both choose alike."""
    score = PER_CARD * len(cards)
    if not rest:
        score += GOING_OUT
    jacks = sum(1 for card in cards if card[0] == "X" or RANK[card] == "J")
    if rest and jacks:
        score -= JACK_KEPT * jacks
    score += sum(points(card) for card in cards) * POINTS_SHED
    top = names[-1]
    if RANK[top] in ("7", "8") and fewest_other <= NEAR_END:
        score += ATTACK_NEAR_END
    follow = wish if wish is not None else SUIT[top]
    score += FOLLOW_HELD * suits.get(follow, 0)
    if follow in lacking:
        score += NEXT_LACKS
    if wish is not None:
        score += WISH_HELD * suits.get(wish, 0) + (WISH_NEXT_LACKS if wish in lacking else 0)
    return score


def name_jokers(action: dict[str, Any], hand: list[str]) -> dict[str, Any]:
    """Name each joker from its list: a 7 of the suit held most, else a card of that suit."""
    return _named(action, _joker_suits(hand))


def _joker_suits(hand: list[str]) -> list[str]:
    """The suits a joker's name is looked for in, the suit held most first (jokers aside)."""
    suits = Counter(SUIT[card] for card in hand if card[0] != "X")
    return sorted(SUITS, key=lambda suit: -suits.get(suit, 0))


def _named(action: dict[str, Any], order: list[str]) -> dict[str, Any]:
    names = action.get("as")
    if not names or all(isinstance(name, str) for name in names.values()):
        return action
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
