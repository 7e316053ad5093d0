"""Properties of random games of every preset and of random option combinations (Hypothesis).

Every game is driven by bots and random legal choices of all seats (calls and Hermann included),
with clock actions now and then. After each action the game must still hold exactly the deck; at
each step legal actions must be accepted and plausible actions that are not offered must be refused
without any change; views and redacted events must not show another seat's cards; and the JSON form
and the replay from seed and actions must reproduce the state exactly.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

from engine_helpers import all_cards, deck_of
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.engine import (
    GameState,
    IllegalAction,
    RuleSet,
    RulesError,
    apply,
    choose_bot_action,
    legal_actions,
    new_game,
    parse_action,
    player_view,
    redact_events,
)
from games.engine.cards import SUITS, card_names, is_joker
from games.engine.rules import OPTION_BOUNDS

CARD = re.compile(r'"(X[1-8]|(?:10|[2-9JQKA])[CSHD])"')
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def cards_in(data: Any) -> set[str]:
    """Every card code anywhere in a JSON value (keys included)."""
    return set(CARD.findall(json.dumps(data)))


def resolve(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal-action entry may offer a joker's name as a list (docs/api.md): pick one name to send."""
    names = action.get("as")
    if not names:
        return action
    return {**action, "as": {j: rng.choice(n) if isinstance(n, list) else n for j, n in names.items()}}


def offered(action: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
    """Whether ``action`` is one of the legal entries (calls in ``say`` are optional)."""
    for entry in legal:
        if entry["type"] != action["type"]:
            continue
        if entry["type"] == "say":
            if entry["word"] == action["word"]:
                return True
            continue
        if entry["type"] != "play":
            return True
        if entry["cards"] != action["cards"]:
            continue
        names = entry.get("as", {})
        if any(
            action.get("as", {}).get(joker) not in (name if isinstance(name, list) else [name])
            for joker, name in names.items()
        ):
            continue
        if "wish" in entry and action.get("wish") != entry["wish"]:
            continue
        if "target" in entry and action.get("target") != entry["target"]:
            continue
        return True
    return False


def plausible_actions(state: GameState, seat: int, rng: random.Random) -> list[dict[str, Any]]:
    """Well-formed actions a client might send: some legal, most not."""
    hand = state.hands[seat]
    names = card_names(state.rules.deck)
    actions: list[dict[str, Any]] = [{"type": "draw"}, {"type": "pass"}]
    for size in (1, 1, 2, 3):
        if len(hand) < size:
            continue
        cards = rng.sample(hand, size)
        action: dict[str, Any] = {"type": "play", "cards": cards}
        jokers = [card for card in cards if is_joker(card)]
        if jokers:
            action["as"] = {joker: rng.choice(names) for joker in jokers}
        if rng.random() < 0.5:
            action["wish"] = rng.choice(SUITS)
        if rng.random() < 0.3:  # another seat (naming oneself is refused as a malformed target)
            action["target"] = rng.choice([other for other in range(len(state.hands)) if other != seat])
        actions.append(action)
    return actions


def check_conserved(state: GameState, deck: Counter) -> None:
    assert Counter(all_cards(state)) == deck
    assert state.top == state.discard[-1] or is_joker(state.discard[-1])


def check_views(state: GameState) -> None:
    for viewer in [None, *range(len(state.hands))]:
        view = player_view(state, viewer)
        json.dumps(view)  # JSON-ready
        hidden = {card for seat, hand in enumerate(state.hands) if seat != viewer for card in hand}
        hidden |= set(state.stock)
        hidden -= {state.top}  # a joker's name may be any card
        assert not cards_in(view) & hidden, f"view of {viewer} shows hidden cards"
        assert "seed" not in view
        if viewer is not None:
            assert view["hand"] == state.hands[viewer]


def check_redaction(state: GameState, events: list[dict[str, Any]]) -> None:
    public = {state.top}
    for event in events:
        if event["type"] == "played":
            public |= set(event["cards"]) | set(event.get("as", {}).values())
    for viewer in [None, *range(len(state.hands))]:
        redacted = redact_events(events, viewer)
        # what the viewer drew is theirs to see, even if a QH swap later in the same move took it away
        own = {card for e in events if e["type"] == "drew" and e["seat"] == viewer for card in e["cards"]}
        hidden = {card for seat, hand in enumerate(state.hands) if seat != viewer for card in hand} - own
        hidden |= set(state.stock)
        leaked = (cards_in(redacted) & hidden) - public
        assert not leaked, f"events for {viewer} show hidden cards {sorted(leaked)}: {redacted}"
        for original, shown in zip(events, redacted, strict=True):
            if original["type"] == "drew":
                assert shown["count"] == original["count"]
                if original["seat"] != viewer:
                    assert not shown.get("cards")
                else:
                    assert shown["cards"] == original["cards"]
    assert redact_events(events, None, reveal=True) == events


def check_legal_and_illegal(state: GameState, rng: random.Random) -> None:
    """Offered actions are accepted; plausible actions not offered are refused, leaving no trace."""
    before = state.to_json()
    for seat in range(len(state.hands)):
        legal = legal_actions(state, seat)
        for entry in rng.sample(legal, min(2, len(legal))):
            copy = state.copy()
            apply(copy, seat, parse_action(resolve(entry, rng)))
        if seat != state.turn and rng.random() < 0.7:
            continue
        for action in plausible_actions(state, seat, rng):
            if offered(action, legal):
                apply(state.copy(), seat, parse_action(action))
                continue
            if action["type"] == "play" and any(
                entry.get("cards") and sorted(entry["cards"]) == sorted(action["cards"]) for entry in legal
            ):
                continue  # the same cards in another order (final jacks are offered in one order)
            try:
                apply(state, seat, parse_action(action))
            except IllegalAction as refusal:
                if seat != state.turn:
                    assert refusal.code == "not_your_turn"
            else:
                raise AssertionError(f"seat {seat} was allowed {action}, which legal_actions does not offer")
            assert state.to_json() == before, f"refused {action} changed the state"


def choose(state: GameState, rng: random.Random, levels: list[str]) -> tuple[int | None, dict[str, Any]]:
    """The next action: mostly the bot of the seat on turn, sometimes anyone's legal move or the clock."""
    if state.hermann_open and rng.random() < 0.15:
        return None, {"type": "hermann_timeout"}
    if rng.random() < 0.04:
        return None, {"type": "timeout"}
    if rng.random() < 0.3:
        options = [(seat, entry) for seat in range(len(state.hands)) for entry in legal_actions(state, seat)]
        seat, entry = rng.choice(options)
        return seat, resolve(entry, rng)
    seat = state.turn
    return seat, choose_bot_action(state, seat, levels[seat], rng)


def run_game(rules: RuleSet, players: int, seed: int, strict: bool) -> None:
    rng = random.Random(seed)
    levels = [rng.choice(["random", "basic"]) for _ in range(players)]
    state = new_game(rules, players=players, seed=seed, first=seed % players)
    deck = Counter(deck_of(rules))
    start = state.to_json()
    ledger: list[tuple[int | None, dict[str, Any]]] = []
    fork_at = rng.randrange(1, 40)
    fork: GameState | None = None
    all_events: list[list[dict[str, Any]]] = []
    limit = rules.max_turns * 4 + 200
    check_conserved(state, deck)
    while state.status == "active":
        assert len(ledger) < limit, "the game does not end"
        if strict:
            check_legal_and_illegal(state, rng)
            check_views(state)
        seat, action = choose(state, rng, levels)
        clock = seat is None
        _, events = apply(state, seat, parse_action(action, clock=clock))
        ledger.append((seat, action))
        all_events.append(events)
        json.dumps(events)
        check_conserved(state, deck)
        check_redaction(state, events)
        if fork is not None:
            _, fork_events = apply(fork, seat, parse_action(action, clock=clock))
            assert fork_events == events
        if len(ledger) == fork_at:
            fork = GameState.from_json(json.loads(json.dumps(state.to_json())))
            assert fork.to_json() == state.to_json()
    # each game ends, within max_turns, with a result that ranks every seat once
    assert state.turns <= rules.max_turns
    result = state.result
    assert result["reason"] in ("mau_mau", "stalemate", "max_turns")
    assert sorted(row["seat"] for row in result["players"]) == list(range(players))
    if result["reason"] == "mau_mau":
        assert state.hands[result["winner"]] == []
    else:
        assert result["winner"] is None
    assert legal_actions(state, state.turn) == []
    check_views(state)
    # JSON round trip of the final state, and the fork taken from JSON mid-game ended the same way
    assert GameState.from_json(json.loads(json.dumps(state.to_json()))).to_json() == state.to_json()
    if fork is not None:
        assert fork.to_json() == state.to_json()
    # replay: same rules, seed and actions give the same state and the same events
    replay = GameState.from_json(start)
    fresh = new_game(RuleSet.from_json(rules.to_json()), players=players, seed=seed, first=seed % players)
    assert fresh.to_json() == start
    for (seat, action), events in zip(ledger, all_events, strict=True):
        _, again = apply(replay, seat, parse_action(action, clock=seat is None))
        assert again == events
    assert replay.to_json() == state.to_json()


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_random_classic_games(seed, players):
    run_game(RuleSet.from_preset("classic"), players, seed, strict=True)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 8))
def test_random_tavern_games(seed, players):
    run_game(RuleSet.from_preset("tavern"), players, seed, strict=True)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6))
def test_random_house_games(seed, players):
    run_game(RuleSet.from_preset("house"), players, seed, strict=True)


@st.composite
def option_sets(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    preset = draw(st.sampled_from(["classic", "tavern", "house"]))
    joker = draw(st.booleans())
    nine = draw(st.sampled_from(["reverses", "skips_second", "none"]))
    options = {
        "deck": draw(st.sampled_from(["skat32", "french52"])),
        "joker": joker,
        "jokers": draw(st.integers(0, 3)) if joker else 0,
        "players": [2, 4],
        "hand_size": draw(st.integers(1, 7)),
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
        "ace_needs_cover": draw(st.booleans()),
        "queen_of_hearts_swap": draw(st.booleans()),
        "king_of_diamonds_hermann": draw(st.booleans()),
        "pik_call": draw(st.booleans()),
        "announcements": draw(st.booleans()),
        "penalize_illegal": draw(st.booleans()),
        "final_jacks": draw(st.booleans()),
        "timeout_policy": draw(st.sampled_from(["autoplay", "penalty", "skip"])),
        "scoring": draw(st.sampled_from(["ranking", "wins", "points"])),
        "max_turns": draw(st.integers(5, 300)),
    }
    return preset, options


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choice=option_sets(), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_random_option_combinations(choice, seed, players):
    preset, options = choice
    rules = RuleSet.from_preset(preset, options)
    assert RuleSet.from_json(rules.to_json()) == rules
    run_game(rules, players, seed, strict=seed % 2 == 0)


def whole_numbers(option: str) -> st.SearchStrategy[int]:
    """Values of a whole-number option: inside its bounds, at them, just past them, and absurd."""
    low, high = OPTION_BOUNDS[option]
    inside = st.integers(1, 8) if option == "hand_size" else st.integers(low, min(high, low + 50))
    return st.one_of(inside, st.sampled_from([low, high, low - 1, high + 1, 10**12, -(10**12), 2**63]))


@st.composite
def any_option_sets(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """Overrides as a client might send them, absurd numbers included (most sets are still accepted)."""
    preset = draw(st.sampled_from(["classic", "tavern", "house"]))
    options: dict[str, Any] = {}
    for option in OPTION_BOUNDS:
        if draw(st.booleans()):
            options[option] = draw(whole_numbers(option))
    if draw(st.booleans()):
        options["players"] = draw(st.sampled_from([[2, 4], [2, 2], [3, 4], [2, 10**12], [-(10**12), 4]]))
    for flag in ("joker", "must_play", "king_of_diamonds_hermann", "queen_of_hearts_swap", "penalize_illegal"):
        if draw(st.booleans()):
            options[flag] = draw(st.booleans())
    if draw(st.booleans()):
        options["timeout_policy"] = draw(st.sampled_from(["autoplay", "penalty", "skip"]))
    return preset, options


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(choice=any_option_sets(), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_any_accepted_option_set_deals_a_round_and_plays_it_to_its_end(choice, seed, players):
    preset, options = choice
    try:
        rules = RuleSet.from_preset(preset, options)
    except RulesError as refused:
        assert refused.option in RuleSet.__dataclass_fields__, refused  # the refusal names an option
        assume(False)
    for option, (low, high) in OPTION_BOUNDS.items():
        assert low <= getattr(rules, option) <= high
    assume(rules.min_players <= players <= rules.max_players)
    run_game(rules, players, seed, strict=False)
