"""docs/rules.md, "A turn" and the `classic` preset: one test per rule and option, on rigged deals.

Deals use the 32-card skat deck (7..A); every test names the cards it relies on.
"""

from __future__ import annotations

import pytest
from engine_helpers import (
    card_counts,
    draw,
    hand,
    legal_actions,
    make_rules,
    of_type,
    pass_turn,
    pending_draw,
    play,
    refused,
    refused_play,
    rig,
    top,
    types,
    wish,
)

from games.engine import IllegalAction


def classic(**options):
    return make_rules("classic", **options)


def test_play_matches_suit_or_rank():
    state = rig(classic(), [["10C", "9S", "QS", "8S"], ["KC", "8D", "9D", "QD"]], "10H")
    refused_play(state, 0, "9S")  # neither heart nor ten
    play(state, 0, "10C")  # same rank
    assert top(state) == "10C" and state.turn == 1
    refused_play(state, 1, "8D")
    play(state, 1, "KC")  # same suit
    assert top(state) == "KC" and state.turn == 0


def test_play_only_own_cards():
    state = rig(classic(), [["9C", "10S"], ["9D", "8D"]], "9H")
    refused_play(state, 0, "9D")


def test_must_play_refuses_draw_with_playable_card():
    state = rig(classic(), [["KH", "8C", "10C"], ["8D", "10D", "QD"]], "9H")
    refused(state, 0, {"type": "draw"})
    assert {"type": "draw"} not in legal_actions(state, 0)
    play(state, 0, "KH")
    # seat 1 holds no heart, no king, no jack: drawing is the only move
    assert {"type": "draw"} in legal_actions(state, 1)
    events = draw(state, 1)
    assert card_counts(state) == [2, 4]
    assert of_type(events, "drew")[0]["count"] == 1


def test_drawn_card_that_fits_may_be_played_at_once():
    state = rig(classic(), [["8C", "10C", "QC"], ["8D", "10D", "QD"]], "9H", stock=["KH"])
    events = draw(state, 0)
    assert of_type(events, "drew")[0]["cards"] == ["KH"]
    assert state.turn == 0
    play(state, 0, "KH")
    assert top(state) == "KH" and state.turn == 1


def test_drawn_card_that_fits_may_be_kept_by_passing():
    state = rig(classic(), [["8C", "10C", "QC"], ["8D", "10D", "QD"]], "9H", stock=["KH"])
    draw(state, 0)
    pass_turn(state, 0)
    assert "KH" in hand(state, 0) and top(state) == "9H" and state.turn == 1


def test_drawn_card_that_does_not_fit_ends_the_turn():
    state = rig(classic(), [["8C", "10C", "QC"], ["8D", "10D", "QD"]], "9H", stock=["7S"])
    draw(state, 0)
    if state.turn == 0:  # the engine may wait for an explicit pass: it must be the only choice
        assert legal_actions(state, 0) == [{"type": "pass"}]
        refused_play(state, 0, "7S")
        pass_turn(state, 0)
    assert state.turn == 1 and "7S" in hand(state, 0)


@pytest.mark.parametrize("starter", ["7H", "8H", "9H", "AH", "JH"])
def test_starter_effects_false_special_starter_has_no_effect(starter):
    state = rig(classic(), [["KH", "KS", "10C"], ["10D", "QD", "KD"], ["QC", "KC", "8C"]], starter)
    assert state.turn == 0 and pending_draw(state) == 0 and wish(state) is None
    refused_play(state, 0, "KS")  # a jack starter wishes nothing: its own suit counts
    play(state, 0, "KH")
    assert state.turn == 1  # no skip, no reversal


def test_starter_effects_true_seven_starter_charges_first_player():
    state = rig(classic(starter_effects=True), [["KH", "KS", "10C"], ["10D", "QD", "KD"]], "7H")
    assert pending_draw(state) == 2
    refused_play(state, 0, "KH")


def test_seven_draws_two_and_stacks():
    state = rig(
        classic(),
        [["7H", "KC", "QC"], ["7C", "10D", "QD"], ["JD", "8C", "8S", "10S"]],
        "9H",
        stock=["8D", "9D", "10H", "QH"],
    )
    play(state, 0, "7H")
    assert pending_draw(state) == 2 and state.turn == 1
    play(state, 1, "7C")
    assert pending_draw(state) == 4 and state.turn == 2
    refused_play(state, 2, "8C")  # fits the 7C, but while a penalty is open only a 7 may be played
    refused_play(state, 2, "JD", wish="S")  # not even a jack
    events = draw(state, 2)
    drew = of_type(events, "drew")
    assert [e["cards"] for e in drew] == [["8D", "9D", "10H", "QH"]]
    assert drew[0]["count"] == 4 and drew[0]["reason"] == "seven"
    assert pending_draw(state) == 0 and len(hand(state, 2)) == 8
    assert state.turn == 0  # drawing the penalty ends the turn


def test_seven_counter_is_optional():
    state = rig(classic(), [["7H", "KC"], ["7C", "10D"]], "9H")
    play(state, 0, "7H")
    draw(state, 1)  # holds 7C but takes the two cards
    assert len(hand(state, 1)) == 4 and state.turn == 0


def test_seven_penalty_ends_turn_by_default():
    state = rig(classic(), [["7H", "KC", "QC"], ["10H", "10D"]], "9H")
    play(state, 0, "7H")
    draw(state, 1)
    assert state.turn == 0


def test_seven_served_normally_after_penalty():
    state = rig(classic(), [["7H", "KH", "QC"], ["10D", "QD"]], "9H")
    play(state, 0, "7H")
    draw(state, 1)
    play(state, 0, "KH")  # suit of the 7, and no new penalty
    assert pending_draw(state) == 0 and state.turn == 1


def test_seven_then_play_continues_turn():
    state = rig(classic(seven_then_play=True), [["7H", "KC", "QC"], ["10H", "10D"]], "9H")
    play(state, 0, "7H")
    draw(state, 1)
    assert state.turn == 1 and pending_draw(state) == 0
    play(state, 1, "10H")  # a normal turn on the 7
    assert state.turn == 0


def test_eight_skips_next_player():
    state = rig(classic(), [["8H", "KC", "QC"], ["10D", "QD"], ["10S", "QS"]], "9H")
    events = play(state, 0, "8H")
    assert state.turn == 2
    assert [e["seat"] for e in of_type(events, "skipped")] == [1]


def test_eight_skips_two_players_play_again():
    state = rig(classic(), [["8H", "KH", "QC"], ["10D", "QD"]], "9H")
    play(state, 0, "8H")
    assert state.turn == 0
    play(state, 0, "KH")
    assert state.turn == 1


def test_nine_reverses_direction():
    state = rig(classic(), [["9C", "KC", "QC"], ["10D", "QD"], ["10C", "QS"]], "9H")
    play(state, 0, "9C")
    assert state.turn == 2
    play(state, 2, "10C")
    assert state.turn == 1


def test_nine_reverses_two_players_acts_as_skip():
    state = rig(classic(), [["9C", "KC", "QC"], ["10D", "QD"]], "9H")
    play(state, 0, "9C")
    assert state.turn == 0
    play(state, 0, "KC")
    assert state.turn == 1


def test_ace_is_ordinary_by_default():
    state = rig(classic(), [["AH", "KC"], ["10D", "QD"], ["10S", "QS"]], "9H")
    play(state, 0, "AH")
    assert state.turn == 1


def test_ace_skips_option():
    state = rig(classic(ace_skips=True), [["AH", "KC"], ["10D", "QD"], ["10S", "QS"]], "9H")
    play(state, 0, "AH")
    assert state.turn == 2


def test_jack_wild_wish_holds_until_next_card():
    state = rig(classic(), [["JC", "10D", "QS"], ["KH", "8S", "9S"]], "9H", stock=["7S"])
    refused_play(state, 0, "JC")  # a jack needs a wish
    events = play(state, 0, "JC", wish="D")
    assert wish(state) == "D" and top(state) == "JC"
    assert "wish" in types(events)
    refused_play(state, 1, "KH")  # fits the 9H below, not the wish
    draw(state, 1)
    if state.turn == 1:
        pass_turn(state, 1)
    assert wish(state) == "D"  # drawing does not change the wish
    refused_play(state, 0, "QS")
    play(state, 0, "10D")
    assert wish(state) is None and top(state) == "10D"


def test_jack_on_jack_true_allows_jack_on_jack():
    state = rig(classic(), [["JC", "10D", "QS"], ["JH", "8S", "9S"]], "9H")
    play(state, 0, "JC", wish="D")
    play(state, 1, "JH", wish="S")
    assert wish(state) == "S"


def test_jack_on_jack_false_refuses_jack_keeps_wish():
    state = rig(classic(jack_on_jack=False), [["JC", "10D", "QS"], ["JH", "8D", "9S"]], "9H")
    play(state, 0, "JC", wish="D")
    refused_play(state, 1, "JH", wish="S")
    assert wish(state) == "D"
    play(state, 1, "8D")
    assert top(state) == "8D"


def test_jack_not_playable_on_open_seven_penalty():
    state = rig(classic(), [["7H", "KC"], ["JC", "10D"]], "9H")
    play(state, 0, "7H")
    refused_play(state, 1, "JC", wish="D")


def test_jack_can_win_true_jack_is_a_winning_last_card():
    state = rig(classic(), [["JC"], ["KS", "8D"]], "9H")
    play(state, 0, "JC", wish="S")
    assert state.status == "finished" and state.result["winner"] == 0


def test_jack_can_win_false_draws_penalty_and_continues():
    state = rig(classic(jack_can_win=False), [["JC"], ["KS", "8D", "10D"]], "9H", stock=["7D"])
    events = play(state, 0, "JC", wish="S")
    assert state.status == "active"
    drew = [e for e in of_type(events, "drew") if e["seat"] == 0]
    assert len(drew) == 1 and drew[0]["count"] == 1 and drew[0]["reason"] not in (None, "seven")
    assert hand(state, 0) == ["7D"]
    assert state.turn == 1 and wish(state) == "S"
    refused_play(state, 1, "8D")
    play(state, 1, "KS")


def test_jack_can_win_false_the_penalty_card_that_leaves_one_card_is_announced_mau():
    """Without announcements the game says "Mau!" for any play that leaves one card, and the
    penalty card for a last jack does (seed 000)."""
    state = rig(classic(jack_can_win=False), [["JC"], ["KS", "8D", "10D"]], "9H", stock=["7D"])
    events = play(state, 0, "JC", wish="S")
    assert hand(state, 0) == ["7D"]
    assert [e["seat"] for e in of_type(events, "mau")] == [0]
    assert types(events).index("drew") < types(events).index("mau")


@pytest.mark.parametrize("last", ["7H", "8H", "9C"])
def test_last_card_effect_does_not_apply(last):
    state = rig(classic(), [[last], ["10D", "QD"]], "9H")
    events = play(state, 0, last)
    assert state.status == "finished" and state.result["winner"] == 0
    assert state.result["reason"] == "mau_mau"
    assert pending_draw(state) == 0
    assert not of_type(events, "skipped") and not of_type(events, "direction")
    assert card_counts(state) == [0, 2]
    assert types(events)[-1] == "round_over"


def test_mau_announced_automatically():
    state = rig(classic(), [["KH", "QC"], ["KS", "8D"]], "9H")
    events = play(state, 0, "KH")
    assert [e["seat"] for e in of_type(events, "mau")] == [0]
    events = play(state, 1, "KS")  # the next player acts: no penalty for an unspoken "Mau"
    assert card_counts(state) == [1, 1]
    assert not of_type(events, "drew")


def test_classic_ranking_ties_by_points():
    state = rig(classic(), [["KH"], ["AS", "10S"], ["7C", "8C"], ["AC"]], "9H")
    play(state, 0, "KH")
    result = state.result
    assert result["winner"] == 0 and result["reason"] == "mau_mau"
    rows = result["players"]
    assert [row["seat"] for row in rows] == [0, 3, 2, 1]
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    assert [row["cards_left"] for row in rows] == [0, 1, 2, 2]
    assert [row["raw_points"] for row in rows] == [0, 11, 15, 21]
    assert [row["won"] for row in rows] == [True, False, False, False]


def test_classic_ranking_counts_cards_before_points():
    # one high card beats two low cards: fewer cards first, points only break ties
    state = rig(classic(), [["KH"], ["AS"], ["7C", "8C"]], "9H")
    play(state, 0, "KH")
    assert [row["seat"] for row in state.result["players"]] == [0, 1, 2]


def test_not_your_turn():
    state = rig(classic(), [["KH", "QC"], ["KS", "8D"]], "9H")
    error = refused(state, 1, {"type": "draw"})
    assert isinstance(error, IllegalAction) and error.code == "not_your_turn"


def test_game_over_refuses_moves():
    state = rig(classic(), [["KH"], ["KS", "8D"]], "9H")
    play(state, 0, "KH")
    error = refused(state, 1, {"type": "draw"})
    assert isinstance(error, IllegalAction) and error.code == "game_over"
    assert legal_actions(state, 1) == []
