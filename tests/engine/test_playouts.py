"""The playout fast path lists exactly the legal actions and applies a move exactly as ``apply`` does.

Random games of random option sets (most of them compact, the others falling back to the action
dicts), every seat's moves checked against ``legal_actions`` at every step, and the state after each
fast move compared with the state after the same action through ``apply``. The fused ``playout``
loop must end every round exactly where a loop over ``playout_moves`` and ``playout_apply`` with the
same random numbers ends it.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from games.engine import RuleSet, SetupError, apply, choose_bot_action, legal_actions, new_game
from games.engine.playouts import (
    DRAW,
    PASS,
    action_of,
    basic_weigh,
    compact_rules,
    playout,
    playout_apply,
    playout_moves,
)

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HOUSE_ONLY = ("announcements", "pik_call", "king_of_diamonds_hermann", "queen_of_hearts_swap", "ace_needs_cover",
              "final_jacks", "joker")


@st.composite
def option_sets(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """Any preset with random options; three in four without the house-only rules (compact moves)."""
    preset = draw(st.sampled_from(["classic", "tavern", "house"]))
    nine = draw(st.sampled_from(["reverses", "skips_second", "none"]))
    options: dict[str, Any] = {
        "deck": draw(st.sampled_from(["skat32", "french52"])),
        "players": [2, 5],
        "hand_size": draw(st.integers(1, 6)),
        "must_play": draw(st.booleans()),
        "starter_effects": draw(st.booleans()),
        "starter_excludes": draw(st.sampled_from([[], ["7", "8", "J"], ["9", "10"]])),
        "seven_draws": draw(st.sampled_from([0, 2, 3])),
        "seven_then_play": draw(st.booleans()),
        "eight_skips": draw(st.booleans()),
        "nine_reverses": nine == "reverses",
        "nine_skips_second": nine == "skips_second",
        "ten_reverses": draw(st.booleans()),
        "ace_skips": draw(st.booleans()),
        "jack_wild": draw(st.booleans()),
        "jack_on_jack": draw(st.sampled_from([True, False, "first_wished_suit"])),
        "jack_can_win": draw(st.booleans()),
        "penalize_illegal": draw(st.booleans()),
        "max_turns": draw(st.integers(5, 400)),
    }
    compact = draw(st.integers(0, 3)) > 0
    for option in HOUSE_ONLY:
        options[option] = False if compact else draw(st.booleans())
    options["jokers"] = draw(st.integers(1, 2)) if options["joker"] else 0
    return preset, options


def test_compact_moves_are_small_values_for_the_three_presets():
    for preset, compact in (("classic", True), ("tavern", True), ("house", False)):
        state = new_game(RuleSet.from_preset(preset), 3, seed=7)
        moves = playout_moves(state, state.turn)
        assert all(isinstance(move, dict) for move in moves) is not compact
        if compact:
            assert all(isinstance(move, (str, tuple)) or move in (DRAW, PASS) for move in moves)


@SETTINGS
@given(choice=option_sets(), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_playout_moves_are_the_legal_actions_and_apply_the_same_way(choice, seed, players):
    rules = RuleSet.from_preset(*choice)
    rng = random.Random(seed)
    state = dealt(rules, players, seed)
    fast = state.copy()
    steps = 0
    while state.status == "active":
        for seat in range(players):
            moves = playout_moves(fast, seat)
            assert [action_of(move) for move in moves] == legal_actions(state, seat)
        seat = state.turn
        others = [(other, entry) for other in range(players) if other != seat for entry in legal_actions(state, other)]
        if others and rng.random() < 0.5:  # a call of another seat (house rules)
            seat, _ = rng.choice(others)
        moves = playout_moves(fast, seat)
        index = rng.randrange(len(moves))
        action = legal_actions(state, seat)[index]
        names = action.get("as")
        if names:  # a joker's names are listed for the client to choose one
            action = {**action, "as": {joker: name[0] if isinstance(name, list) else name
                                       for joker, name in names.items()}}
            moves[index] = action
        apply(state, seat, action)
        playout_apply(fast, seat, moves[index])
        assert fast.to_json() == state.to_json()
        steps += 1
        assert steps < 4 * rules.max_turns + 200, "the round does not end"


def dealt(rules: RuleSet, players: int, seed: int) -> Any:
    """A round of the drawn options; an option set whose deck has no card that may be the starter
    deals none (the engine refuses it with SetupError): such an example is rejected, not a failure."""
    try:
        return new_game(rules, players, seed=seed, first=seed % players)
    except SetupError:
        reject()


@SETTINGS
@given(choice=option_sets(), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5),
       plays_first=st.booleans())
def test_a_whole_playout_ends_where_move_by_move_play_ends(choice, seed, players, plays_first):
    rules = RuleSet.from_preset(*choice)
    state = dealt(rules, players, seed)
    if not isinstance(playout_moves(state, state.turn)[0], (str, tuple, int)):
        return  # house-only rules: the loop is the engine's own apply with calls said (checked above)
    stepped = state.copy()
    decisions = playout(state, random.Random(seed).random, plays_first=plays_first)
    draw = random.Random(seed).random
    steps = 0
    while stepped.status == "active":
        moves = playout_moves(stepped, stepped.turn)
        if plays_first and len(moves) > 1 and moves[-1] in (DRAW, PASS):
            moves.pop()
        playout_apply(stepped, stepped.turn, moves[int(draw() * len(moves))])
        steps += 1
    assert (decisions, state.to_json()) == (steps, stepped.to_json())



@SETTINGS
@given(choice=option_sets(), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_the_basic_weighing_chooses_the_basic_bots_play(choice, seed, players):
    """``basic_weigh`` (which search tests worlds with) plays the card and wish the basic bot plays."""
    rules = RuleSet.from_preset(*choice)
    state = dealt(rules, players, seed)
    compact = compact_rules(rules)
    if compact is None:
        return  # house-only rules: search reads plays only under compact rules
    while state.status == "active":
        seat = state.turn
        action = choose_bot_action(state, seat, "basic", None)
        plays = [move if isinstance(move, str) else move[0] for move in playout_moves(state, seat)
                 if isinstance(move, (str, tuple))]
        plays = list(dict.fromkeys(plays))  # a jack is listed once per wish
        if plays:
            lacking = state.lacking.get((seat + state.direction) % players, ())
            near_end = min(len(hand) for other, hand in enumerate(state.hands) if other != seat) <= 3
            (card, wish), best, seen = basic_weigh(state.hands[seat], plays, lacking, near_end, compact,
                                                   (action["cards"][0], action.get("wish")))
            assert (action["type"], [card], wish) == ("play", action["cards"], action.get("wish"))
            assert seen == best
        apply(state, seat, action)
