"""docs/rules.md, "The presets": every rule set is a preset of one configuration; options are validated by name."""

from __future__ import annotations

import pytest

from games.engine import RuleSet, RulesError

PRESET_TABLES = {
    "classic": {
        "deck": "skat32", "jokers": 0, "players": [2, 5], "hand_size": 5, "must_play": True,
        "starter_effects": False, "seven_draws": 2, "seven_then_play": False, "eight_skips": True,
        "nine_reverses": True, "ace_skips": False, "jack_wild": True, "jack_on_jack": True,
        "jack_can_win": True, "scoring": "ranking", "turn_seconds": 60, "timeout_policy": "autoplay",
        "max_turns": 1000, "ace_needs_cover": False, "pik_call": False, "announcements": False,
        "league_limit": 0,
    },
    "tavern": {
        "deck": "french52", "jokers": 0, "players": [2, 8], "hand_size": 5, "must_play": False,
        "starter_excludes": ["7", "8", "J"], "seven_draws": 2, "seven_then_play": False,
        "eight_skips": True, "nine_reverses": False, "jack_on_jack": True, "jack_can_win": True,
        "scoring": "wins", "turn_seconds": 60, "timeout_policy": "autoplay", "max_turns": 1000,
        "ace_skips": False, "pik_call": False,
    },
    "house": {
        "deck": "french52", "jokers": 3, "players": [2, 6], "hand_size": 8, "must_play": True,
        "seven_draws": 2, "eight_skips": True, "nine_skips_second": True, "ten_reverses": True,
        "joker": True, "ace_needs_cover": True, "jack_on_jack": "first_wished_suit",
        "queen_of_hearts_swap": True, "king_of_diamonds_hermann": True, "hermann_seconds": 10,
        "pik_call": True, "announcements": True, "penalize_illegal": True, "turn_seconds": 5,
        "timeout_policy": "penalty", "final_jacks": True, "scoring": "points", "league_limit": 500,
        "max_turns": 1000, "seven_then_play": False,
    },
}


@pytest.mark.parametrize("preset", sorted(PRESET_TABLES))
def test_presets_follow_the_rules_tables(preset):
    rules = RuleSet.from_preset(preset)
    data = rules.to_json()
    assert data["rules"] == preset == rules.name
    for option, value in PRESET_TABLES[preset].items():
        assert data[option] == value, option


@pytest.mark.parametrize("preset", sorted(PRESET_TABLES))
def test_ruleset_json_round_trip(preset):
    rules = RuleSet.from_preset(preset, {"hand_size": 4, "max_turns": 50})
    data = rules.to_json()
    assert RuleSet.from_json(data) == rules
    assert RuleSet.from_json(data).to_json() == data


def test_every_option_can_be_overridden_per_table():
    rules = RuleSet.from_preset("tavern", {"nine_reverses": True, "jack_on_jack": "first_wished_suit",
                                           "turn_seconds": 86400, "timeout_policy": "skip"})
    assert rules.nine_reverses and rules.jack_on_jack == "first_wished_suit"
    assert rules.turn_seconds == 86400 and rules.timeout_policy == "skip"


def raises_for(option, preset="classic", **overrides):
    with pytest.raises(RulesError) as caught:
        RuleSet.from_preset(preset, overrides)
    assert caught.value.option == option
    assert option in str(caught.value)
    return caught.value


def test_unknown_option_is_named():
    raises_for("hand_sise", hand_sise=5)


def test_unknown_preset():
    with pytest.raises(RulesError):
        RuleSet.from_preset("skat")


@pytest.mark.parametrize(
    "option,value",
    [
        ("hand_size", "5"),
        ("hand_size", 5.0),
        ("hand_size", True),  # bool is an int in Python, not an option value
        ("seven_draws", False),
        ("turn_seconds", None),
        ("must_play", 1),
        ("must_play", "true"),
        ("jack_on_jack", "sometimes"),
        ("jack_on_jack", 1),
        ("jack_on_jack", 0),
        ("scoring", "golf"),
        ("timeout_policy", "pray"),
        ("deck", "tarot78"),
        ("players", 4),
        ("players", [2, True]),
        ("starter_excludes", "7"),
    ],
)
def test_wrong_type_is_named(option, value):
    raises_for(option, **{option: value})


@pytest.mark.parametrize(
    "preset,overrides,option",
    [
        ("classic", {"players": [2, 7]}, "players"),  # 7 hands of 5 and a starter: 36 > 32
        ("classic", {"hand_size": 8}, "hand_size"),  # 5 hands of 8: 41 > 32; the override is named
        ("tavern", {"players": [2, 11]}, "players"),  # 56 > 52
        ("classic", {"hand_size": 0}, "hand_size"),
        ("classic", {"jokers": 2}, "jokers"),  # jokers without the joker rule could never be played
        ("house", {"nine_reverses": True}, "nine_skips_second"),
        ("tavern", {"starter_excludes": ["1"]}, "starter_excludes"),
        ("classic", {"max_turns": 0}, "max_turns"),
        ("classic", {"turn_seconds": -1}, "turn_seconds"),
    ],
)
def test_impossible_combination_is_named(preset, overrides, option):
    raises_for(option, preset, **overrides)


@pytest.mark.parametrize(
    "option,value",
    [
        ("turn_seconds", 30 * 24 * 3600 + 1),  # a turn of at most 30 days
        ("turn_seconds", 10**12),  # would be a deadline past the year 9999
        ("hermann_seconds", 30 * 24 * 3600 + 1),
        ("hermann_seconds", 10**20),
        ("max_turns", 10_001),
        ("max_turns", 2**63),  # past a database column
        ("seven_draws", 11),
        ("league_limit", 10**12),
        ("hand_size", 10**12),
        ("jokers", -1),
    ],
)
def test_every_number_has_a_bound_and_the_refusal_names_the_option(option, value):
    raises_for(option, "house", **{option: value})


def test_the_bounds_themselves_are_accepted():
    assert RuleSet.from_preset("house", {"turn_seconds": 30 * 24 * 3600, "hermann_seconds": 30 * 24 * 3600,
                                         "max_turns": 10_000, "seven_draws": 10, "league_limit": 1_000_000})


def test_a_rank_excluded_twice_is_refused():
    raises_for("starter_excludes", "tavern", starter_excludes=["7", "7"])


def test_largest_table_that_the_deck_can_deal_is_allowed():
    rules = RuleSet.from_preset("classic", {"players": [2, 6]})  # 6 * 5 + 1 = 31 <= 32
    assert rules.max_players == 6


def test_stored_rules_read_back_never_take_true_for_1():
    """from_json keeps a cache of read rules: a boolean where a number belongs is still refused
    after the same value as a number was read (True == 1 in Python)."""
    stored = RuleSet.from_preset("classic", {"hand_size": 1}).to_json()
    assert RuleSet.from_json(stored).hand_size == 1
    with pytest.raises(RulesError) as refused:
        RuleSet.from_json({**stored, "hand_size": True})
    assert refused.value.option == "hand_size"
    with pytest.raises(RulesError):
        RuleSet.from_json({**stored, "must_play": 1})


def test_rules_json_is_a_fresh_copy_each_time():
    rules = RuleSet.from_preset("tavern")
    first = rules.to_json()
    first["players"].append(99)
    first["hand_size"] = 0
    assert rules.to_json() == RuleSet.from_preset("tavern").to_json()
    assert RuleSet.from_json(rules.to_json()) == rules
    with pytest.raises(RulesError) as refused:  # a value that cannot be cached is still validated
        RuleSet.from_json({**rules.to_json(), "extra": {"a": 1}})
    assert refused.value.option == "extra"


def test_stored_rules_read_back_take_a_tuple_as_a_list_and_never_1_0_for_1():
    stored = RuleSet.from_preset("classic", {"hand_size": 6}).to_json()
    as_tuples = {**stored, "players": tuple(stored["players"]), "starter_excludes": tuple(stored["starter_excludes"])}
    assert RuleSet.from_json(as_tuples) == RuleSet.from_json(stored)
    with pytest.raises(RulesError) as refused:
        RuleSet.from_json({**stored, "hand_size": 6.0})
    assert refused.value.option == "hand_size"
    with pytest.raises(RulesError):  # not cacheable (a set), still validated
        RuleSet.from_json({**stored, "starter_excludes": {"J"}})
