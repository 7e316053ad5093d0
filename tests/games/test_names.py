"""Names are shown to everyone: one that hides characters or reorders the text around it is refused
with a validation error, in every field a client names (players, leagues)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.models import League, Player

pytestmark = pytest.mark.django_db

TRICKS = [
    "Ada\u202eevE",       # right-to-left override
    "\u2067Ada\u2069",    # right-to-left isolate
    "Ad\u200ba",          # zero-width space
    "Ad\u200da",          # zero-width joiner
    "\ufeffAda",          # byte order mark
    "Ada\u0000",          # NUL
    "Ada\x1b[31m",        # terminal escape
    "Ada\nBo",            # line break
    "Ada\u2028Bo",        # line separator
    "Ada\u00a0Bo",        # no-break space
    "Ada\ue000",          # private use
    "\u3164",             # Hangul filler: looks like nothing
    "Ada\ufe0f",          # variation selector
    "\u0301\u0301",       # marks alone
    "\u200b",             # nothing visible at all
]


def sign_up(name: Any) -> Any:
    return APIClient().post("/api/v1/players", {"name": name}, format="json")


@pytest.mark.parametrize("name", TRICKS)
def test_a_player_name_that_hides_or_reorders_characters_is_refused(name: str) -> None:
    response = sign_up(name)
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "validation_error" and error["details"]["fields"]["name"]
    assert not Player.objects.exists()


@pytest.mark.parametrize("name", TRICKS[:4])
def test_a_league_name_that_hides_or_reorders_characters_is_refused(name: str,
                                                                    make_player: Callable[..., Any]) -> None:
    response = make_player("Ada").post("/api/v1/leagues", {"name": name, "rules": "classic"}, format="json")
    assert response.status_code == 400 and response.json()["error"]["details"]["fields"]["name"]
    assert not League.objects.exists()


def test_names_are_stored_trimmed_and_in_composed_form() -> None:
    response = sign_up("  Zoe\u0308 Ma\u0301rquez  ")
    assert response.status_code == 201
    assert response.json()["name"] == "Zo\u00eb M\u00e1rquez" == Player.objects.get().name


@pytest.mark.parametrize("name", ["Ada", "Jürgen Groß", "李小龍", "محمد", "Zoë-Anne O'Neil", "🂡 Ace", "नमस्ते"])
def test_names_in_any_script_pass(name: str) -> None:
    response = sign_up(name)
    assert response.status_code == 201 and response.json()["name"] == name


def test_the_refusal_says_which_character() -> None:
    details = sign_up("Ada\u202e").json()["error"]["details"]
    assert "U+202E" in details["fields"]["name"][0]
