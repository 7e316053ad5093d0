"""Resign and abort: a resignation scores the one who gave up as a loser (last rank; in house their
hand's points), an abort before the first move scores nothing; both end the round and replay."""

from __future__ import annotations

from tests.engine.engine_helpers import act, make_rules, play, refused, rig, types


def test_resigning_in_a_two_player_round_makes_the_other_the_winner() -> None:
    state = rig(make_rules("classic"), [["7C", "AD"], ["8C", "9C", "KS"]], "10H")
    events = act(state, 1, {"type": "resign"})  # not on turn: a resignation may come any time
    assert types(events) == ["resigned", "round_over"]
    result = state.result
    assert state.status == "finished" and result["reason"] == "resigned" and result["winner"] == 0
    by_seat = {row["seat"]: row for row in result["players"]}
    assert by_seat[0]["won"] and by_seat[0]["rank"] == 1
    assert by_seat[1]["rank"] == 2 and by_seat[1]["resigned"] and not by_seat[1]["won"]


def test_a_resigner_in_house_scores_their_hands_points_and_the_others_nothing() -> None:
    state = rig(make_rules("house"), [["7C", "AD"], ["8C", "9C", "KS"], ["JD", "QC"]], "10H")
    act(state, 2, {"type": "resign"})
    by_seat = {row["seat"]: row for row in state.result["players"]}
    assert state.result["winner"] is None
    assert by_seat[2]["rank"] == 3 and by_seat[2]["points"] == 20 + 3
    assert by_seat[0]["points"] == 0 and by_seat[1]["points"] == 0
    assert {by_seat[0]["rank"], by_seat[1]["rank"]} <= {1, 2}


def test_a_round_can_be_aborted_only_before_its_first_move() -> None:
    state = rig(make_rules("classic"), [["7C", "AD"], ["8C", "9C", "KS"]], "10H")
    act(state, 0, {"type": "abort"})
    assert state.result["reason"] == "aborted" and all(row["points"] == 0 for row in state.result["players"])
    later = rig(make_rules("classic"), [["10C", "AD"], ["8C", "9C", "KS"]], "10H")
    play(later, 0, "10C")
    assert refused(later, 0, {"type": "abort"}).code == "round_started"
    assert refused(state, 1, {"type": "resign"}).code == "game_over"
