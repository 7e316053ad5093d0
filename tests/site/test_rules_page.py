"""The rules page's table of presets says what the engine's presets are, option by option."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from games.engine.rules import OPTION_BOUNDS, PRESETS, RuleSet

RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def page_value(text: str) -> Any:
    text = text.strip().strip("`")
    if text in ("yes", "no"):
        return text == "yes"
    if text == "–":
        return []
    if re.fullmatch(r"\d+–\d+", text):
        return [int(n) for n in text.split("–")]
    if text.isdigit():
        return int(text)
    if "," in text:
        return [part.strip() for part in text.split(",")]
    return text


def engine_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def test_the_rules_page_lists_every_option_with_each_presets_default() -> None:
    rows = {}
    for line in RULES_PAGE.read_text().splitlines():
        match = re.match(r"\| `(\w+)`[^|]*\|(.*)\|\s*$", line)
        if match:
            rows[match.group(1)] = [page_value(cell) for cell in match.group(2).split("|")]
    options = [f.name for f in fields(RuleSet) if f.name != "name"]
    assert sorted(rows) == sorted(options)
    for option in options:
        assert rows[option] == [engine_value(getattr(PRESETS[name], option)) for name in
                                ("classic", "tavern", "house")], option


def test_the_rules_page_states_every_bound_the_engine_enforces() -> None:
    text = " ".join(RULES_PAGE.read_text().split())
    for option, (low, high) in OPTION_BOUNDS.items():
        assert f"`{option}` {low}–{high}" in text, option
