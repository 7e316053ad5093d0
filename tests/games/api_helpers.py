"""Helpers for API tests: rigged practice deals, HTTP verbs, card scans, playing a round out."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from rest_framework.test import APIClient

from games import engine
from games.engine.cards import build_deck

CARD = re.compile(r"^(?:10|[2-9JQKA])[CSHD]$|^X\d+$")


def deck_for(rules: str, options: dict[str, Any] | None = None) -> list[str]:
    effective = engine.RuleSet.from_preset(rules, options or {}).to_json()
    return build_deck(effective["deck"], effective.get("jokers", 0))


def setup_for(rules: str, hands: list[list[str]], starter: str, stock_top: list[str] = (),  # type: ignore[assignment]
              options: dict[str, Any] | None = None, first: int | None = None) -> dict[str, Any]:
    """A practice deal: named hands, starter and top of the stock; the rest of the deck below."""
    named = [c for hand in hands for c in hand] + [starter, *stock_top]
    assert len(named) == len(set(named)), "a card is named twice"
    rest = [c for c in deck_for(rules, options) if c not in set(named)]
    setup: dict[str, Any] = {"hands": hands, "starter": starter, "stock": [*stock_top, *rest]}
    if first is not None:
        setup["first"] = first
    return setup


def cards_in(value: Any, skip_keys: frozenset[str] = frozenset({"as", "as_choices"})) -> set[str]:
    """Every card code anywhere in a JSON value (the names a joker may take, under "as" and "as_choices",
    are names, not cards)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in skip_keys:
                found |= cards_in(item, skip_keys)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item, skip_keys)
    elif isinstance(value, str) and CARD.match(value):
        found.add(value)
    return found


class Table:
    """A table driven over HTTP by its host (and whoever else joined)."""

    def __init__(self, host: APIClient, data: dict[str, Any]) -> None:
        self.host = host
        self.id = data["id"]
        self.data = data

    def join(self, client: APIClient) -> Any:
        return client.post(f"/api/v1/tables/{self.id}/join", format="json")

    def bot(self, level: str = "basic", client: APIClient | None = None) -> Any:
        return (client or self.host).post(f"/api/v1/tables/{self.id}/bots", {"level": level}, format="json")

    def start(self, client: APIClient | None = None, **body: Any) -> Any:
        return (client or self.host).post(f"/api/v1/tables/{self.id}/rounds", body, format="json")


def act(client: APIClient, game_id: int, action: dict[str, Any], **headers: str) -> Any:
    return client.post(f"/api/v1/games/{game_id}/actions", action, format="json", **headers)


def view(client: APIClient, game_id: int) -> dict[str, Any]:
    response = client.get(f"/api/v1/games/{game_id}")
    assert response.status_code == 200, response.content
    return response.json()


def play_out(clients: dict[int, APIClient], game_id: int, choose: Callable[[list[dict[str, Any]]], dict[str, Any]],
             limit: int = 5000) -> Iterator[tuple[int, dict[str, Any], Any]]:
    """Drive a round over HTTP: each seat's client plays ``choose(legal_actions)`` when it may act.

    Yields (seat, action, response) for every POST until the round is over.
    """
    for _ in range(limit):
        acted = False
        for seat, client in clients.items():
            state = view(client, game_id)
            if state["status"] != "active":
                return
            if state["legal_actions"]:
                action = choose(state["legal_actions"])
                response = act(client, game_id, {**action, "expected_version": state["version"]})
                yield seat, action, response
                acted = True
                break
        if not acted:
            raise AssertionError("nobody may act in an active round")
    raise AssertionError("the round did not end")


def resolve(action: dict[str, Any], pick: Callable[[list[Any]], Any] = lambda names: names[0]) -> dict[str, Any]:
    """A legal action as POSTable: a joker named by a list of allowed names gets one of them."""
    names = action.get("as")
    if isinstance(names, dict) and any(isinstance(v, list) for v in names.values()):
        return {**action, "as": {k: pick(v) if isinstance(v, list) else v for k, v in names.items()}}
    return action


