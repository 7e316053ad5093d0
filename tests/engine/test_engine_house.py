"""docs/rules.md, the `house` preset: jokers, covers, swaps, Hermann, calls, penalties, multipliers.

Each test switches off the calls it does not check (``pik_call``, ``announcements``, the Hermann
race), so that one rule is checked at a time; the call tests switch them on again.
"""

from __future__ import annotations

import pytest
from engine_helpers import (
    act,
    card_counts,
    clock,
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
    say,
    top,
    wish,
)

from games.engine import parse_action, penalize_illegal

QUIET = {"pik_call": False, "announcements": False, "king_of_diamonds_hermann": False}


def house(**options):
    return make_rules("house", **{**QUIET, **options})


def test_house_deck_has_three_jokers():
    rules = make_rules("house")
    assert rules.deck_size == 55 and rules.to_json()["jokers"] == 3


def test_nine_skips_second():
    state = rig(house(), [["9C", "2D", "3D"], ["4C", "2H"], ["5C", "3H"], ["6D", "4H"]], "6C")
    play(state, 0, "9C")
    assert state.turn == 1  # the next player plays as usual
    play(state, 1, "4C")
    assert state.turn == 3  # the player after next (seat 2) sits out


def test_nine_skips_second_served_by_an_eight_skip():
    """A seat due to sit out after a 9 that an 8 skips first has served its sitting-out."""
    hands = [["9H", "5C", "2D", "3D"], ["8H", "3C", "2S", "4C"], ["4D", "3S", "4S"], ["5H", "6D", "7D"]]
    state = rig(house(), hands, "6H")
    play(state, 0, "9H")  # seat 2, the player after next, is to sit out
    play(state, 1, "8H")  # the 8 skips seat 2: that is its sitting-out
    assert state.turn == 3
    play(state, 3, "5H")
    play(state, 0, "5C")
    play(state, 1, "3C")
    assert state.turn == 2  # seat 2 plays now; it does not sit out a second time


def test_nine_skips_second_two_players_no_effect():
    state = rig(house(), [["9C", "2D", "3D"], ["4C", "2H", "5H"]], "6C")
    play(state, 0, "9C")
    assert state.turn == 1
    play(state, 1, "4C")
    assert state.turn == 0


def test_ten_reverses_direction():
    state = rig(house(), [["10C", "2D"], ["4D", "2H"], ["5C", "3H"]], "6C")
    play(state, 0, "10C")
    assert state.turn == 2
    play(state, 2, "5C")
    assert state.turn == 1


def test_ten_reverses_two_players_acts_as_skip():
    state = rig(house(), [["10C", "4C", "2D"], ["4D", "2H"]], "6C")
    play(state, 0, "10C")
    assert state.turn == 0


def test_house_eight_skips_next_player():
    state = rig(house(), [["8C", "2D"], ["4D", "2H"], ["5C", "3H"]], "6C")
    play(state, 0, "8C")
    assert state.turn == 2


def test_joker_named_as_seven_counters_penalty():
    state = rig(house(), [["7H", "2C", "3C"], ["X1", "2D", "3D"]], "5H", stock=["4S", "5S", "6S", "8S"])
    play(state, 0, "7H")
    refused_play(state, 1, "X1")  # a joker must be named
    play(state, 1, "X1", as_={"X1": "7S"})
    assert pending_draw(state) == 4 and top(state) == "7S" and state.turn == 0
    refused_play(state, 0, "2C")
    events = draw(state, 0)
    assert of_type(events, "drew")[0]["cards"] == ["4S", "5S", "6S", "8S"]


def test_joker_is_the_named_card_in_every_respect():
    state = rig(house(), [["X2", "2C"], ["4D", "2H"], ["5C", "3H"]], "5H")
    play(state, 0, "X2", as_={"X2": "8H"})  # an 8: the next player sits out
    assert state.turn == 2 and top(state) == "8H"
    refused_play(state, 2, "5C")
    play(state, 2, "3H")


def test_joker_can_always_be_played():
    # named as a card that does not fit the top: a joker can always be played
    state = rig(house(), [["X1", "2C", "3C"], ["KS", "2H"]], "5H")
    play(state, 0, "X1", as_={"X1": "QS"})
    assert top(state) == "QS" and state.turn == 1
    play(state, 1, "KS")


def test_ace_needs_cover_chain_AS_AH_5H():
    state = rig(house(), [["AS", "AH", "5H", "2C"], ["2D", "3D", "4D"]], "9S")
    refused_play(state, 0, "AS")  # an ace alone
    refused_play(state, 0, "AS", "AH")  # an ace as the cover needs its own cover
    refused_play(state, 0, "AS", "5H")  # 5H does not fit on AS
    play(state, 0, "AS", "AH", "5H")
    assert top(state) == "5H" and hand(state, 0) == ["2C"] and state.turn == 1


def test_ace_without_cover_stays_in_hand():
    state = rig(house(), [["AS", "2C"], ["2D", "3D", "4D"]], "9H")
    refused_play(state, 0, "AS")
    actions = legal_actions(state, 0)
    assert all("AS" not in action.get("cards", []) for action in actions)
    assert {"type": "draw"} in actions  # nothing playable: the player draws


def test_jack_on_jack_first_wished_suit():
    state = rig(house(), [["JC", "2D", "3D"], ["JD", "JH", "2S"], ["JS", "4S", "5D"]], "5H")
    play(state, 0, "JC", wish="H")
    refused_play(state, 1, "JD", wish="S")  # not of the first wished suit (H)
    play(state, 1, "JH", wish="S")  # of the first wished suit
    assert wish(state) == "S"
    refused_play(state, 2, "JS", wish="D")  # spades is wished now, but the run began with hearts
    play(state, 2, "4S")
    assert wish(state) is None


def test_queen_of_hearts_swap():
    state = rig(house(), [["QH", "2C", "3C"], ["2D", "3D"], ["4D", "5D", "6D"]], "5H")
    refused_play(state, 0, "QH")  # the move names the player to swap with
    refused_play(state, 0, "QH", target=0)
    refused_play(state, 0, "QH", target=3)
    events = play(state, 0, "QH", target=2)
    assert sorted(hand(state, 0)) == ["4D", "5D", "6D"]
    assert sorted(hand(state, 2)) == ["2C", "3C"]
    assert hand(state, 1) == ["2D", "3D"]
    assert of_type(events, "hands_swapped")
    assert state.turn == 1


def test_king_of_diamonds_hermann_race():
    state = rig(
        house(king_of_diamonds_hermann=True),
        [["KD", "2C", "3C"], ["2S", "3S"], ["4S", "5S"]],
        "5D",
        stock=["6H"],
    )
    events = play(state, 0, "KD")
    assert state.hermann_open and of_type(events, "hermann_started")
    assert state.turn == 1  # the race runs beside normal play
    say(state, 2, "hermann")
    assert state.hermann_open
    events = say(state, 0, "hermann")
    assert not state.hermann_open and of_type(events, "hermann_closed")
    drew = of_type(events, "drew")
    assert [(e["seat"], e["cards"]) for e in drew] == [(1, ["6H"])]
    assert card_counts(state) == [2, 3, 2]


def test_hermann_timeout_silent_players_draw():
    state = rig(
        house(king_of_diamonds_hermann=True),
        [["KD", "2C", "3C"], ["2S", "3S"], ["4S", "5S"]],
        "5D",
    )
    play(state, 0, "KD")
    say(state, 1, "hermann")
    events = clock(state, "hermann_timeout")
    assert sorted(e["seat"] for e in of_type(events, "drew")) == [0, 2]
    assert not state.hermann_open
    assert card_counts(state) == [3, 2, 3]


def test_pik_call_forgotten_costs_one_card():
    state = rig(house(pik_call=True), [["5S", "2C", "3C"], ["5D", "2D", "3D"]], "9S")
    play(state, 0, "5S")
    assert card_counts(state)[0] == 2
    events = play(state, 1, "5D")  # the next player acts: the call is too late now
    assert [(e["seat"], e["count"]) for e in of_type(events, "drew")] == [(0, 1)]
    assert card_counts(state) == [3, 2]


def test_pik_call_in_the_move_or_before_the_next_player_is_free():
    state = rig(house(pik_call=True), [["5S", "6S", "2C"], ["5D", "6D", "2D"]], "9S")
    play(state, 0, "5S", say=["pik"])
    play(state, 1, "5D")
    assert card_counts(state) == [2, 2]
    state = rig(house(pik_call=True), [["5S", "6S", "2C"], ["5D", "6D", "2D"]], "9S")
    play(state, 0, "5S")
    say(state, 0, "pik")
    play(state, 1, "5D")
    assert card_counts(state) == [2, 2]


def test_pik_call_for_joker_named_as_spade():
    state = rig(house(pik_call=True), [["X1", "2C", "3C"], ["5D", "4S"]], "9S")
    play(state, 0, "X1", as_={"X1": "5S"})
    events = play(state, 1, "5D")
    assert [(e["seat"], e["count"]) for e in of_type(events, "drew")] == [(0, 1)]


def test_mau_forgotten_costs_one_card():
    state = rig(house(announcements=True), [["5H", "2C"], ["5D", "2D", "3D"]], "9H")
    play(state, 0, "5H")
    events = play(state, 1, "5D")
    assert [(e["seat"], e["count"]) for e in of_type(events, "drew")] == [(0, 1)]
    assert card_counts(state) == [2, 2]


def test_mau_said_in_the_move_is_free():
    state = rig(house(announcements=True), [["5H", "2C"], ["5D", "2D", "3D"]], "9H")
    play(state, 0, "5H", say=["mau"])
    play(state, 1, "5D")
    assert card_counts(state) == [1, 2]


def test_maumau_forgotten_draws_instead_of_winning():
    state = rig(house(announcements=True), [["5H"], ["5D", "2D", "3D"]], "9H", stock=["KC"])
    events = play(state, 0, "5H")
    assert state.status == "active"
    assert [(e["seat"], e["cards"]) for e in of_type(events, "drew")] == [(0, ["KC"])]
    assert hand(state, 0) == ["KC"] and state.turn == 1  # play goes on


def test_a_call_owed_from_your_previous_move_is_charged_before_your_next_move_is_judged():
    """With two players an 8 gives the turn back before anyone else acted: the "Mau" and "Pik" its
    player forgot cost their cards first, so the last card in hand is no longer the last card."""
    state = rig(house(announcements=True, pik_call=True), [["8S", "5S"], ["5D", "2D", "3D"]], "9S",
                stock=["KC", "QC"])
    play(state, 0, "8S")  # leaves one card: "mau" and "pik" owed
    assert state.turn == 0
    events = play(state, 0, "5S", say=["maumau", "pik"])
    assert state.status == "active" and state.result is None
    assert [(e["seat"], e["reason"]) for e in of_type(events, "drew")] == [(0, "forgot_mau")]
    assert hand(state, 0) == ["KC"] and state.turn == 1
    assert legal_actions(state, 0) == [{"type": "say", "word": "mau"}]  # one card left after the move


def test_a_player_never_wins_holding_a_penalty_card():
    state = rig(house(announcements=True, pik_call=True), [["8S", "5S"], ["5D", "2D", "3D"]], "9S",
                stock=["KC", "QC"])
    play(state, 0, "8S", say=["mau"])  # "pik" forgotten
    play(state, 0, "5S", say=["maumau"])
    assert state.status == "active"
    assert hand(state, 0) == ["KC"]
    play(state, 1, "5D")  # the next player acts: "mau" and "pik" of the 5S cost their cards now
    assert state.status == "active" and card_counts(state)[0] == 3


def test_maumau_said_wins():
    state = rig(house(announcements=True), [["5H"], ["5D", "2D", "3D"]], "9H")
    play(state, 0, "5H", say=["maumau"])
    assert state.status == "finished" and state.result["winner"] == 0


def test_penalize_illegal_charged_once():
    state = rig(house(), [["2C", "3C", "5H"], ["5D", "2D", "3D"]], "9H", stock=["KC", "KS", "KD"])
    illegal = parse_action({"type": "play", "cards": ["2C"]})
    refused(state, 0, {"type": "play", "cards": ["2C"]})
    events = penalize_illegal(state, 0, illegal)
    drew = of_type(events, "drew")
    assert [(e["seat"], e["count"]) for e in drew] == [(0, 1)] and drew[0]["reason"] not in (None, "seven")
    assert card_counts(state)[0] == 4
    assert penalize_illegal(state, 0, parse_action({"type": "play", "cards": ["2C"]})) == []  # retried
    assert card_counts(state)[0] == 4
    penalize_illegal(state, 0, parse_action({"type": "play", "cards": ["3C"]}))  # another illegal play
    assert card_counts(state)[0] == 5
    play(state, 0, "5H")
    play(state, 1, "5D")
    penalize_illegal(state, 0, illegal)  # after accepted moves the same mistake costs again
    assert card_counts(state)[0] == 5


def test_house_turn_timeout_costs_one_card_and_passes():
    state = rig(house(), [["5H", "2C"], ["5D", "2D"]], "9H", stock=["KC"])
    events = clock(state)
    assert [(e["seat"], e["cards"]) for e in of_type(events, "drew")] == [(0, ["KC"])]
    assert state.turn == 1


def test_final_jacks_multiplier():
    state = rig(house(), [["5H", "JC", "JD"], ["2C", "KC"], ["3C"]], "9H")
    refused_play(state, 0, "JC", "JD")  # extra jacks lie on a last card, not alone
    play(state, 0, "5H", "JC", "JD")
    result = state.result
    assert state.status == "finished" and result["winner"] == 0
    assert result["multiplier"] == 3
    rows = {row["seat"]: row for row in result["players"]}
    assert (rows[1]["raw_points"], rows[1]["multiplier"], rows[1]["points"]) == (6, 3, 18)
    assert (rows[2]["raw_points"], rows[2]["points"]) == (3, 9)


def test_final_jacks_only_with_the_last_card():
    state = rig(house(), [["5H", "JC", "2C"], ["2D", "KC"]], "9H")
    refused_play(state, 0, "5H", "JC")


@pytest.mark.parametrize("extra_jacks,multiplier", [([], 1), (["JC"], 2)])
def test_house_points_times_multiplier(extra_jacks, multiplier):
    loser = ["2C", "10C", "QC", "KC", "AC", "JS", "X1"]  # 2 + 10 + 3 + 4 + 10 + 20 + 50
    state = rig(house(), [["5H", *extra_jacks], loser], "9H")
    play(state, 0, "5H", *extra_jacks)
    rows = {row["seat"]: row for row in state.result["players"]}
    assert rows[1]["raw_points"] == 99
    assert rows[1]["points"] == 99 * multiplier and state.result["multiplier"] == multiplier
    assert rows[0]["points"] == 0 and rows[0]["won"]


def test_house_calls_inside_a_play_are_checked():
    # an unneeded call does not make a legal play illegal
    state = rig(make_rules("house"), [["5H", "2C", "3C"], ["5D", "2D", "3D"]], "9H")
    act(state, 0, {"type": "play", "cards": ["5H"], "say": ["pik"]})
    assert top(state) == "5H"


def test_queen_of_hearts_offers_one_play_per_target():
    state = rig(house(), [["QH", "2C", "3C"], ["2D", "3D"], ["4D", "5D"]], "5H")
    targets = sorted(a["target"] for a in legal_actions(state, 0) if a.get("cards") == ["QH"])
    assert targets == [1, 2]


def test_house_options_off_make_the_cards_ordinary():
    rules = house(queen_of_hearts_swap=False, ace_needs_cover=False, final_jacks=False)
    state = rig(rules, [["QH", "AH", "JC", "JD"], ["2D", "3D", "KD"], ["4D", "5D"]], "5H")
    play(state, 0, "QH")  # no target, no swap
    assert sorted(hand(state, 0)) == ["AH", "JC", "JD"]
    state = rig(rules, [["AH", "2C"], ["2D", "3D"]], "5H")
    play(state, 0, "AH")  # an ace alone
    assert top(state) == "AH"
    state = rig(rules, [["5H", "JC"], ["2D", "3D"]], "9H")
    refused_play(state, 0, "5H", "JC")  # no final jacks


def test_king_of_diamonds_without_hermann_is_ordinary():
    state = rig(house(), [["KD", "2C"], ["2S", "3S"], ["4S", "5S"]], "5D")
    events = play(state, 0, "KD")
    assert not state.hermann_open and not of_type(events, "hermann_started")
    refused(state, 1, {"type": "say", "word": "hermann"})


def test_pik_call_off_costs_nothing():
    state = rig(house(), [["5S", "2C", "3C"], ["5D", "2D", "3D"]], "9S")
    play(state, 0, "5S")
    play(state, 1, "5D")
    assert card_counts(state) == [2, 2]


def test_penalize_illegal_off_charges_nothing():
    state = rig(make_rules("classic"), [["8C", "KH"], ["8D", "10D"]], "9H")
    assert penalize_illegal(state, 0, parse_action({"type": "play", "cards": ["8C"]})) == []
    assert card_counts(state) == [2, 2]


def test_penalize_illegal_ignores_legal_plays_and_other_seats():
    state = rig(house(), [["2C", "5H"], ["5D", "2D"]], "9H")
    before = state.to_json()
    assert penalize_illegal(state, 0, parse_action({"type": "play", "cards": ["5H"]})) == []
    assert penalize_illegal(state, 1, parse_action({"type": "play", "cards": ["2D"]})) == []
    assert state.to_json() == before
