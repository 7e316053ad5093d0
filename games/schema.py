"""The game's named OpenAPI components: cards, suits, calls, rule options, actions and events.

Clients generate types from ``/api/schema/``; every shape that appears in more than one place is
written once here and referred to by ``$ref`` (:func:`ref`), so a generator makes one type of it.
:func:`add_components` (a drf-spectacular postprocessing hook) puts them into the schema. Actions
and events are unions told apart by ``type`` (a discriminator), so a generated client can switch on
it. OpenAPI 3.1: a value that may be null is ``{"type": [..., "null"]}`` or ``oneOf`` with
``{"type": "null"}`` (:func:`nullable`).
"""

from __future__ import annotations

from typing import Any

from games.engine.actions import MAX_CARDS_PER_PLAY, WORDS
from games.engine.cards import DECK_RANKS, FRENCH_RANKS, JOKERS, MAX_JOKERS, SUITS
from games.engine.rules import CLASSIC, HOUSE, JACK_ON_JACK, SCORINGS, TAVERN, TIMEOUT_POLICIES
from maumau.params import QUERY_INT_MAX

Schema = dict[str, Any]

RULE_SETS = ["classic", "tavern", "house"]
PRESETS = {"classic": CLASSIC, "tavern": TAVERN, "house": HOUSE}
#: Seats at one table; also bounds every seat number a client sends.
MAX_SEATS = 16
#: The most cards one deck holds (52 and every joker): bounds hands, stocks and card lists.
MAX_DECK = len(FRENCH_RANKS) * len(SUITS) + MAX_JOKERS
CARD_PATTERN = rf"^(?:(?:[2-9]|10|[JQKA])[CSHD]|X[1-{MAX_JOKERS}])$"
SUITED_CARD_PATTERN = r"^(?:[2-9]|10|[JQKA])[CSHD]$"
#: The bounds of the whole-number options (see games.serializers.RuleOptionsField).
OPTION_LIMITS: dict[str, tuple[int, int]] = {
    "jokers": (0, MAX_JOKERS),
    "hand_size": (1, MAX_DECK),
    "seven_draws": (0, 16),
    "hermann_seconds": (1, 3600),
    "turn_seconds": (0, 30 * 24 * 3600),
    "league_limit": (0, 1_000_000),
    "max_turns": (1, 100_000),
}
#: Why a seat drew as a penalty (``drew.reason``; null: a draw of its own will).
DRAW_REASONS = ["illegal", "seven", "timeout", "jack_last", "hermann", *(f"forgot_{word}" for word in WORDS)]
RESULT_REASONS = ["mau_mau", "stalemate", "max_turns", "resigned", "aborted"]


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: Schema) -> Schema:
    """``schema`` or null, the OpenAPI 3.1 way."""
    if "$ref" in schema or "oneOf" in schema or "allOf" in schema or "enum" in schema:
        return {"oneOf": [schema, {"type": "null"}]}
    kind = schema["type"]
    return {**schema, "type": [*([kind] if isinstance(kind, str) else kind), "null"]}


def cards(max_items: int = MAX_DECK, **more: Any) -> Schema:
    return {"type": "array", "items": ref("Card"), "maxItems": max_items, "uniqueItems": True, **more}


SEAT = {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1}


# --- rule options ---------------------------------------------------------------------------------


def _option_schema(name: str, default: Any) -> Schema:
    enums = {"deck": "Deck", "timeout_policy": "TimeoutPolicy", "scoring": "Scoring"}
    if name in enums:
        return ref(enums[name])
    if name == "jack_on_jack":
        words = [value for value in JACK_ON_JACK if isinstance(value, str)]
        return {"oneOf": [{"type": "boolean"}, {"type": "string", "enum": words}],
                "description": "Whether a jack may go on a jack (`first_wished_suit`: only on the first wish)."}
    if name == "players":
        return {"type": "array", "items": {"type": "integer", "minimum": 2, "maximum": MAX_SEATS}, "minItems": 2,
                "maxItems": 2, "description": "[fewest, most]"}
    if name == "starter_excludes":
        return {"type": "array", "items": ref("Rank"), "uniqueItems": True, "maxItems": len(FRENCH_RANKS),
                "description": "Ranks that are never the starter."}
    if isinstance(default, bool):
        return {"type": "boolean"}
    low, high = OPTION_LIMITS[name]
    return {"type": "integer", "minimum": low, "maximum": high}


OPTION_SCHEMAS = {name: _option_schema(name, default) for name, default in CLASSIC.to_json().items() if name != "rules"}


def _preset_options(rules: str) -> Schema:
    """The effective options of one preset: its defaults named, every option present."""
    defaults = PRESETS[rules].to_json()
    return {
        "type": "object",
        "properties": {"rules": {"type": "string", "enum": [rules]},
                       **{name: {**schema, "default": defaults[name]} if "$ref" not in schema else schema
                          for name, schema in OPTION_SCHEMAS.items()}},
        "required": ["rules", *OPTION_SCHEMAS],
        "description": f"The effective options of a `{rules}` table: the preset merged with its overrides.",
    }


# --- actions --------------------------------------------------------------------------------------

EXPECTED_VERSION = {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX,
                    "description": "409 version_conflict if the game has moved on."}


def _action(kind: str, description: str, properties: Schema | None = None, required: tuple[str, ...] = (),
            expected_version: bool = True) -> Schema:
    return {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": [kind]}, **(properties or {}),
                       **({"expected_version": EXPECTED_VERSION} if expected_version else {})},
        "required": ["type", *required],
        "additionalProperties": False,
        "description": description,
    }


def _union(names: list[str], description: str) -> Schema:
    return {
        "oneOf": [ref(name) for name in names],
        "discriminator": {"propertyName": "type",
                          "mapping": {_kind(name): f"#/components/schemas/{name}" for name in names}},
        "description": description,
    }


_KINDS: dict[str, str] = {}


def _kind(name: str) -> str:
    return _KINDS[name]


ACTIONS: dict[str, Schema] = {
    "PlayAction": _action("play", "Lay cards; a listed play carries the wish, names, target and calls it needs.", {
        "cards": cards(MAX_CARDS_PER_PLAY, minItems=1, description="In the order they are laid."),
        "wish": nullable(ref("Suit")),
        "as": nullable(ref("JokerNames")),
        "target": nullable({**SEAT, "description": "Seat to swap hands with (QH)."}),
        "say": nullable({"type": "array", "items": ref("CallWord"), "maxItems": len(WORDS)}),
        "as_choices": {**ref("JokerChoices"),
                       "description": "In `legal_actions` only: every name each joker may take here with the "
                                      "same outcome (`as` holds the first). Ignored when posted."},
    }, ("cards",)),
    "DrawAction": _action("draw", "Take one card, or the whole open penalty of sevens."),
    "PassAction": _action("pass", "Keep the drawn card, or pass when nothing is left to draw."),
    "SayAction": _action("say", "Say a call (on turn or not).", {"word": ref("CallWord")}, ("word",)),
    "ResignAction": _action("resign", "Give the round up, on turn or not: you rank last."),
}
#: Actions the ledger records that no client sends: the clocks' and the host's abort.
LEDGER_ONLY_ACTIONS: dict[str, Schema] = {
    "TimeoutAction": _action("timeout", "The turn's clock ran out (the table's timeout_policy resolved it).",
                             expected_version=False),
    "HermannTimeoutAction": _action("hermann_timeout", "The Hermann race's time was up.", expected_version=False),
    "AbortAction": _action("abort", "The host ended the round before its first move.", expected_version=False),
}
for _name, _schema in {**ACTIONS, **LEDGER_ONLY_ACTIONS}.items():
    _KINDS[_name] = _schema["properties"]["type"]["enum"][0]


# --- events ---------------------------------------------------------------------------------------


def _event(kind: str, description: str, properties: Schema, required: tuple[str, ...] | None = None) -> Schema:
    return {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": [kind]}, **properties},
        "required": ["type", *(properties if required is None else required)],
        "description": description,
    }


SEAT_OF = {"seat": SEAT}
EVENTS: dict[str, Schema] = {
    "DealtEvent": _event("dealt", "The deal (the round's first ledger row). Other seats' hands are null until "
                                  "the round is over.", {
        "hands": {"type": "array", "items": nullable(cards()), "maxItems": MAX_SEATS},
        "hand_counts": {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": MAX_SEATS,
                        "description": "Cards in each hand (absent in a revealed deal)."},
        "starter": ref("Card"),
        "first": SEAT,
        "stock_count": {"type": "integer", "minimum": 0},
    }, ("hands", "starter", "first", "stock_count")),
    "PlayedEvent": _event("played", "Cards laid, in order.", {
        **SEAT_OF, "cards": cards(MAX_CARDS_PER_PLAY), "as": ref("JokerNames")}, ("seat", "cards")),
    "DrewEvent": _event("drew", "Cards taken from the stock; `cards` only for the drawer (or once revealed).", {
        **SEAT_OF, "count": {"type": "integer", "minimum": 0}, "cards": cards(),
        "reason": {**nullable(ref("DrawReason")), "description": "The penalty; null: a draw of the seat's own "
                                                                 "will."},
    }, ("seat", "count", "reason")),
    "PassedEvent": _event("passed", "The seat passed.", SEAT_OF),
    "SaidEvent": _event("said", "The seat said a call.", {**SEAT_OF, "word": ref("CallWord")}),
    "MauEvent": _event("mau", "The seat holds one card, and it has been said.", SEAT_OF),
    "PenaltyGrewEvent": _event("penalty_grew", "A seven: the open penalty grew.", {
        **SEAT_OF, "pending_draw": {"type": "integer", "minimum": 0}}),
    "WishEvent": _event("wish", "A jack's wish.", {**SEAT_OF, "suit": ref("Suit")}),
    "HandsSwappedEvent": _event("hands_swapped", "The queen of hearts: two seats swapped hands.", {
        "seats": {"type": "array", "items": SEAT, "minItems": 2, "maxItems": 2}}),
    "HermannStartedEvent": _event("hermann_started", "The king of diamonds: the Hermann race began.", SEAT_OF),
    "HermannClosedEvent": _event("hermann_closed", "The Hermann race is over; the losers drew.", {
        "losers": {"type": "array", "items": SEAT, "maxItems": MAX_SEATS}}),
    "DirectionEvent": _event("direction", "The direction of play changed.", {
        "direction": ref("Direction")}),
    "SkippedEvent": _event("skipped", "The seat's turn was skipped.", SEAT_OF),
    "TurnEvent": _event("turn", "The seat is on turn.", SEAT_OF),
    "ReshuffledEvent": _event("reshuffled", "The discard pile became the stock.", {
        "count": {"type": "integer", "minimum": 0}}),
    "TimeoutEvent": _event("timeout", "The seat's clock ran out; `policy` resolved it.", {
        **SEAT_OF, "policy": ref("TimeoutPolicy")}),
    "RoundOverEvent": _event("round_over", "The round is over.", {"result": ref("EventResult")}),
    "ResignedEvent": _event("resigned", "The seat gave the round up.", SEAT_OF),
    "AbortedEvent": _event("aborted", "The host ended the round before its first move.", SEAT_OF),
}
for _name, _schema in EVENTS.items():
    _KINDS[_name] = _schema["properties"]["type"]["enum"][0]

RESULT_LINE_PROPERTIES: Schema = {
    "seat": SEAT,
    "rank": {"type": "integer", "minimum": 1},
    "cards_left": {"type": "integer", "minimum": 0},
    "raw_points": {"type": "integer"},
    "multiplier": {"type": "integer"},
    "points": {"type": "integer"},
    "won": {"type": "boolean"},
    "resigned": {"type": "boolean", "description": "Set for the player who resigned."},
}


def components() -> dict[str, Schema]:
    """Every component of this module, by name."""
    suited = {"type": "string", "pattern": SUITED_CARD_PATTERN, "description": "A card that is not a joker."}
    found: dict[str, Schema] = {
        "Card": {"type": "string", "pattern": CARD_PATTERN,
                 "description": "A card code: rank then suit (`10H`, `QS`), or a joker `X1`..`X8`."},
        "SuitedCard": suited,
        "Suit": {"type": "string", "enum": list(SUITS), "description": "C clubs, S spades, H hearts, D diamonds."},
        "Rank": {"type": "string", "enum": list(FRENCH_RANKS)},
        "CallWord": {"type": "string", "enum": list(WORDS)},
        "Rules": {"type": "string", "enum": RULE_SETS, "description": "A preset of rules (see the rules page)."},
        "Deck": {"type": "string", "enum": list(DECK_RANKS)},
        "Direction": {"type": "integer", "enum": [1, -1], "description": "1: clockwise (seat numbers up); -1."},
        "ResultReason": {"type": "string", "enum": RESULT_REASONS},
        "DrawReason": {"type": "string", "enum": DRAW_REASONS, "description": "Why a seat drew as a penalty."},
        "TimeoutPolicy": {"type": "string", "enum": list(TIMEOUT_POLICIES)},
        "Scoring": {"type": "string", "enum": list(SCORINGS)},
        "JokerNames": {"type": "object", "properties": {joker: ref("SuitedCard") for joker in JOKERS},
                       "additionalProperties": False, "description": 'The card each joker stands for: {"X1": "7S"}.'},
        "JokerChoices": {"type": "object",
                         "properties": {joker: {"type": "array", "items": ref("SuitedCard"), "minItems": 1}
                                        for joker in JOKERS},
                         "additionalProperties": False},
        "RuleOptionOverrides": {"type": "object", "properties": OPTION_SCHEMAS, "additionalProperties": False,
                                "description": "Overrides of the preset's options (see the rules page)."},
        **{f"{rules.capitalize()}Options": _preset_options(rules) for rules in RULE_SETS},
        "RuleOptions": {
            "oneOf": [ref(f"{rules.capitalize()}Options") for rules in RULE_SETS],
            "discriminator": {"propertyName": "rules", "mapping": {
                rules: f"#/components/schemas/{rules.capitalize()}Options" for rules in RULE_SETS}},
            "description": "Effective options: the preset (`rules`) merged with the overrides.",
        },
        "DealSetup": {
            "type": "object",
            "properties": {
                "hands": {"type": "array", "items": cards(), "minItems": 2, "maxItems": MAX_SEATS,
                          "description": "One hand per seated player, by seat."},
                "starter": ref("Card"),
                "stock": cards(description="Top first."),
                "first": {**SEAT, "description": "Seat that opens (default 0)."},
            },
            "required": ["hands", "starter"],
            "additionalProperties": False,
            "description": "A fixed deal (practice): hands, starter and stock are exactly the table's deck.",
        },
        **ACTIONS,
        **LEDGER_ONLY_ACTIONS,
        "Action": _union(list(ACTIONS), "One action, told apart by `type`. Each of the view's `legal_actions` can "
                                        "be sent as it is."),
        "LedgerAction": _union([*ACTIONS, *LEDGER_ONLY_ACTIONS], "An action as the ledger recorded it: a "
                                                                 "player's, a bot's, a clock's or the host's."),
        **EVENTS,
        "Event": _union(list(EVENTS), "One engine event, redacted for the caller; told apart by `type`."),
        "EventResultLine": {"type": "object", "properties": RESULT_LINE_PROPERTIES,
                            "required": [name for name in RESULT_LINE_PROPERTIES if name != "resigned"]},
        "EventResult": {"type": "object", "properties": {
            "winner": nullable(SEAT), "reason": ref("ResultReason"),
            "multiplier": {"type": "integer"},
            "players": {"type": "array", "items": ref("EventResultLine"), "maxItems": MAX_SEATS}},
            "required": ["winner", "reason", "multiplier", "players"],
            "description": "A round's result as the engine records it (seats, not players)."},
    }
    return found


def add_components(result: Schema, generator: Any, request: Any, public: bool) -> Schema:
    """POSTPROCESSING_HOOKS: the components above, and ``MoveResult`` as the view plus its events."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in components().items():
        schemas[name] = schema
    for path in result.get("paths", {}).values():
        for operation in path.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if body and body.get("content", {}).get("application/json", {}).get("schema") == ref("Action"):
                body["required"] = True
    if "MoveResult" in schemas:
        events = schemas["MoveResult"]["properties"]["events"]
        schemas["MoveResult"] = {
            "allOf": [ref("GameView"), {"type": "object", "properties": {"events": events}, "required": ["events"]}],
            "description": "The new view of the caller, and what happened.",
        }
    return result
