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
from games.engine.legality import fits
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
def option_sets(draw: st.DrawFn, house_only: bool = False) -> tuple[str, dict[str, Any]]:
    """Any preset with random options; three in four without the house-only rules (compact moves), or
    with ``house_only`` each of them drawn."""
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
    compact = not house_only and draw(st.integers(0, 3)) > 0
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


#: option sets without the playouts' fast path: every house-only rule drawn, and the house preset
HOUSE_OPTION_SETS = st.one_of(
    option_sets(house_only=True), st.just(("house", {"players": [2, 5]})),
    st.just(("house", {"players": [2, 5], "deck": "skat32", "jokers": 2, "hand_size": 6})))


def house_round_under_way(choice: tuple[str, dict[str, Any]], seed: int, players: int, opening: int) -> Any:
    """A round of ``choice`` without the fast path, ``opening`` moves in (calls owed, a race, a drawn
    card, a penalty: each move the first or the last listed action); None when the rules are compact
    or the round ended."""
    rules = RuleSet.from_preset(*choice)
    state = dealt(rules, players, seed)
    if compact_rules(rules) is not None:
        return None
    chooser = random.Random(seed)
    for _ in range(opening):
        if state.status != "active":
            return None
        action = legal_actions(state, state.turn)[0 if chooser.random() < 0.2 else -1]
        if action.get("as"):  # a joker: named as its first name
            action = {**action, "as": {joker: names[0] if isinstance(names, list) else names
                                       for joker, names in action["as"].items()}}
        apply(state, state.turn, action)
    return state


def listed_sensible_playout(state: Any, random_number: Any) -> int:
    """The sensible playout of rules without the fast path, every turn by the engine's own listing and
    ``apply`` (its checks included): the model the playouts' shortcuts must match."""
    decisions = 0
    while state.status == "active":
        if state.owed or state.hermann is not None:
            for other in range(len(state.hands)):
                if other != state.turn and state.status == "active":
                    for entry in legal_actions(state, other):
                        apply(state, other, entry)
                        decisions += 1
                        break
            if state.status != "active":
                break
        seat = state.turn
        rules, hand = state.rules, state.hands[seat]
        candidates = (state.drawn,) if state.phase == "drawn" else hand
        if state.pending_draw:
            fitting = [card for card in candidates if card[0] == "7"]
        else:
            fitting = [card for card in candidates if card[0] != "X" and not (rules.ace_needs_cover and card[0] == "A")
                       and fits(rules, state.top, state.wish, state.first_wish, card)]
        if fitting:
            plain = [card for card in fitting if not (rules.jack_wild and card[0] == "J")] or fitting
            card = plain[int(random_number() * len(plain))]
            action: dict[str, Any] = {"type": "play", "cards": [card], "say": ["mau", "maumau", "pik", "hermann"]}
            if rules.jack_wild and card[0] == "J":
                counts = {"C": 0, "S": 0, "H": 0, "D": 0}
                for other in hand:
                    if other != card and other[0] not in "JX":
                        counts[other[-1]] += 1
                action["wish"] = max(counts, key=counts.__getitem__) if any(counts.values()) else card[-1]
            if rules.queen_of_hearts_swap and card == "QH":
                action["target"] = (seat + 1 + int(random_number() * (len(state.hands) - 1))) % len(state.hands)
            apply(state, seat, action)  # check_play accepts it: else this raises and the test fails
            decisions += 1
            continue
        actions = legal_actions(state, seat)
        if len(actions) > 1 and actions[-1]["type"] in ("draw", "pass"):
            actions.pop()
        actions = [action for action in actions if not (action["type"] == "play" and any(
            card[0] == "X" or card[0] == "J" for card in action["cards"]))] or actions
        action = actions[int(random_number() * len(actions))]
        names = action.get("as")
        if names:
            action = {**action, "as": {joker: name[int(random_number() * len(name))] if isinstance(name, list)
                                       else name for joker, name in names.items()}}
        apply(state, seat, action)
        decisions += 1
    return decisions


@settings(SETTINGS, max_examples=300)
@given(choice=HOUSE_OPTION_SETS, seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5),
       opening=st.integers(0, 12))
def test_a_sensible_playout_of_the_house_rules_ends_where_the_engines_listing_ends_it(choice, seed, players,
                                                                                      opening):
    """Without the fast path, a sensible playout lays a plain card, draws or passes without listing the
    actions or checking the play again; it must end the round exactly where listing every turn's
    actions and applying the choice through ``apply`` ends it, from the same random numbers."""
    state = house_round_under_way(choice, seed, players, opening)
    if state is None:
        return
    listed = state.copy()
    decisions = playout(state, random.Random(seed).random, sensible=True)
    assert (decisions, state.to_json()) == (listed_sensible_playout(listed, random.Random(seed).random),
                                            listed.to_json())


def listed_basic_playout(state: Any) -> int:
    """The basic playout of rules without the fast path, every decision the basic bot's through the
    engine's listing and ``apply``: the model :func:`~games.engine.playouts.basic_playout`'s shortcut
    must match."""
    decisions = 0
    while state.status == "active":
        if state.owed or state.hermann is not None:
            for other in range(len(state.hands)):
                if other != state.turn and state.status == "active":
                    action = choose_bot_action(state, other, "medium", None)
                    if action is not None and action["type"] == "say":
                        apply(state, other, action)
                        decisions += 1
            if state.status != "active":
                break
        apply(state, state.turn, choose_bot_action(state, state.turn, "medium", None))
        decisions += 1
    return decisions


@settings(SETTINGS, max_examples=300)
@given(choice=HOUSE_OPTION_SETS, seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5),
       opening=st.integers(0, 12))
def test_a_basic_playout_of_the_house_rules_ends_where_the_bot_through_the_engine_ends_it(choice, seed, players,
                                                                                          opening):
    """Without the fast path, a basic playout weighs a seat's plain cards itself and lays the best
    without listing the actions or checking the play again; it must end the round exactly where the
    basic bot, choosing from the engine's listing and playing through ``apply``, ends it."""
    state = house_round_under_way(choice, seed, players, opening)
    if state is None:
        return
    listed = state.copy()
    decisions = playout(state, random.Random(seed).random, basic=True, basic_engine=True)
    assert (decisions, state.to_json()) == (listed_basic_playout(listed), listed.to_json())


def house_turn(hand: list[str], top: str, stock: list[str]) -> Any:
    """A two-player house round whose seat on turn holds ``hand`` under ``top``, with ``stock`` left."""
    state = new_game(RuleSet.from_preset("house"), 2, seed=5)
    seat = state.turn
    others = [card for card in state.hands[seat] + state.stock + state.hands[1 - seat]
              if card not in hand and card != top]
    state.hands[seat], state.hands[1 - seat] = list(hand), others[:5]
    state.top, state.discard, state.stock = top, [top], list(stock)
    state.wish = state.first_wish = None
    return state


def test_a_sensible_playout_lays_an_ace_chain_that_nothing_plain_could_start():
    """No plain card fits the 9 of hearts, but the ace of hearts does, covered by the ace of spades and
    that by the 5 of spades: the seat lays the chain, it does not draw."""
    state = house_turn(["AH", "AS", "5S"], "9H", ["KC", "QC"])
    seat = state.turn
    playout(state, random.Random(1).random, sensible=True, limit=1)
    assert state.hands[seat] == [] or state.discard[-3:] == ["AH", "AS", "5S"]


def test_a_sensible_pass_with_nothing_to_draw_and_nothing_to_lay_counts_a_stuck_turn():
    state = house_turn(["2C", "3C"], "9H", [])
    seat, idle = state.turn, state.idle
    playout(state, random.Random(1).random, sensible=True, limit=1)
    assert state.turn != seat and state.hands[seat] == ["2C", "3C"] and state.idle == idle + 1
