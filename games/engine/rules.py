"""Rule sets: one frozen configuration, three presets (``classic``, ``tavern``, ``house``).

Every option of docs/rules.md is a field of :class:`RuleSet`; a preset is a set of values for them and
any option may be overridden per table. An option that a set's table in docs/rules.md does not list is
off there, with these readings (**Decision**, each closest to its seed):

- ``jack_wild`` is on in ``tavern`` and ``house`` too: their tables describe wild, wishing jacks
  ("a jack fits on everything", "a jack changes the suit by a wish") under ``jack_on_jack``.
- ``jack_can_win`` is on in ``house``: seed 004 lays final jacks on the last card and knows no
  "Nicht mit dem Buben gewinnen"; that restriction is seed 000's option only.
- A joker is never the starter: like an excluded rank it goes to the bottom of the stock and the
  next card is turned (it has no name yet, so it could not be matched).

Impossible combinations are refused: more players than the deck can deal (the error names
``players`` or ``hand_size``, whichever the overrides changed; tavern's practice deal of 7 cards
takes ``{"hand_size": 7, "players": [2, 7]}``), jokers without the
joker rule (they could never be played), ``nine_reverses`` with ``nine_skips_second`` (the 9 cannot
do both), excluding every rank from the starter, or ranks the deck does not have.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache
from typing import Any

from .cards import DECK_RANKS, MAX_JOKERS

TIMEOUT_POLICIES = ("autoplay", "penalty", "skip")

#: Inclusive bounds of every whole-number option. Each is checked here, so an accepted option set
#: can always deal, time and finish a round: a deadline stays a date a database can store, a
#: penalty fits the deck, and the turn count a column. (Hands and players are bounded by the deck.)
OPTION_BOUNDS: dict[str, tuple[int, int]] = {
    "jokers": (0, MAX_JOKERS),
    "hand_size": (1, 60),
    "seven_draws": (0, 10),
    "hermann_seconds": (1, 30 * 24 * 3600),
    "turn_seconds": (0, 30 * 24 * 3600),  # 0 = no limit; 30 days at most (correspondence play)
    "league_limit": (0, 1_000_000),  # 0 = no limit
    "max_turns": (1, 10_000),
}
SCORINGS = ("ranking", "wins", "points")
JACK_ON_JACK = (True, False, "first_wished_suit")


class RulesError(ValueError):
    """An option is unknown, of the wrong type, or impossible; ``option`` names it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}")
        self.option = option
        self.message = message


@dataclass(frozen=True, slots=True)
class RuleSet:
    name: str = "classic"
    deck: str = "skat32"
    jokers: int = 0
    players: tuple[int, int] = (2, 5)
    hand_size: int = 5
    must_play: bool = False
    starter_effects: bool = False
    starter_excludes: tuple[str, ...] = ()
    seven_draws: int = 0
    seven_then_play: bool = False
    eight_skips: bool = False
    nine_reverses: bool = False
    nine_skips_second: bool = False
    ten_reverses: bool = False
    ace_skips: bool = False
    jack_wild: bool = False
    jack_on_jack: bool | str = False
    jack_can_win: bool = False
    joker: bool = False
    ace_needs_cover: bool = False
    queen_of_hearts_swap: bool = False
    king_of_diamonds_hermann: bool = False
    hermann_seconds: int = 10
    pik_call: bool = False
    announcements: bool = False
    penalize_illegal: bool = False
    final_jacks: bool = False
    turn_seconds: int = 0
    timeout_policy: str = "skip"
    scoring: str = "ranking"
    league_limit: int = 0
    max_turns: int = 1000

    @property
    def min_players(self) -> int:
        return self.players[0]

    @property
    def max_players(self) -> int:
        return self.players[1]

    @property
    def deck_size(self) -> int:
        return len(DECK_RANKS[self.deck]) * 4 + self.jokers

    @classmethod
    def from_preset(cls, name: str, overrides: dict[str, Any] | None = None) -> RuleSet:
        """The preset ``name`` with ``overrides`` applied and the result validated."""
        if name not in PRESETS:
            raise RulesError("rules", f"unknown rule set {name!r}; choose one of {', '.join(PRESETS)}")
        if overrides is not None and not isinstance(overrides, dict):
            raise RulesError("options", "must be an object of option names and values")
        return _build(PRESETS[name], overrides or {})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RuleSet:
        """Inverse of :meth:`to_json` (validated like any override).

        Every stored round holds its rules, and every move reads them back: equal data gives the
        same (immutable) RuleSet from a small cache, keyed by the data's canonical JSON (one C-level
        pass; JSON tells ``true`` from ``1`` and ``1`` from ``1.0``, and the options take a list and a
        tuple alike). Refused data is never cached."""
        try:
            key = json.dumps(data, sort_keys=True)
        except (TypeError, ValueError):  # a value JSON cannot hold, keys that do not sort: no cache
            return _rules_from_json(dict(data))
        return _rules_from_key(key)

    def to_json(self) -> dict[str, Any]:
        data = dict(_rules_json(self))
        data["players"] = list(self.players)
        data["starter_excludes"] = list(self.starter_excludes)
        return data


@lru_cache(maxsize=256)
def _rules_json(rules: RuleSet) -> dict[str, Any]:
    """The JSON of a RuleSet, computed once per distinct RuleSet (callers get a copy)."""
    data = asdict(rules)
    data["rules"] = data.pop("name")
    return data


@lru_cache(maxsize=256)
def _rules_from_key(key: str) -> RuleSet:
    return _rules_from_json(json.loads(key))


def _rules_from_json(data: dict[str, Any]) -> RuleSet:
    name = data.pop("rules", "classic")
    if name not in PRESETS:
        raise RulesError("rules", f"unknown rule set {name!r}")
    return _build(PRESETS[name], data)


_BOOL_OPTIONS = {f.name for f in fields(RuleSet) if f.type == "bool"}
_INT_OPTIONS = {f.name for f in fields(RuleSet) if f.type == "int"}
_OPTION_NAMES = {f.name for f in fields(RuleSet)} - {"name"}


def _build(base: RuleSet, overrides: dict[str, Any]) -> RuleSet:
    values: dict[str, Any] = {}
    for option, value in overrides.items():
        if option not in _OPTION_NAMES:
            raise RulesError(str(option)[:64], "unknown option")  # echoed back: no longer than a name
        values[option] = _coerce(option, value)
    rules = replace(base, **values)
    _validate(rules, blame="players" if "players" in values or "hand_size" not in values else "hand_size")
    return rules


def _coerce(option: str, value: Any) -> Any:
    if option in _BOOL_OPTIONS:
        if not isinstance(value, bool):
            raise RulesError(option, "must be true or false")
        return value
    if option in _INT_OPTIONS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(option, "must be a whole number")
        return value
    if option == "jack_on_jack":
        if value not in JACK_ON_JACK or (not isinstance(value, (bool, str))):
            raise RulesError(option, 'must be true, false or "first_wished_suit"')
        return value
    if option == "players":
        if (
            not isinstance(value, (list, tuple))
            or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
        ):
            raise RulesError(option, "must be [fewest, most] as two whole numbers")
        return (value[0], value[1])
    if option == "starter_excludes":
        if not isinstance(value, (list, tuple)) or any(not isinstance(v, str) for v in value):
            raise RulesError(option, "must be a list of ranks")
        return tuple(value)
    if option in ("deck", "timeout_policy", "scoring"):
        if not isinstance(value, str):
            raise RulesError(option, "must be a string")
        return value
    raise RulesError(option, "unknown option")  # pragma: no cover - every option is typed above


def _validate(rules: RuleSet, blame: str = "players") -> None:
    if rules.deck not in DECK_RANKS:
        raise RulesError("deck", f"must be one of {', '.join(DECK_RANKS)}")
    for option, (low, high) in OPTION_BOUNDS.items():
        if not low <= getattr(rules, option) <= high:
            raise RulesError(option, f"must be between {low} and {high}")
    if rules.jokers and not rules.joker:
        raise RulesError("jokers", "jokers in the deck need the joker rule (joker: true)")
    fewest, most = rules.players
    if fewest < 2:
        raise RulesError("players", "at least two players")
    if most < fewest:
        raise RulesError("players", "the most must not be fewer than the fewest")
    if most * rules.hand_size + 1 > rules.deck_size:
        raise RulesError(
            blame,
            f"{most} hands of {rules.hand_size} and a starter need {most * rules.hand_size + 1} cards;"
            f" the deck has {rules.deck_size}",
        )
    ranks = DECK_RANKS[rules.deck]
    if len(set(rules.starter_excludes)) != len(rules.starter_excludes):
        raise RulesError("starter_excludes", "name each rank once")
    for rank in rules.starter_excludes:
        if rank not in ranks:
            raise RulesError("starter_excludes", f"the deck has no rank {rank!r}")
    if set(ranks) <= set(rules.starter_excludes):
        raise RulesError("starter_excludes", "some rank must be allowed as the starter")
    if rules.nine_reverses and rules.nine_skips_second:
        raise RulesError("nine_skips_second", "the 9 cannot both reverse and skip the second player")
    if rules.timeout_policy not in TIMEOUT_POLICIES:
        raise RulesError("timeout_policy", f"must be one of {', '.join(TIMEOUT_POLICIES)}")
    if rules.scoring not in SCORINGS:
        raise RulesError("scoring", f"must be one of {', '.join(SCORINGS)}")


CLASSIC = RuleSet(
    name="classic",
    deck="skat32",
    players=(2, 5),
    hand_size=5,
    must_play=True,
    seven_draws=2,
    eight_skips=True,
    nine_reverses=True,
    jack_wild=True,
    jack_on_jack=True,
    jack_can_win=True,
    turn_seconds=60,
    timeout_policy="autoplay",
    scoring="ranking",
)
TAVERN = RuleSet(
    name="tavern",
    deck="french52",
    players=(2, 8),
    hand_size=5,
    must_play=False,
    starter_excludes=("7", "8", "J"),
    seven_draws=2,
    eight_skips=True,
    jack_wild=True,
    jack_on_jack=True,
    jack_can_win=True,
    turn_seconds=60,
    timeout_policy="autoplay",
    scoring="wins",
)
HOUSE = RuleSet(
    name="house",
    deck="french52",
    jokers=3,
    players=(2, 6),
    hand_size=8,
    must_play=True,
    seven_draws=2,
    eight_skips=True,
    nine_skips_second=True,
    ten_reverses=True,
    jack_wild=True,
    jack_on_jack="first_wished_suit",
    jack_can_win=True,
    joker=True,
    ace_needs_cover=True,
    queen_of_hearts_swap=True,
    king_of_diamonds_hermann=True,
    hermann_seconds=10,
    pik_call=True,
    announcements=True,
    penalize_illegal=True,
    final_jacks=True,
    turn_seconds=5,
    timeout_policy="penalty",
    scoring="points",
    league_limit=500,
)
PRESETS: dict[str, RuleSet] = {"classic": CLASSIC, "tavern": TAVERN, "house": HOUSE}
