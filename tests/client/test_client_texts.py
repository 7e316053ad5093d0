"""Every text the web client shows exists in German, English and French (client/static/client/i18n.js),
and every key the screens ask for by name is one of them."""

from __future__ import annotations

import re
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "client" / "static" / "client"


def table(source: str, name: str) -> set[str]:
    body = re.search(rf"^const {name} = \{{\n(.*?)^\}};", source, re.MULTILINE | re.DOTALL)
    assert body, name
    return set(re.findall(r'"([a-z_.A-Z0-9]+)":', body.group(1)))


def test_the_three_languages_have_the_same_texts() -> None:
    source = (CLIENT / "i18n.js").read_text()
    english = table(source, "en")
    assert len(english) > 150
    assert table(source, "de") == english
    assert table(source, "fr") == english


def test_every_text_a_screen_names_is_translated() -> None:
    english = table((CLIENT / "i18n.js").read_text(), "en")
    named = set()
    for module in CLIENT.glob("*.js"):
        named |= set(re.findall(r'\bt\(\s*"([^"]+)"', module.read_text()))
    assert named, "no t(\"...\") calls found"
    assert named <= english, sorted(named - english)
