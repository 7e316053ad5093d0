"""The strong bot sees only its seat's view and redacted events, deals worlds consistent with them,
always chooses a legal action, and replays its choice from the same seed and playout budget."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import deck_of, own_play, rig
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    Knowledge,
    RuleSet,
    apply,
    choose_bot_action,
    deal_event,
    legal_actions,
    new_game,
    player_view,
    redact_events,
    search,
    strong_action,
)
from games.engine.playouts import compact_rules
from games.engine.search import CLOCK_EVERY

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def observers(state: Any) -> list[Knowledge]:
    """A Knowledge per seat, fed the deal as that seat sees it."""
    found = []
    for seat in range(len(state.hands)):
        knowledge = Knowledge(state.rules, seat)
        knowledge.observe(redact_events([deal_event(state)], seat))
        found.append(knowledge)
    return found


def check_world(state: Any, knowledge: Knowledge, rng: random.Random) -> None:
    seat = knowledge.seat
    view = player_view(state, seat)
    world = knowledge.world(view, rng)
    assert player_view(world, seat) == view
    assert Counter(card for hand in world.hands for card in hand) + Counter(world.stock) + Counter(world.discard) \
        == Counter(deck_of(state.rules))
    assert legal_actions(world, seat) == legal_actions(state, seat)
    assert knowledge.discard == state.discard  # what was laid face up since the last reshuffle
    assert knowledge.lacking == state.lacking  # the public note the basic bot reads, followed from the events
    for other, cards in knowledge.known.items():  # cards known in another hand are there
        assert set(cards) <= set(state.hands[other])
    assert knowledge.counts == {other: len(hand) for other, hand in enumerate(state.hands)}
    assert (knowledge.direction, knowledge.pending) == (state.direction, state.pending_draw)


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern", "house"]), seed=st.integers(0, 2**32 - 1),
       players=st.integers(2, 5), must_play=st.booleans())
def test_worlds_agree_with_everything_each_seat_sees(preset, seed, players, must_play):
    rules = RuleSet.from_preset(preset, {"must_play": must_play, "players": [2, 6]})
    state = new_game(rules, players, seed=seed, first=seed % players)
    seats = observers(state)
    rng = random.Random(seed)
    while state.status == "active":
        for knowledge in seats:
            check_world(state, knowledge, rng)
        mover = state.turn
        calls = [(other, entry) for other in range(players) if other != mover for entry in legal_actions(state, other)]
        if calls and rng.random() < 0.5:
            mover, action = rng.choice(calls)
        else:
            action = choose_bot_action(state, mover, rng.choice(["random", "basic"]), rng)
        _, events = apply(state, mover, action)
        for knowledge in seats:
            knowledge.observe(redact_events(events, knowledge.seat))


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern", "house"]), seed=st.integers(0, 2**32 - 1),
       players=st.integers(2, 4))
def test_the_strong_bot_always_chooses_a_legal_action_and_replays_it(preset, seed, players):
    rules = RuleSet.from_preset(preset)
    state = new_game(rules, players, seed=seed)
    seats = observers(state)
    rng = random.Random(seed)
    for _ in range(40):
        if state.status != "active":
            break
        seat = state.turn
        view = player_view(state, seat)
        choice = strong_action(view, seats[seat], random.Random(seed), playouts=12)
        assert choice == strong_action(view, seats[seat], random.Random(seed), playouts=12)
        legal = legal_actions(state, seat)
        assert any(_offers(entry, choice) for entry in legal), (choice, legal)
        _, events = apply(state, seat, choice)
        for knowledge in seats:
            knowledge.observe(redact_events(events, knowledge.seat))
        rng.random()


def test_the_clock_it_is_given_ends_the_search():
    rules = RuleSet.from_preset("tavern")
    state = new_game(rules, 2, seed=3)
    knowledge = observers(state)[state.turn]
    ticks = iter(range(10**6))
    stats: dict[str, int] = {}
    strong_action(player_view(state, state.turn), knowledge, random.Random(1), playouts=10**6,
                  clock=lambda: next(ticks), deadline=40, stats=stats)
    assert 0 < stats["playouts"] <= 41 * CLOCK_EVERY + len(legal_actions(state, state.turn))


def seat_zeros_worlds(state: Any, moves: list[tuple[int, dict[str, Any]]], count: int = 50) -> list[Any]:
    """``count`` worlds seat 0 deals after the moves were made (every seat's knowledge following them)."""
    seats = observers(state)
    for seat, action in moves:
        _, events = apply(state, seat, action)
        for knowledge in seats:
            knowledge.observe(redact_events(events, knowledge.seat))
    rng = random.Random(5)
    return [seats[0].world(player_view(state, 0), rng) for _ in range(count)]


def test_a_drawing_seat_under_must_play_is_dealt_no_card_that_fitted():
    """Classic: seat 1 draws instead of playing on 9H, so it held no heart, no 9 and no jack."""
    rules = RuleSet.from_preset("classic")
    state = rig(rules, [["KH", "8C", "10C"], ["7C", "8S", "9C", "AS"]], "9H", ["QD", "KD", "AD", "7D"])
    for world in seat_zeros_worlds(state, [(0, {"type": "play", "cards": ["KH"]}), (1, {"type": "draw"})]):
        assert len(world.hands[1]) == 5
        assert not [card for card in world.hands[1] if card[-1] == "H" or card[0] in "KJ"], world.hands[1]


def play_basic_round(state: Any, seats: list[Knowledge], before_each_turn: Any) -> None:
    """Play the round with basic bots in every seat, each seat's knowledge following it."""
    while state.status == "active":
        before_each_turn(state, seats)
        _, events = apply(state, state.turn, choose_bot_action(state, state.turn, "basic", None))
        for knowledge in seats:
            knowledge.observe(redact_events(events, knowledge.seat))


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern"]), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_the_true_hands_agree_with_every_play_of_a_basic_bot(preset, seed, players):
    """Reading the plays never rules out the truth when the others play as the basic bot does."""
    rules = RuleSet.from_preset(preset)
    compact = compact_rules(rules)
    state = new_game(rules, players, seed=seed, first=seed % players)
    seats = observers(state)
    read = []

    def truth_agrees(state: Any, seats: list[Knowledge]) -> None:
        for knowledge in seats:
            read.append(sum(len(choices) for other, choices in knowledge.choices.items() if other != knowledge.seat))
            assert knowledge.disagreements(state.hands, compact) == 0

    play_basic_round(state, seats, truth_agrees)
    assert len(read) > 0


def agreeing_share(rules: RuleSet, players: int, rounds: int) -> float:
    """The share of seat 0's worlds (10 a turn, once the others have plays to read) in which every
    other seat's recent plays are the basic bot's, over ``rounds`` rounds of basic bots."""
    compact = compact_rules(rules)
    found = [0, 0]
    rng = random.Random(7)

    def deal_worlds(state: Any, seats: list[Knowledge]) -> None:
        if state.turn == 0 and any(seats[0].choices[other] for other in range(1, players)):
            for _ in range(10):
                world = seats[0].world(player_view(state, 0), rng)
                found[0] += seats[0].disagreements(world.hands, compact) == 0
                found[1] += 1

    for seed in range(rounds):
        state = new_game(rules, players, seed=seed)
        play_basic_round(state, observers(state), deal_worlds)
    return found[0] / found[1]


def test_worlds_agree_with_the_plays_they_read_more_often_than_worlds_dealt_blind(monkeypatch):
    rules = RuleSet.from_preset("tavern")
    read = agreeing_share(rules, 4, 12)
    monkeypatch.setattr(search, "LIKELIHOOD", 1.0)  # every world equally likely: dealt blind
    blind = agreeing_share(rules, 4, 12)
    assert read > blind + 0.2, (read, blind)


def chain_worlds(players: int, rounds: int, each: Any) -> int:
    """Call ``each(state, chain)`` with a chain of seat 0's worlds at its turns in ``rounds`` tavern
    rounds of basic bots, once the others have plays to read; returns how many chains it made."""
    rules = RuleSet.from_preset("tavern")
    rng = random.Random(3)
    made = [0]

    def at_turn(state: Any, seats: list[Knowledge]) -> None:
        if state.turn == 0 and any(seats[0].choices[other] for other in range(1, players)):
            each(state, seats[0].worlds(player_view(state, 0), rng))
            made[0] += 1

    for seed in range(rounds):
        state = new_game(rules, players, seed=seed)
        play_basic_round(state, observers(state), at_turn)
    return made[0]


def test_the_chains_worlds_keep_the_view_the_counts_and_every_slot():
    rng = random.Random(4)

    def check(state: Any, chain: search.Worlds) -> None:
        view = player_view(state, 0)
        broken = sum(card in excluded for card, excluded in zip(chain.card, chain.excluded, strict=True))
        for _ in range(10):
            world = chain.world(rng, 10)
            assert player_view(world, 0) == view
            assert Counter(card for hand in world.hands for card in hand) + Counter(world.stock) \
                + Counter(world.discard) == Counter(deck_of(state.rules))
            assert [len(hand) for hand in world.hands] == [len(hand) for hand in state.hands]
            # a card never moves into a slot that excludes it (the first deal breaks none, or the fewest)
            assert sum(card in excluded for card, excluded in zip(chain.card, chain.excluded, strict=True)) <= broken

    assert chain_worlds(4, 6, check) > 10


def test_the_chain_keeps_to_the_worlds_that_agree_when_disagreeing_is_all_but_ruled_out(monkeypatch):
    """The truth is a world that agrees with every play of basic bots: a chain that weighs a
    disagreement at 1e-6 finds such worlds and stays among them; dealt blind, most do not agree."""
    compact = compact_rules(RuleSet.from_preset("tavern"))
    rng = random.Random(6)
    found = {True: [0, 0], False: [0, 0]}

    def count(chain: search.Worlds, sharp: bool) -> None:
        for _ in range(5):
            world = chain.world(rng, search.STEPS)
            found[sharp][0] += chain.knowledge.disagreements(world.hands, compact) == 0
            found[sharp][1] += 1

    monkeypatch.setattr(search, "LIKELIHOOD", 1e-6)
    chain_worlds(4, 6, lambda state, chain: count(chain, True))
    monkeypatch.setattr(search, "LIKELIHOOD", 1.0)
    chain_worlds(4, 6, lambda state, chain: count(chain, False))
    sharp, blind = (found[key][0] / found[key][1] for key in (True, False))
    assert sharp > 0.97 and blind < 0.6, (sharp, blind)


def test_the_hands_whose_plays_are_not_read_are_dealt_anew_for_every_world():
    """Nothing read yet (the deal): every world of one chain deals the other hands and the stock anew."""
    state = new_game(RuleSet.from_preset("tavern"), 4, seed=8)
    chain = observers(state)[0].worlds(player_view(state, 0), random.Random(1))
    rng = random.Random(2)
    worlds = [chain.world(rng, search.STEPS) for _ in range(20)]
    assert not chain.read
    assert len({tuple(sorted(world.hands[1])) for world in worlds}) == 20
    assert len({tuple(world.stock) for world in worlds}) == 20


def test_a_seat_that_lays_a_jack_with_cards_left_is_dealt_no_other_card_that_fitted():
    """Tavern: seat 1 lays the wild JS on KH with four cards left, so none of them (but a jack) fitted."""
    rules = RuleSet.from_preset("tavern")
    state = rig(rules, [["KH", "2C", "3C", "4C", "5C"], ["JS", "6S", "7S", "8S", "10D"]], "9H")
    for world in seat_zeros_worlds(state, [(0, {"type": "play", "cards": ["KH"]}),
                                           (1, {"type": "play", "cards": ["JS"], "wish": "S"})]):
        assert len(world.hands[1]) == 4
        assert not [card for card in world.hands[1] if card[0] != "J" and (card[-1] == "H" or card[0] == "K")], \
            world.hands[1]


def test_a_seat_that_draws_without_must_play_is_dealt_no_card_that_fitted():
    """Tavern (no must_play): seat 1 draws on KH though it may play, so it held no heart and no king."""
    rules = RuleSet.from_preset("tavern")
    state = rig(rules, [["KH", "2C", "3C", "4C", "5C"], ["6S", "7S", "8S", "9S", "10D"]], "9H", ["2D"])
    for world in seat_zeros_worlds(state, [(0, {"type": "play", "cards": ["KH"]}), (1, {"type": "draw"})]):
        assert len(world.hands[1]) == 6
        fitting = [card for card in world.hands[1] if card[-1] == "H" or card[0] in "KJ"]
        assert len(fitting) <= 1, world.hands[1]  # the card it drew may be anything


def test_after_a_reshuffle_the_other_hand_holds_what_was_unseen_and_one_card_of_the_new_stock():
    """Classic, two players: the stock runs out; seat 1, holding nothing that fits, draws: the discard
    pile below its top becomes the stock, and seat 1 takes one of those cards. Seat 0 saw every other
    card go by, so seat 1 holds exactly the cards seat 0 never saw, and one card of the six reshuffled."""
    rules = RuleSet.from_preset("classic", {"must_play": False})
    held_before = ["7C", "8C", "KC", "AC", "7S", "8S", "9S", "AS", "7H", "8H", "10H", "AH"]  # nothing fits QD
    fitting = ["7D", "8D", "9D", "10D", "JD", "KD", "AD", "QH", "QS", "JC", "JS", "JH"]
    state = rig(rules, [["KH", "10S", "QC", *fitting], ["KS", "10C", "QD", *held_before]], "9H", ["9C"])
    moves = [(0, {"type": "play", "cards": ["KH"]}), (1, {"type": "play", "cards": ["KS"]}),
             (0, {"type": "play", "cards": ["10S"]}), (1, {"type": "play", "cards": ["10C"]}),
             (0, {"type": "play", "cards": ["QC"]}), (1, {"type": "play", "cards": ["QD"]}),
             (0, {"type": "draw"})]  # the 9C: the stock is empty, seat 0's turn ends
    pool = {"9H", "KH", "KS", "10S", "10C", "QC"}
    seats = observers(state)
    for seat, action in [*moves, (1, {"type": "draw"})]:
        _, events = apply(state, seat, action)
        for knowledge in seats:
            knowledge.observe(redact_events(events, knowledge.seat))
    assert "reshuffled" in [event["type"] for event in events]
    if state.turn == 1:
        _, events = apply(state, 1, {"type": "pass"})
        seats[0].observe(redact_events(events, 0))
    rng = random.Random(5)
    for _ in range(50):
        world = seats[0].world(player_view(state, 0), rng)
        assert set(held_before) <= set(world.hands[1]), world.hands[1]
        assert len(set(world.hands[1]) & pool) == 1, world.hands[1]
        assert set(world.stock) <= pool


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern", "house"]), seed=st.integers(0, 2**32 - 1),
       players=st.integers(2, 5))
def test_the_true_hands_fill_the_slots_of_every_seats_knowledge(preset, seed, players):
    """Every other hand's unknown cards can be laid in its slots, each in one that allows it, when the
    others play as the basic bot does: what a seat reads from draws, jacks, aces it cannot cover,
    reshuffles and swaps never rules out the truth."""
    rules = RuleSet.from_preset(preset)
    state = new_game(rules, players, seed=seed, first=seed % players)
    seats = observers(state)

    def truth_fits(state: Any, seats: list[Knowledge]) -> None:
        for knowledge in seats:
            for other, slots in knowledge.slots.items():
                unknown = Counter(state.hands[other]) - Counter(knowledge.known.get(other, ()))
                assert sum(unknown.values()) == len(slots)
                assert _fills(list(unknown.elements()), slots), (other, state.hands[other], slots)

    play_basic_round(state, seats, truth_fits)


def _fills(cards: list[str], slots: list[frozenset[str]]) -> bool:
    """Whether every card can take a slot of its own that does not exclude it (a bipartite matching)."""
    holder: list[int | None] = [None] * len(slots)

    def place(index: int, tried: set[int]) -> bool:
        for slot, excluded in enumerate(slots):
            if slot not in tried and cards[index] not in excluded:
                tried.add(slot)
                if holder[slot] is None or place(holder[slot], tried):  # type: ignore[arg-type]
                    holder[slot] = index
                    return True
        return False

    return all(place(index, set()) for index in range(len(cards)))


def _offers(entry: dict[str, Any], action: dict[str, Any]) -> bool:
    if entry.get("as"):
        named = {joker: name[0] if isinstance(name, list) else name for joker, name in entry["as"].items()}
        return {**entry, "as": named}.keys() == action.keys() and entry["cards"] == action["cards"]
    return entry == action


def test_a_hermann_card_drawn_while_a_seven_is_open_leaves_the_penalty_open_in_the_knowledge():
    state = new_game(RuleSet.from_preset("house"), 3, seed=7)
    knowledge = observers(state)[0]
    knowledge.observe([
        {"type": "played", "seat": 1, "cards": ["7D"]},
        {"type": "penalty_grew", "seat": 1, "pending_draw": 2},
        {"type": "drew", "seat": 0, "count": 1, "cards": ["8D"], "reason": "hermann"},
    ])
    assert knowledge.pending == 2  # a Hermann card, a forgotten call or a timeout card is not the 7's
    knowledge.observe([{"type": "drew", "seat": 2, "count": 2, "reason": "seven"}])
    assert knowledge.pending == 0


def test_the_basic_bots_choice_stands_unless_the_search_beats_it_by_the_confidence_asked():
    # move 1 wins 6 worlds in 10 where move 0 (the basic bot's) wins 5: a lead of 0.1, its standard
    # error 0.1 over these worlds
    outcomes = [[1.0, 1.0]] * 5 + [[0.0, 1.0]] + [[0.0, 0.0]] * 4
    assert search.paired_choice(outcomes, 0, confidence=0.5) == 1
    assert search.paired_choice(outcomes, 0, confidence=1.5) == 0
    assert search.paired_choice(outcomes, None, confidence=1.5) == 1  # no basic choice to keep


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern", "house"]), seed=st.integers(0, 2**32 - 1),
       players=st.integers(2, 4))
def test_what_the_search_weighs_is_what_the_hard_bot_chooses_by(preset, seed, players):
    """bench.bot_decisions judges the hard bot's choices from ``search_outcomes``: the same worlds and
    the same choice as ``strong_action`` from the same seed."""
    rules = RuleSet.from_preset(preset)
    state = new_game(rules, players, seed=seed)
    seats = observers(state)
    for _ in range(30):
        if state.status != "active":
            break
        seat = state.turn
        view = player_view(state, seat)
        choice = strong_action(view, seats[seat], random.Random(seed), playouts=12)
        found = search.search_outcomes(view, seats[seat], random.Random(seed), 12)
        if found is not None:
            actions, sensible, outcomes = found
            assert actions[search.paired_choice(outcomes, sensible, search.confidence_for(rules, players))] == choice
        _, events = apply(state, seat, choice)
        for knowledge in seats:
            knowledge.observe(redact_events(events, knowledge.seat))


@SETTINGS
@given(preset=st.sampled_from(["classic", "tavern"]), seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 4]))
def test_where_the_search_shows_no_better_move_the_hard_bot_plays_its_own_play_at_a_table_of_two(
        preset, seed, players):
    """The choice that stands where the search shows none better: at a table of two under these rules
    the seat's own play (``search.OWN_PLAYS``), at a table of four the basic bot's."""
    rules = RuleSet.from_preset(preset)
    state = new_game(rules, players, seed=seed)
    seats = observers(state)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "CONFIDENCE", 1e9)  # no move beats the choice that stands
        patch.setattr(search, "CONFIDENCE_AT", {})
        for _ in range(40):
            if state.status != "active":
                break
            seat = state.turn
            choice = strong_action(player_view(state, seat), seats[seat], random.Random(seed), playouts=8)
            if any(action["type"] == "play" for action in legal_actions(state, seat)) and not state.pending_draw:
                expected = own_play(state, seat) if players == 2 else choose_bot_action(state, seat, "medium", None)
                assert choice == expected
            _, events = apply(state, seat, choice)
            for knowledge in seats:
                knowledge.observe(redact_events(events, knowledge.seat))
