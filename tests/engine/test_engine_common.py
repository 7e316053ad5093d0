"""docs/rules.md, "A turn" (all rule sets) and "Clocks"."""

from __future__ import annotations

import pytest
from engine_helpers import (
    all_cards,
    card_counts,
    clock,
    deck_of,
    draw,
    hand,
    legal_actions,
    make_rules,
    of_type,
    pass_turn,
    play,
    refused,
    rig,
    stock_top_first,
    top,
    types,
)

from games.engine import (
    ActionError,
    GameState,
    SetupError,
    deal_event,
    new_game,
    new_game_from_setup,
    parse_action,
    redact_events,
)
from games.engine.cards import card_names


@pytest.mark.parametrize("preset,players", [("classic", 5), ("tavern", 8), ("house", 6), ("classic", 2)])
def test_deal_hand_size_starter_and_stock(preset, players):
    rules = make_rules(preset)
    state = new_game(rules, players=players, seed="deal")
    size = rules.hand_size
    assert card_counts(state) == [size] * players
    assert state.discard == [top(state)]
    assert len(state.stock) == rules.deck_size - size * players - 1
    assert sorted(all_cards(state)) == sorted(deck_of(rules))
    assert state.turn == 0 and state.status == "active"


def test_first_round_opened_by_seat_0_next_by_first():
    rules = make_rules("classic")
    assert new_game(rules, players=3, seed=1).turn == 0
    assert new_game(rules, players=3, seed=1, first=2).turn == 2


def test_same_seed_same_deal_other_seed_other_deal():
    rules = make_rules("tavern")
    assert new_game(rules, players=3, seed="abc").to_json() == new_game(rules, players=3, seed="abc").to_json()
    assert new_game(rules, players=3, seed="abc").hands != new_game(rules, players=3, seed="abd").hands


@pytest.mark.parametrize("players", [1, 6])
def test_seat_count_outside_the_rule_set_is_refused(players):
    with pytest.raises(SetupError):
        new_game(make_rules("classic"), players=players, seed=1)


def test_setup_must_be_exactly_the_deck():
    rules = make_rules("classic")
    deck = deck_of(rules)
    with pytest.raises(SetupError):  # one card missing
        new_game_from_setup(rules, hands=[deck[:5], deck[5:10]], starter=deck[10], stock=deck[11:-1], seed=1)
    with pytest.raises(SetupError):  # a card twice
        new_game_from_setup(rules, hands=[deck[:5], deck[:5]], starter=deck[10], stock=deck[11:], seed=1)
    with pytest.raises(SetupError):  # a card of another deck
        new_game_from_setup(rules, hands=[deck[:5], ["2C"]], starter=deck[10], stock=deck[11:], seed=1)


def test_setup_stock_is_listed_top_first():
    rules = make_rules("classic")
    state = rig(rules, [["8C", "10C"], ["8D", "10D"]], "9H", stock=["7S", "KS"])
    assert stock_top_first(state)[:2] == ["7S", "KS"]
    draw(state, 0)  # 7S does not fit the 9H: drawn and the turn ends
    assert "7S" in hand(state, 0)


def test_stock_empty_reshuffles_discard():
    rules = make_rules("classic", must_play=False)
    rest = [card for card in card_names("skat32") if card not in {"9H", "KH", "7C"}]
    state = rig(rules, [["KH", *rest[:14]], rest[14:]], "9H", stock=["7C"], fill=False, seed="reshuffle")
    play(state, 0, "KH")
    draw(state, 1)  # the last card of the stock
    if state.turn == 1:
        pass_turn(state, 1)
    assert len(state.stock) == 0 and state.discard == ["9H", "KH"]
    events = draw(state, 0)
    assert "reshuffled" in types(events)
    assert types(events).index("reshuffled") < types(events).index("drew")
    assert of_type(events, "drew")[0]["cards"] == ["9H"]
    assert state.discard == ["KH"] and top(state) == "KH"
    assert sorted(all_cards(state)) == sorted(deck_of(rules))


def test_nothing_to_draw_passes():
    rules = make_rules("classic")
    no_match = [r + s for s in "CSD" for r in ("7", "8", "10", "Q", "K", "A")]
    others = [card for card in card_names("skat32") if card not in {*no_match, "9H"}]
    state = rig(rules, [no_match, others], "9H", fill=False)
    assert legal_actions(state, 0) == [{"type": "pass"}]
    refused(state, 0, {"type": "draw"})
    events = pass_turn(state, 0)
    assert [e["seat"] for e in of_type(events, "passed")] == [0]
    assert state.turn == 1 and state.status == "active"


def test_pass_refused_while_a_card_can_be_drawn():
    state = rig(make_rules("tavern"), [["KH", "2C"], ["2D", "3D"]], "9H")
    refused(state, 0, {"type": "pass"})


def test_stalemate_ends_round():
    # Nobody can play and nothing can be drawn. With a whole deck such a position cannot be dealt
    # (someone always holds a card of the top's suit), so the position is loaded from JSON.
    rules = make_rules("classic")
    state = rig(rules, [["8C", "10C", "QC"], ["8D", "10D", "KS"]], "9H")
    data = state.to_json()
    data["stock"] = []
    state = GameState.from_json(data)
    pass_turn(state, 0)
    assert state.status == "active"
    events = pass_turn(state, 1)
    assert state.status == "finished"
    result = state.result
    assert result["winner"] is None and result["reason"] == "stalemate"
    assert [row["seat"] for row in result["players"]] == [0, 1]  # 3 cards each: 8+10+3 < 8+10+4
    assert not any(row["won"] for row in result["players"])
    assert types(events)[-1] == "round_over"


def test_stalemate_needs_a_full_round():
    rules = make_rules("classic")
    state = rig(rules, [["8C", "10C", "QC"], ["8D", "10D", "KH"]], "9H")
    data = state.to_json()
    data["stock"] = []
    state = GameState.from_json(data)
    pass_turn(state, 0)
    play(state, 1, "KH")  # seat 1 could play: the round goes on
    assert state.status == "active"


def test_stalemate_only_when_nobody_can_play_or_draw_a_voluntary_pass_does_not_count():
    """"niemand kann mehr legen oder ziehen" (seed 000): seat 1 could play KH but passes (nothing to
    draw, no ``must_play``), so the round of turns around it is no stalemate."""
    rules = make_rules("classic", must_play=False)
    state = rig(rules, [["8C", "10C", "QC"], ["8D", "10D", "KH"]], "9H")
    data = state.to_json()
    data["stock"] = []
    state = GameState.from_json(data)
    pass_turn(state, 0)  # seat 0 can neither play nor draw
    pass_turn(state, 1)  # seat 1 could play and chooses not to
    pass_turn(state, 0)
    assert state.status == "active"
    pass_turn(state, 1)
    pass_turn(state, 0)
    assert state.status == "active"


def test_stalemate_counts_timed_out_turns_in_which_nobody_could_play_or_draw():
    rules = make_rules("classic", timeout_policy="skip")
    state = rig(rules, [["8C", "10C", "QC"], ["8D", "10D", "KS"]], "9H")
    data = state.to_json()
    data["stock"] = []
    state = GameState.from_json(data)
    clock(state)
    assert state.status == "active"
    events = clock(state)
    assert state.status == "finished" and state.result["reason"] == "stalemate"
    assert types(events)[-1] == "round_over"


def test_max_turns_ends_round():
    rules = make_rules("classic", max_turns=3)
    state = rig(rules, [["KH", "QS", "AC"], ["8H", "8S", "10D"]], "7H")
    play(state, 0, "KH")
    play(state, 1, "8H")  # skips seat 0 with two players: seat 1 again
    assert state.status == "active"
    events = play(state, 1, "8S")  # the third turn
    assert state.status == "finished"
    result = state.result
    assert result["winner"] is None and result["reason"] == "max_turns"
    assert [row["seat"] for row in result["players"]] == [1, 0]  # fewer cards left first
    assert of_type(events, "round_over")


def test_parse_action_refuses_malformed_actions():
    for data in (
        "draw",
        {"type": "fly"},
        {"type": "play"},
        {"type": "play", "cards": "7S"},
        {"type": "play", "cards": []},
        {"type": "play", "cards": ["1S"]},
        {"type": "play", "cards": ["7S", "7S"]},
        {"type": "play", "cards": ["JS"], "wish": "X"},
        {"type": "play", "cards": ["7S"], "target": True},
        {"type": "play", "cards": ["7S"], "say": ["hello"]},
        {"type": "play", "cards": ["7S"], "seat": 1},
        {"type": "say", "word": "hallo"},
        {"type": "draw", "cards": ["7S"]},
        {"type": "timeout"},
    ):
        with pytest.raises(ActionError):
            parse_action(data)
    assert parse_action({"type": "timeout"}, clock=True)["type"] == "timeout"


@pytest.mark.parametrize("policy", ["autoplay", "penalty", "skip"])
def test_timeout_policies(policy):
    """autoplay: the bot moves for the stalled player; penalty: one card, then the turn passes;
    skip: draw one if allowed, then pass."""
    rules = make_rules("classic", timeout_policy=policy)
    # seat 0 holds no card for the 9H: under must_play the only move is to draw (then pass or play)
    state = rig(rules, [["8C", "10C", "QC"], ["8D", "10D", "QD"]], "9H", stock=["7S", "AS"])
    events = clock(state)
    assert state.turn == 1, policy
    drew = [(e["seat"], e["cards"]) for e in of_type(events, "drew")]
    if policy == "penalty":
        assert drew == [(0, ["7S"])] and of_type(events, "drew")[0]["reason"] not in (None, "seven")
    else:  # autoplay and skip both draw the one card the rules allow, which does not fit
        assert drew == [(0, ["7S"])]
    assert card_counts(state) == [4, 3]


@pytest.mark.parametrize("policy", ["autoplay", "skip"])
def test_timeout_with_playable_card(policy):
    rules = make_rules("classic", timeout_policy=policy)
    state = rig(rules, [["KH", "10C", "QC"], ["8D", "10D", "QD"]], "9H")
    clock(state)
    assert state.turn == 1
    if policy == "autoplay":  # must_play: the bot plays the only playable card
        assert top(state) == "KH" and card_counts(state) == [2, 3]
    else:  # skip: drawing is not allowed, so the turn just passes
        assert top(state) == "9H" and card_counts(state) == [3, 3]


def test_timeout_penalty_with_open_seven_draws_it_too():
    rules = make_rules("classic", timeout_policy="penalty")
    state = rig(rules, [["7H", "KC"], ["8D", "10D"]], "9H")
    play(state, 0, "7H")
    clock(state)
    assert card_counts(state) == [1, 5] and state.turn == 0 and state.pending_draw == 0


def test_deal_event_shows_each_seat_only_its_own_hand():
    state = new_game(make_rules("classic"), players=3, seed="deal-event")
    event = deal_event(state)
    for seat in range(3):
        shown = redact_events([event], seat)[0]
        assert shown["hands"][seat] == state.hands[seat]
        assert all(hand is None for other, hand in enumerate(shown["hands"]) if other != seat)
    spectator = redact_events([event], None)[0]
    assert spectator["hands"] == [None, None, None]
    assert redact_events([event], None, reveal=True)[0]["hands"] == state.hands


def test_cards_drawn_by_others_are_redacted_counts_stay():
    state = rig(make_rules("classic"), [["8C", "10C"], ["8D", "10D"], ["QS", "KS"]], "9H", stock=["7S"])
    events = draw(state, 0)
    for viewer, sees in ((0, ["7S"]), (1, None), (2, None), (None, None)):
        drew = of_type(redact_events(events, viewer), "drew")[0]
        assert drew["count"] == 1 and drew.get("cards") == sees
    assert of_type(redact_events(events, 1, reveal=True), "drew")[0]["cards"] == ["7S"]


def test_stalemate_not_declared_while_a_player_could_play():
    """Nothing to draw, but seat 0 could counter the open 7 (and later play on it): no stalemate.

    A 7 starter (``starter_effects``) opens a penalty for seat 0 with an empty stock. Seat 0 holds
    three 7s, the diamonds and the jacks, yet takes the (empty) penalty; seat 1 cannot play and
    passes. One full round went by, but seat 0 *could* play in it, so the round goes on.
    """
    rules = make_rules("classic", starter_effects=True)
    seat0 = ["8D", "9D", "10D", "JD", "QD", "KD", "AD", "7C", "7S", "7H", "JC", "JS", "JH"]
    seat1 = [rank + suit for suit in "CSH" for rank in ("8", "9", "10", "Q", "K", "A")]
    state = rig(rules, [seat0, seat1], "7D", fill=False)
    assert {"type": "play", "cards": ["7H"]} in legal_actions(state, 0)
    draw(state, 0)  # countering is optional; there is nothing to draw
    pass_turn(state, 1)
    assert state.status == "active", state.result
    assert state.turn == 0 and legal_actions(state, 0) != [{"type": "pass"}]


def test_a_state_written_without_its_rules_reads_back_with_them():
    rules = make_rules("tavern")
    state = new_game(rules, players=3, seed="abc")
    data = state.to_json(with_rules=False)
    assert "rules" not in data and data == {k: v for k, v in state.to_json().items() if k != "rules"}
    assert GameState.from_json(data, rules) == state
    assert GameState.from_json(state.to_json(), make_rules("classic")).rules == rules  # its own rules win
    with pytest.raises(ValueError):
        GameState.from_json(data)
