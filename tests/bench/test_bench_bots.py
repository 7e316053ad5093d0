"""The bot benchmark's yardstick, its shown-hands ceiling and its medium control measure what they say they do."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from bench.bots import (
    ShownKnowledge,
    against_earlier,
    deal,
    lead,
    main,
    own_play_game,
    play_round,
    sensible_random,
    strong_game,
    yardstick_game,
)
from games.engine import (
    PRESETS,
    Knowledge,
    build_deck,
    deal_event,
    legal_actions,
    new_game,
    player_view,
    redact_events,
    search,
)
from games.engine.playouts import playout


def sensible_round(number: int, rng: random.Random) -> int:
    """Play one tavern round (where a seat may draw instead of playing) with every seat playing
    sensible random, checking each choice; the number of turns taken."""
    state = new_game(PRESETS["tavern"], 4, seed=f"sensible-{number}")
    turns = 0

    def choose(seat: int) -> dict | None:
        nonlocal turns
        actions = legal_actions(state, seat)
        action = sensible_random(state, seat, rng)
        if action is not None and action["type"] != "say":
            turns += 1
            assert any(a["type"] == "play" for a in actions) == (action["type"] == "play")
        return action

    play_round(state, choose)
    assert state.status != "active"
    return turns


def test_sensible_random_play_lays_a_card_whenever_one_is_legal_and_never_draws_by_choice() -> None:
    rng = random.Random(3)
    assert all(sensible_round(number, rng) > 0 for number in range(40))


def test_yardstick_games_replay_from_their_number() -> None:
    first = [yardstick_game(("house", 4, number, "basic")) for number in range(6)]
    assert first == [yardstick_game(("house", 4, number, "basic")) for number in range(6)]
    assert {won for *_, won in first} <= {True, False}


def test_the_shown_hands_worlds_hold_the_true_hands_and_every_card_once() -> None:
    rules = PRESETS["tavern"]
    state = new_game(rules, 4, seed="shown-hands")
    knowledge = ShownKnowledge(rules, 1, state)
    knowledge.observe(redact_events([deal_event(state)], 1))
    rng = random.Random(5)
    worlds = knowledge.worlds(player_view(state, 1), rng)
    for _ in range(5):
        world = worlds.world(rng, 4)
        assert world.hands == state.hands
        assert sorted(world.stock) == sorted(state.stock)
        every = Counter(world.stock) + Counter(world.discard) + sum((Counter(h) for h in world.hands), Counter())
        assert every == Counter(build_deck(rules.deck, rules.jokers))


def test_the_medium_control_plays_the_basic_bot_in_the_hard_seat_without_searching() -> None:
    control = strong_game("tavern", 4, 7, 50, 0, medium=True)
    assert control["searches"] == 0 and control["playouts"] == 0
    assert strong_game("tavern", 4, 7, 50, 0)["searches"] > 0


def test_the_lead_over_medium_pairs_the_games_by_deal() -> None:
    hard = [{"number": 1, "won": True}, {"number": 2, "won": False}, {"number": 3, "won": True}]
    medium = [{"number": 3, "won": False}, {"number": 1, "won": True}, {"number": 2, "won": True}]
    found = lead(hard, medium)
    assert found["deals"] == 3 and found["hard_only"] == 1 and found["medium_only"] == 1
    assert found["difference"] == 0.0
    assert found["interval_95"][0] < 0 < found["interval_95"][1]


def test_a_run_against_an_earlier_report_pairs_only_the_deals_both_played() -> None:
    earlier = {"budget": {"seed_start": 10}, "win_rates": {"tavern_2p": {"games": 4, "deals_won": [10, 11, 13]}}}
    report = {"budget": {"seed_start": 12},
              "win_rates": {"tavern_2p": {"games": 4, "deals_won": [12, 14, 15]},
                            "classic_2p": {"games": 4, "deals_won": [12]}}}
    against_earlier(report, earlier)
    found = report["win_rates"]["tavern_2p"]["against_earlier"]  # deals 12 and 13: 12 won now, 13 then
    assert found["deals"] == 2 and found["now_only"] == 1 and found["before_only"] == 1
    assert found["difference"] == 0.0
    assert "against_earlier" not in report["win_rates"]["classic_2p"]  # the earlier run did not play it


def test_two_runs_of_one_search_on_the_same_deals_agree_game_for_game(tmp_path, capsys) -> None:
    command = ["--games", "3", "--playouts", "30", "--seed-start", "40", "--line-ups", "tavern_2p", "--processes", "1",
               "--yardstick-games", "0", "--latency-moves", "0"]
    main(command)
    first = tmp_path / "first.json"
    first.write_text(capsys.readouterr().out)
    main([*command[:5], "41", *command[6:], "--against", str(first)])
    found = json.loads(capsys.readouterr().out)["win_rates"]["tavern_2p"]["against_earlier"]
    assert found == {"deals": 2, "difference": 0.0, "interval_95": [0.0, 0.0], "now_only": 0, "before_only": 0}


def test_an_against_file_that_is_no_report_of_the_bench_is_refused(tmp_path, capsys) -> None:
    for text in ("[1, 2]", "not json", '{"own_play": {}}'):
        path = tmp_path / "earlier.json"
        path.write_text(text)
        with pytest.raises(SystemExit) as stopped:
            main(["--games", "1", "--against", str(path), "--yardstick-games", "0", "--latency-moves", "0"])
        assert stopped.value.code == 2 and "--against: not a report of this bench" in capsys.readouterr().err


def test_worlds_told_a_share_of_the_hands_hold_that_share_and_forget_it_after() -> None:
    """bench.bot_decisions' partly shown worlds: share 1 deals every other hand as it is, share 0.5
    about half of each hand's cards, and the seat's own knowledge is as before once the worlds are made."""
    from bench.bot_decisions import PartlyShownKnowledge

    state = new_game(PRESETS["tavern"], 4, seed="partly-shown")
    rng = random.Random(5)
    for share, least, most in ((1.0, 5, 5), (0.5, 2, 5), (0.0, 0, 5)):
        knowledge = PartlyShownKnowledge(state.rules, 0, state, share, random.Random(9))
        knowledge.observe(redact_events([deal_event(state)], 0))
        before = {other: list(cards) for other, cards in knowledge.known.items()}
        told_right = []
        for _ in range(20):
            world = knowledge.worlds(player_view(state, 0), rng).world(rng)
            assert player_view(world, 0) == player_view(state, 0)
            told_right += [len(set(world.hands[other]) & set(state.hands[other])) for other in (1, 2, 3)]
            assert knowledge.known == before
        assert least <= min(told_right) and max(told_right) <= most
        if share == 0.5:
            assert 2.2 < sum(told_right) / len(told_right) < 3.6  # 2 or 3 told, and a guessed one now and then


def test_a_smaller_budget_weighs_the_first_worlds_of_a_larger_one() -> None:
    """bench.bot_decisions --budgets judges the search at a smaller budget by a prefix of the rows of
    the larger one: that is what the search at that budget weighs from the same seed."""
    from bench.bot_decisions import prefix

    for preset, players in (("tavern", 2), ("house", 4)):
        state = new_game(PRESETS[preset], players, seed="budgets")
        knowledge = Knowledge(state.rules, state.turn)
        knowledge.observe(redact_events([deal_event(state)], state.turn))
        view = player_view(state, state.turn)
        large = search.search_outcomes(view, knowledge, random.Random(3), 60)
        small = search.search_outcomes(view, knowledge, random.Random(3), 25)
        assert large is not None and small is not None
        assert large[0] == small[0] and large[1] == small[1]
        assert len(small[2]) < len(large[2])
        assert prefix(large[2], 25) == small[2]


def test_a_variants_smaller_budget_is_judged_by_its_first_worlds_against_the_bots_search() -> None:
    """--budgets-of engine: the variant's first rows choose, and its gain is set against the search's
    at the full budget. Here the variant's first world favours the better move and its later ones the
    worse, so at one world it gains what the search (always medium's move) does not."""
    from bench.bot_decisions import budget_report

    decision = {"sensible": 0, "true": [0.2, 0.5], "outcomes": [[1.0, 0.0]] * 4,
                "engine": [[0.0, 1.0]] + [[1.0, 0.0]] * 3}
    games = [{"number": 1, "won": False, "decisions": [decision]}]
    found = budget_report(games, [2, 8], 0.0, "engine")
    assert found["playouts_2"]["gain_per_game"]["mean"] == 0.3
    assert found["playouts_2"]["this_minus_search"]["mean"] == 0.3
    assert found["playouts_2"]["choices_unlike_the_full_budget"] == 1
    assert found["playouts_8"]["this_minus_search"]["mean"] == 0.0
    assert "this_minus_search" not in budget_report(games, [2], 0.0)["playouts_2"]


def test_a_variant_weighs_each_decision_with_its_constants_and_puts_them_back() -> None:
    """bench.bot_decisions --variant: the other search runs with the constants given (playouts cut after
    one decision score the hands' sizes, a share between 0 and 1), and the bot's own are as before."""
    from bench.bot_decisions import judged_game

    game = judged_game("tavern", 2, 11, 20, 4, {"variant": ({"CUTOFF": 1}, 20)})
    weighed = [decision["variant"] for decision in game["decisions"] if decision.get("variant")]
    assert weighed and search.CUTOFF == 0
    assert any(0 < reward < 1 for rows in weighed for row in rows for reward in row)
    assert all(reward in (0.0, 1.0) for decision in game["decisions"] for row in decision["outcomes"]
               for reward in row)


def test_the_report_compares_the_bot_and_the_ceiling_at_the_line_ups_confidence() -> None:
    """At confidence 0.5 the search's modest lead replaces medium's choice, as the ceiling's does; a
    stricter confidence would keep medium's and count the two as choosing otherwise."""
    from bench.bot_decisions import report

    modest = [[1.0, 1.0]] * 5 + [[0.0, 1.0]] + [[0.0, 0.0]] * 4
    decision = {"sensible": 0, "outcomes": modest, "ceiling": [[0.0, 1.0]] * 10, "true": [0.4, 0.6], "cpu": 0.1}
    found = report([{"number": 1, "won": True, "decisions": [decision]}], 0.5)
    assert found["search_and_ceiling"]["same_choice"] == 1
    assert report([{"number": 1, "won": True, "decisions": [decision]}], 1.5)["search_and_ceiling"][
        "different_choice"] == 1



def test_the_own_play_measure_plays_the_seat_by_its_own_weights_then_as_the_playouts_basic_bot() -> None:
    """``--own-play-games``: a deal's second game is the playouts' basic bot in every seat, its first the
    seat's own weights; they differ on some deals, and each replays from its number."""
    differing = 0
    for number in range(60):
        found = own_play_game(("classic", 2, number))
        assert own_play_game(("classic", 2, number)) == found
        state = deal("classic", 2, number)
        playout(state, random.Random(number).random, basic=True)
        assert found[4] == (state.result["winner"] == number % 2)
        differing += found[3] != found[4]
    assert differing
