"""The bot levels people choose: ``easy`` is a real, weaker bot (the basic bot with slips) that replays
from its generator; ``medium`` is the basic bot; the first names ``basic`` and ``strong`` still mean
``medium`` and ``hard``; and the hard bot's playouts play every seat as the basic bot would."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import own_play
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import RuleSet, apply, bot_level, choose_bot_action, legal_actions, new_game
from games.engine.bots import name_jokers, play_weight
from games.engine.cards import RANK, SUIT, house_points, ranking_points
from games.engine.playouts import playout

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_first_level_names_mean_medium_and_hard():
    assert [bot_level(name) for name in ("basic", "strong", "easy", "medium", "hard", "random", "")] == \
        ["medium", "hard", "easy", "medium", "hard", "random", "medium"]
    with pytest.raises(ValueError):
        bot_level("grandmaster")


def test_the_basic_name_plays_exactly_as_medium():
    state = new_game(RuleSet.from_preset("tavern"), 3, seed=5)
    while state.status == "active":
        seat = state.turn
        action = choose_bot_action(state, seat, "medium", None)
        assert action == choose_bot_action(state, seat, "basic", None)
        apply(state, seat, action)


def _round(preset: str, levels: list[str], seed: int) -> list[tuple[int, dict[str, Any]]]:
    """A whole round of bots of ``levels``, every seat's generator seeded from ``seed``."""
    state = new_game(RuleSet.from_preset(preset), len(levels), seed=seed)
    rng = random.Random(seed)
    moves = []
    while state.status == "active":
        seat = state.turn
        for other in range(len(levels)):  # calls first, as the service's bots say them
            if other != seat and state.status == "active":
                action = choose_bot_action(state, other, levels[other], rng)
                if action is not None and action["type"] == "say":
                    apply(state, other, action)
                    moves.append((other, action))
        if state.status != "active":
            break
        action = choose_bot_action(state, seat, levels[seat], rng)
        assert action in legal_actions(state, seat) or action.get("as"), action
        apply(state, seat, action)
        moves.append((seat, action))
    return moves


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern", "house"]), seed=st.integers(0, 2**32 - 1))
def test_an_easy_bot_plays_legal_actions_and_replays_from_its_generator(preset, seed):
    assert _round(preset, ["easy", "easy", "medium"], seed) == _round(preset, ["easy", "easy", "medium"], seed)


def test_an_easy_bot_needs_a_generator():
    state = new_game(RuleSet.from_preset("classic"), 2, seed=1)
    with pytest.raises(ValueError):
        choose_bot_action(state, state.turn, "easy", None)


def test_an_easy_bot_chooses_otherwise_than_medium_where_it_has_a_choice():
    """Over many decisions with two or more plays, easy leaves medium's choice often, but not always."""
    same = differs = 0
    for seed in range(40):
        state = new_game(RuleSet.from_preset("tavern"), 2, seed=seed)
        rng = random.Random(seed)
        while state.status == "active":
            seat = state.turn
            plays = [action for action in legal_actions(state, seat) if action["type"] == "play"]
            easy = choose_bot_action(state, seat, "easy", rng)
            medium = choose_bot_action(state, seat, "medium", None)
            if len(plays) > 1:
                same += easy == medium
                differs += easy != medium
            apply(state, seat, medium)
    assert differs > 50 and same > 10


def test_an_easy_bot_still_plays_when_it_can_and_says_its_calls():
    """Its slips are among its plays: it never draws by choice with a card that fits."""
    for seed in range(30):
        state = new_game(RuleSet.from_preset("house"), 3, seed=seed)
        rng = random.Random(seed)
        while state.status == "active":
            seat = state.turn
            actions = legal_actions(state, seat)
            easy = choose_bot_action(state, seat, "easy", rng)
            if any(action["type"] == "say" for action in actions):
                assert easy["type"] == "say"
            elif any(action["type"] == "play" for action in actions):
                assert easy["type"] == "play"
            apply(state, seat, choose_bot_action(state, seat, "medium", None))


def playout_steps_as(state: Any, seed: int, own: int | None) -> None:
    """Step a fast playout one decision at a time (``own``: the seat playing by its own weights) and
    check, wherever a seat can lay a card, that it lays the card (and wishes the suit) its bot would:
    the own seat as ``own_play``, every other as the basic bot."""
    checked = 0
    while state.status == "active" and checked < 60:
        seat = state.turn
        plays = [action for action in legal_actions(state, seat) if action["type"] == "play"]
        stepped = state.copy()
        playout(stepped, random.Random(seed).random, basic=True, limit=1, own=own)
        if plays and not state.pending_draw:
            expected = own_play(state, seat) if seat == own else choose_bot_action(state, seat, "medium", None)
            apply(state, seat, expected)
            assert stepped.to_json() == state.to_json(), (expected, seat)
            checked += 1
        else:
            state = stepped


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern"]), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_a_basic_playout_plays_every_seat_as_the_basic_bot_would(preset, seed, players):
    """The hard bot's playouts model the others (and itself) as the basic bot: where a seat can play,
    the playout lays the card (and wishes the suit) the basic bot chooses."""
    playout_steps_as(new_game(RuleSet.from_preset(preset), players, seed=seed), seed, None)


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern"]), seed=st.integers(0, 2**32 - 1))
def test_the_hard_bots_own_seat_in_a_playout_lays_what_its_own_weights_say(preset, seed):
    """At a table of two the hard bot plays its own seat on by its own weights (``bots.OWN_*``), the
    other seat as the basic bot: where a seat can lay a card, the playout lays the card (and wishes the
    suit) each would."""
    playout_steps_as(new_game(RuleSet.from_preset(preset), 2, seed=seed), seed, seed % 2)


def _weighed_by_the_hand_left(state: Any, seat: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The basic bot's play as its docstring says it: each play (its jokers named) weighed by
    ``play_weight`` with the suits of the hand it leaves, less the target's hand for a QH swap; ties to
    the first listed."""
    hand = state.hands[seat]
    points = house_points if state.rules.scoring == "points" else ranking_points
    lacking = set(state.lacking.get((seat + state.direction) % len(state.hands), ()))
    fewest_other = min(len(other) for index, other in enumerate(state.hands) if index != seat)
    best: tuple[float, dict[str, Any]] | None = None
    for action in (action for action in actions if action["type"] == "play"):
        action = name_jokers(action, hand)
        rest = [card for card in hand if card not in action["cards"]]
        suits = Counter(SUIT[card] for card in rest if card[0] != "X" and RANK[card] != "J")
        names = [action.get("as", {}).get(card, card) for card in action["cards"]]
        score = play_weight(suits, len(rest), action["cards"], names, action.get("wish"), points, lacking,
                            fewest_other)
        score -= len(state.hands[action["target"]]) if "target" in action else 0
        if best is None or score > best[0]:
            best = (score, action)
    assert best is not None
    return best[1]


@settings(SETTINGS, max_examples=200)  # the plays whose order the hand left decides are rare: many rounds
@given(preset=st.sampled_from(["classic", "house"]), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_the_basic_bot_weighs_each_play_by_the_hand_it_leaves(preset, seed, players):
    """Wherever the medium bot may lay a card and no call is open, it lays the play that weighs most with
    the hand that play leaves (jokers named, QH targets, ace chains and jacks among them). The rounds go
    on by random legal actions half the time, so the bot meets hands it would not have kept."""
    state = new_game(RuleSet.from_preset(preset), players, seed=seed)
    rng = random.Random(seed)
    checked = 0
    while state.status == "active" and checked < 60:
        seat = state.turn
        actions = legal_actions(state, seat)
        if any(action["type"] == "play" for action in actions) and not any(action["type"] == "say"
                                                                            for action in actions):
            assert choose_bot_action(state, seat, "medium", None) == _weighed_by_the_hand_left(state, seat, actions)
            checked += 1
        apply(state, seat, choose_bot_action(state, seat, "random" if rng.random() < 0.5 else "medium", rng))
