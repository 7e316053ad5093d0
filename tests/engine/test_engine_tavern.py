"""docs/rules.md, the `tavern` preset: the online tavern's rules on rigged 52-card deals."""

from __future__ import annotations

import pytest
from engine_helpers import (
    act,
    all_cards,
    card_counts,
    deck_of,
    draw,
    hand,
    legal_actions,
    make_rules,
    of_type,
    pending_draw,
    play,
    refused,
    refused_play,
    rig,
    stock_top_first,
    top,
    wish,
)

from games.engine import SetupError, new_game
from games.engine.cards import RANK, build_deck, secret_shuffle


def tavern(**options):
    return make_rules("tavern", **options)


@pytest.mark.parametrize("seed", range(40))
def test_tavern_starter_excludes_7_8_J(seed):
    state = new_game(tavern(), players=4, seed=seed)
    assert RANK[top(state)] not in {"7", "8", "J"}
    assert state.discard == [top(state)]
    assert sorted(all_cards(state)) == sorted(deck_of(state.rules))


def test_tavern_excluded_starter_goes_under_the_stock_and_next_is_turned():
    """Decision: an excluded starter goes to the bottom of the stock, the next card is turned.

    The deal is recomputed from the seed's shuffle to find seeds whose first turned card is a 7,
    an 8 or a jack; those cards must lie at the bottom of the stock, in the order turned.
    """
    rules = tavern()
    checked = 0
    for seed in range(200):
        deck = build_deck("french52")
        secret_shuffle(deck, str(seed), 0)
        rest = deck[2 * rules.hand_size :]  # top first
        turned = []
        while RANK[rest[0]] in {"7", "8", "J"}:
            turned.append(rest.pop(0))
        if not turned:
            continue
        state = new_game(rules, players=2, seed=seed)
        assert top(state) == rest[0]
        assert stock_top_first(state) == rest[1:] + turned
        checked += 1
    assert checked >= 10


def test_tavern_excluded_starter_in_a_setup_is_refused():
    with pytest.raises(SetupError):
        rig(tavern(), [["KH", "2C", "3C"], ["2D", "3D", "4D"]], "7H")


def test_tavern_voluntary_draw_at_most_one():
    state = rig(tavern(), [["KH", "2C", "3C"], ["2D", "3D", "4D"]], "9H", stock=["10H"])
    assert {"type": "draw"} in legal_actions(state, 0)  # KH would fit: drawing is still allowed
    draw(state, 0)
    refused(state, 0, {"type": "draw"})  # never more than one card voluntarily
    refused_play(state, 0, "KH")  # after drawing, only the drawn card may be played
    play(state, 0, "10H")
    assert state.turn == 1 and hand(state, 0) == ["KH", "2C", "3C"]


def test_tavern_seven_only_a_seven_helps_not_a_jack():
    state = rig(tavern(), [["7H", "2C"], ["JS", "7C", "3D"]], "9H")
    play(state, 0, "7H")
    refused_play(state, 1, "JS", wish="S")
    play(state, 1, "7C")
    assert pending_draw(state) == 4


def test_tavern_seven_penalty_ends_turn_then_served_normally():
    state = rig(tavern(), [["7H", "KH", "2C"], ["3D", "4D"]], "9H")
    play(state, 0, "7H")
    draw(state, 1)
    assert state.turn == 0 and len(hand(state, 1)) == 4
    play(state, 0, "KH")
    assert pending_draw(state) == 0


def test_tavern_jack_on_jack_and_wish_own_suit():
    state = rig(tavern(), [["JS", "2C"], ["JH", "3D"]], "9H")
    play(state, 0, "JS", wish="S")  # a jack may wish its own suit
    assert wish(state) == "S"
    play(state, 1, "JH", wish="H")  # and a jack fits on a jack
    assert wish(state) == "H" and top(state) == "JH"


def test_tavern_eight_skips_two_players_play_again():
    state = rig(tavern(), [["8H", "2H", "2C"], ["3D", "4D"]], "9H")
    play(state, 0, "8H")
    assert state.turn == 0


@pytest.mark.parametrize("card", ["9C", "10H", "QH", "KH", "AH", "2H", "6H"])
def test_tavern_nine_and_others_are_ordinary(card):
    state = rig(tavern(), [[card, "2C"], ["3D", "4D"], ["5D", "6D"]], "9H")
    play(state, 0, card)
    assert state.turn == 1 and state.direction == 1


@pytest.mark.parametrize("last,extra", [("7H", {}), ("8H", {}), ("JC", {"wish": "S"})])
def test_tavern_any_card_may_be_last(last, extra):
    state = rig(tavern(), [[last], ["3D", "4D"]], "9H")
    events = play(state, 0, last, **extra)
    assert state.status == "finished" and state.result["winner"] == 0
    assert not of_type(events, "skipped") and pending_draw(state) == 0


def test_tavern_wins_scoring():
    state = rig(tavern(), [["KH"], ["3D", "4D"], ["AS"]], "9H")
    play(state, 0, "KH")
    result = state.result
    assert state.rules.scoring == "wins"
    assert result["winner"] == 0
    won = {row["seat"]: row["won"] for row in result["players"]}
    assert won == {0: True, 1: False, 2: False}
    assert result["players"][0]["seat"] == 0


def test_tavern_mau_announced_automatically():
    state = rig(tavern(), [["KH", "2C"], ["KS", "4D"]], "9H")
    events = play(state, 0, "KH")
    assert [e["seat"] for e in of_type(events, "mau")] == [0]
    play(state, 1, "KS")
    assert card_counts(state) == [1, 1]


# ---- the worked example of seed 001 (the `tavern` rule text's "Beispiel") ----

YOU = ["KH", "7S", "7C", "8C", "JS", "4D", "2H"]
#: Kalle: KS, 7D, 4S, QH and three cards that are neither 7s nor diamonds nor jacks
KALLE = ["KS", "7D", "4S", "QH", "5C", "6C", "10S"]
#: the six penalty cards: no 7, no diamond, no jack (Kalle "has neither diamonds nor jacks" later)
SIX = ["2C", "3C", "5S", "6S", "9C", "10C"]
#: the card Kalle draws under the wish for diamonds: it does not fit (no diamond, no jack)
MISFIT = ["3S"]


def worked_example_state():
    rules = tavern(hand_size=7, players=[2, 7])  # 8 hands of 7 would need 57 cards
    return rig(rules, [YOU, KALLE], "9H", stock=[*SIX, *MISFIT, "4H"], first=0)


def played(seat, card):
    return {"type": "played", "seat": seat, "cards": [card]}


def turn(seat):
    return {"type": "turn", "seat": seat}


def grew(seat, pending):
    return {"type": "penalty_grew", "seat": seat, "pending_draw": pending}


def drew(seat, cards, reason=None):
    return {"type": "drew", "seat": seat, "count": len(cards), "cards": list(cards), "reason": reason}


def test_worked_example_seed_001():
    """Every event of the seed's story, in order, from the explicit setup to the win of seat 0."""
    state = worked_example_state()
    assert state.turn == 0 and top(state) == "9H"
    story = [
        # KH (same suit), Kalle KS (same rank)
        (0, {"type": "play", "cards": ["KH"]}, [played(0, "KH"), turn(1)]),
        (1, {"type": "play", "cards": ["KS"]}, [played(1, "KS"), turn(0)]),
        # 7S; Kalle counters with 7D; 7C passes the penalty on: Kalle has no 7 and draws six
        (0, {"type": "play", "cards": ["7S"]}, [played(0, "7S"), grew(0, 2), turn(1)]),
        (1, {"type": "play", "cards": ["7D"]}, [played(1, "7D"), grew(1, 4), turn(0)]),
        (0, {"type": "play", "cards": ["7C"]}, [played(0, "7C"), grew(0, 6), turn(1)]),
        (1, {"type": "draw"}, [drew(1, SIX, "seven"), turn(0)]),
        # 8C on 7C: Kalle sits out, with two players seat 0 plays again at once
        (0, {"type": "play", "cards": ["8C"]}, [played(0, "8C"), {"type": "skipped", "seat": 1}, turn(0)]),
        # JS wishing diamonds; Kalle has neither, draws a card that does not fit, and passes
        (0, {"type": "play", "cards": ["JS"], "wish": "D"},
         [played(0, "JS"), {"type": "wish", "seat": 0, "suit": "D"}, turn(1)]),
        (1, {"type": "draw"}, [drew(1, MISFIT), {"type": "passed", "seat": 1}, turn(0)]),
        # 4D: "Mau!" announced by the game; Kalle 4S
        (0, {"type": "play", "cards": ["4D"]}, [played(0, "4D"), {"type": "mau", "seat": 0}, turn(1)]),
        (1, {"type": "play", "cards": ["4S"]}, [played(1, "4S"), turn(0)]),
        # 2H does not fit: seat 0 draws 4H, which fits by rank, and plays it at once
        (0, {"type": "draw"}, [drew(0, ["4H"])]),
        (0, {"type": "play", "cards": ["4H"]}, [played(0, "4H"), {"type": "mau", "seat": 0}, turn(1)]),
        # Kalle QH, seat 0 2H: Mau-Mau
        (1, {"type": "play", "cards": ["QH"]}, [played(1, "QH"), turn(0)]),
        (0, {"type": "play", "cards": ["2H"]}, [played(0, "2H"), {"type": "round_over", "result": None}]),
    ]
    for step, (seat, action, expected) in enumerate(story):
        assert state.turn == seat, f"step {step}: expected seat {seat} to move"
        assert action in legal_actions(state, seat), f"step {step}: {action} not offered"
        events = act(state, seat, action)
        if expected[-1]["type"] == "round_over":
            expected[-1]["result"] = state.result
        assert events == expected, f"step {step}: {action}"
    assert state.status == "finished"
    result = state.result
    assert result["winner"] == 0 and result["reason"] == "mau_mau"
    assert [(row["seat"], row["won"], row["cards_left"]) for row in result["players"]] == [
        (0, True, 0),
        (1, False, 10),
    ]
    assert sorted(hand(state, 1)) == sorted(["5C", "6C", "10S", *SIX, *MISFIT])
