"""Actions: parsed from client JSON into one normalized dict shape, rendered back as JSON.

Client actions (what each does in play: docs/rules.md):

- ``{"type": "play", "cards": ["7S"], "wish": "D"?, "as": {"X1": "7S"}?, "target": 2?, "say": [...]?}``
  ``cards`` in the order they are laid (an ace before its cover, final jacks last); ``wish`` after a
  jack; ``as`` names each joker; ``target`` is the seat for the QH swap; ``say`` carries calls.
  ``as_choices`` (the names a listed play's jokers may take) is accepted and ignored, so that a
  listed action can be posted as it is.
- ``{"type": "draw"}``: one card, or the whole open 7 penalty.
- ``{"type": "pass"}``: keep the drawn card, or nothing is left to draw.
- ``{"type": "say", "word": "mau" | "maumau" | "pik" | "hermann"}``.
- ``{"type": "resign"}``: give the round up (any time, on turn or not).
- ``{"type": "abort"}``: end the round before its first move, unscored (the service lets only the
  table's host send it, through ``POST /games/{id}/abort``).

Clock actions, never accepted from a client: ``{"type": "timeout"}`` (the turn holder's clock ran
out; the table's ``timeout_policy`` resolves it) and ``{"type": "hermann_timeout"}`` (the KD race's
time is up). Parsing checks shape and vocabulary only; whether a well-formed action is allowed now
is the engine's question (:class:`~games.engine.legality.IllegalAction`).
"""

from __future__ import annotations

from typing import Any

from .cards import SUITS, is_card_code, is_joker

WORDS = ("mau", "maumau", "pik", "hermann")
CLIENT_TYPES = ("play", "draw", "pass", "say", "resign", "abort")
CLOCK_TYPES = ("timeout", "hermann_timeout")
_PLAY_KEYS = {"type", "cards", "wish", "as", "target", "say", "as_choices"}
MAX_CARDS_PER_PLAY = 64


class ActionError(ValueError):
    """A malformed action (HTTP 400 ``validation_error``); ``details`` names the field."""

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


def parse_action(data: Any, clock: bool = False) -> dict[str, Any]:
    """Validate the shape of ``data`` and return the normalized action dict.

    Unknown keys are refused rather than ignored, so that a client that sends ``hand`` or
    ``seat`` learns at once that it cannot choose them.
    """
    if not isinstance(data, dict):
        raise ActionError("an action must be a JSON object", {"field": "action"})
    kind = data.get("type")
    allowed = CLIENT_TYPES + CLOCK_TYPES if clock else CLIENT_TYPES
    if kind not in allowed:
        raise ActionError(
            f"unknown action type; use one of {', '.join(allowed)}", {"field": "type", "value": _safe(kind)}
        )
    if kind == "play":
        extra = set(data) - _PLAY_KEYS
        if extra:
            raise ActionError("unknown fields in a play", {"fields": sorted(str(k) for k in extra)})
        _parse_choices(data.get("as_choices"))
        return {
            "type": "play",
            "cards": _parse_cards(data.get("cards")),
            "wish": _parse_wish(data.get("wish")),
            "as": _parse_names(data.get("as")),
            "target": _parse_target(data.get("target")),
            "say": _parse_say(data.get("say")),
        }
    if kind == "say":
        extra = set(data) - {"type", "word"}
        if extra:
            raise ActionError("unknown fields in a call", {"fields": sorted(str(k) for k in extra)})
        word = data.get("word")
        if word not in WORDS:
            raise ActionError(f"word must be one of {', '.join(WORDS)}", {"field": "word", "value": _safe(word)})
        return {"type": "say", "word": word}
    extra = set(data) - {"type"}
    if extra:
        raise ActionError(f"unknown fields in a {kind}", {"fields": sorted(str(k) for k in extra)})
    return {"type": kind}


def _safe(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)[:40]


def _parse_cards(cards: Any) -> list[str]:
    if not isinstance(cards, list) or not cards:
        raise ActionError("cards must be a non-empty list of card codes", {"field": "cards"})
    if len(cards) > MAX_CARDS_PER_PLAY:
        raise ActionError("too many cards", {"field": "cards"})
    for card in cards:
        if not is_card_code(card):
            raise ActionError("unknown card code", {"field": "cards", "value": _safe(card)})
    if len(set(cards)) != len(cards):
        raise ActionError("a card is listed twice", {"field": "cards"})
    return list(cards)


def _parse_wish(wish: Any) -> str | None:
    if wish is None or wish in SUITS:
        return wish
    raise ActionError(f"wish must be one of {', '.join(SUITS)}", {"field": "wish", "value": _safe(wish)})


def _parse_names(names: Any) -> dict[str, str]:
    if names is None:
        return {}
    if not isinstance(names, dict):
        raise ActionError('"as" must map each joker to a card, like {"X1": "7S"}', {"field": "as"})
    for joker, name in names.items():
        if not is_card_code(joker) or not is_joker(joker):
            raise ActionError('"as" names jokers only', {"field": "as", "value": _safe(joker)})
        if not is_card_code(name) or is_joker(name):
            raise ActionError("a joker must be named as a suited card", {"field": "as", "value": _safe(name)})
    return dict(names)


def _parse_choices(choices: Any) -> None:
    """``as_choices`` comes with a listed play posted as it is: checked for its shape, then dropped."""
    if choices is None:
        return
    if not isinstance(choices, dict):
        raise ActionError('"as_choices" must map jokers to lists of cards', {"field": "as_choices"})
    for joker, names in choices.items():
        if not is_card_code(joker) or not is_joker(joker):
            raise ActionError('"as_choices" names jokers only', {"field": "as_choices", "value": _safe(joker)})
        if (not isinstance(names, list) or not names or len(names) > 64
                or any(not is_card_code(name) or is_joker(name) for name in names)):
            raise ActionError('"as_choices" lists suited cards', {"field": "as_choices"})


def _parse_target(target: Any) -> int | None:
    if target is None:
        return None
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < 64:
        raise ActionError("target must be a seat number", {"field": "target", "value": _safe(target)})
    return target


def _parse_say(say: Any) -> list[str]:
    if say is None:
        return []
    if not isinstance(say, list) or len(say) > len(WORDS) or any(word not in WORDS for word in say):
        raise ActionError(f"say must be a list of {', '.join(WORDS)}", {"field": "say"})
    return list(dict.fromkeys(say))
