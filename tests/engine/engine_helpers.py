"""Rigged deals and short verbs so each rule test reads like the rule it checks.

A rigged deal names the hands, the starter and the top of the stock; the rest of the deck goes to
the bottom of the stock in deck order, so the cards a test relies on are exactly where it says.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from games.engine import (
    ActionError,
    GameState,
    IllegalAction,
    RuleSet,
    apply,
    bots,
    legal_actions,
    new_game_from_setup,
    parse_action,
    player_view,
)
from games.engine.cards import RANK, SUIT, SUITS, build_deck, ranking_points


def make_rules(preset: str, **options: Any) -> RuleSet:
    return RuleSet.from_preset(preset, options)


def deck_of(rules: RuleSet) -> list[str]:
    options = rules.to_json()
    return build_deck(options["deck"], options.get("jokers", 0))


def rig(
    rules: RuleSet,
    hands: list[list[str]],
    starter: str,
    stock: list[str] | tuple[str, ...] = (),
    first: int = 0,
    seed: str = "rigged",
    fill: bool = True,
) -> GameState:
    """A game from an explicit deal; unnamed cards go to the bottom of the stock in deck order."""
    named = [card for hand in hands for card in hand] + [starter, *stock]
    duplicates = [card for card, n in Counter(named).items() if n > 1]
    assert not duplicates, f"rig names a card twice: {duplicates}"
    rest = [card for card in deck_of(rules) if card not in set(named)] if fill else []
    return new_game_from_setup(
        rules,
        players=len(hands),
        hands=[list(hand) for hand in hands],
        starter=starter,
        stock=[*stock, *rest],
        first=first,
        seed=seed,
    )


def act(state: GameState, seat: int | None, data: dict[str, Any], clock: bool = False) -> list[dict]:
    """Parse and apply one action as the API would; returns the events."""
    action = parse_action(data, clock=clock)
    _, events = apply(state, seat, action)
    return events


def play(state: GameState, seat: int, *cards: str, **extra: Any) -> list[dict]:
    data: dict[str, Any] = {"type": "play", "cards": list(cards)}
    if "as_" in extra:
        extra["as"] = extra.pop("as_")
    data.update({key: value for key, value in extra.items() if value is not None})
    return act(state, seat, data)


def draw(state: GameState, seat: int) -> list[dict]:
    return act(state, seat, {"type": "draw"})


def pass_turn(state: GameState, seat: int) -> list[dict]:
    return act(state, seat, {"type": "pass"})


def say(state: GameState, seat: int, word: str) -> list[dict]:
    return act(state, seat, {"type": "say", "word": word})


def clock(state: GameState, kind: str = "timeout") -> list[dict]:
    return act(state, None, {"type": kind}, clock=True)


def refused(state: GameState, seat: int | None, data: dict[str, Any], clock: bool = False) -> Exception:
    """The action is refused (by parsing or by the rules) and the state is left exactly as it was."""
    before = copy.deepcopy(state.to_json())
    with pytest.raises((IllegalAction, ActionError)) as caught:
        action = parse_action(data, clock=clock)
        apply(state, seat, action)
    assert state.to_json() == before, "a refused action changed the state"
    return caught.value


def refused_play(state: GameState, seat: int, *cards: str, **extra: Any) -> Exception:
    data: dict[str, Any] = {"type": "play", "cards": list(cards)}
    if "as_" in extra:
        extra["as"] = extra.pop("as_")
    data.update({key: value for key, value in extra.items() if value is not None})
    error = refused(state, seat, data)
    assert getattr(error, "code", None) != "not_your_turn", "expected a rule refusal, got not_your_turn"
    return error


# ---- reading the state through the public view (what a player would see) ----


def view(state: GameState, seat: int | None = 0) -> dict[str, Any]:
    return player_view(state, seat)


def hand(state: GameState, seat: int) -> list[str]:
    return list(state.hands[seat])


def card_counts(state: GameState) -> list[int]:
    return [len(cards) for cards in state.hands]


def top(state: GameState) -> str:
    return state.top


def wish(state: GameState) -> str | None:
    return state.wish


def pending_draw(state: GameState) -> int:
    return state.pending_draw


def stock_top_first(state: GameState) -> list[str]:
    """The stock as a setup lists it (top first); the state keeps it bottom first."""
    return list(reversed(state.stock))


def all_cards(state: GameState) -> list[str]:
    """Every physical card the state holds: hands, stock and discard pile."""
    return [card for cards in state.hands for card in cards] + list(state.stock) + list(state.discard)


def types(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [event for event in events if event["type"] == kind]


def drawn_cards(events: list[dict], seat: int) -> list[str]:
    cards: list[str] = []
    for event in of_type(events, "drew"):
        if event.get("seat") == seat:
            cards.extend(event.get("cards") or [])
    return cards


def is_legal(state: GameState, seat: int, data: dict[str, Any]) -> bool:
    return data in legal_actions(state, seat)


def own_play(state: Any, seat: int) -> dict[str, Any]:
    """The hard bot's own play (a model of ``basic_weigh(own=True)`` from its weights): each single card
    it may lay, a wild jack with each wish, weighed by ``bots.OWN_*`` and the basic bot's other weights;
    ties to the first listed."""
    hand = state.hands[seat]
    lacking = state.lacking.get((seat + state.direction) % len(state.hands), ())
    near_end = min(len(other) for index, other in enumerate(state.hands) if index != seat) <= bots.NEAR_END
    best: tuple[float, dict[str, Any]] | None = None
    for action in legal_actions(state, seat):
        if action["type"] != "play":
            continue
        card = action["cards"][0]
        rest = [other for other in hand if other != card]
        plain = [other for other in rest if RANK[other] != "J"]
        held = {suit: sum(1 for other in plain if SUIT[other] == suit) for suit in SUITS}
        wish = action.get("wish")
        follow = wish or SUIT[card]
        score = bots.PER_CARD + (bots.GOING_OUT if not rest else 0) + bots.OWN_POINTS_SHED * ranking_points(card)
        score -= bots.JACK_KEPT if rest and RANK[card] == "J" else 0
        score += bots.ATTACK_NEAR_END if near_end and RANK[card] in ("7", "8") else 0
        score += bots.OWN_FOLLOW_HELD * held[follow] + (bots.NEXT_LACKS if follow in lacking else 0)
        if wish is not None:
            score += bots.WISH_HELD * held[wish] + (bots.WISH_NEXT_LACKS if wish in lacking else 0)
        else:
            score += bots.OWN_SUITS_LEFT * sum(1 for suit in SUITS if held[suit])
            if RANK[card] != "J":
                score += bots.OWN_RANK_HELD * sum(1 for other in plain if RANK[other] == RANK[card])
        if best is None or score > best[0]:
            best = (score, action)
    assert best is not None
    return best[1]

