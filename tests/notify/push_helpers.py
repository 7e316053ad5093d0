"""What the push tests do again and again: a card played through the API with its on-commit work run,
a phone subscribed to the test push service."""

from __future__ import annotations

from typing import Any

from bench.push_service import PushService


def play_card(client: Any, gid: int, card: str, capture: Any) -> None:
    with capture(execute=True):
        answer = client.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": [card]}, format="json")
    assert answer.status_code == 200, answer.content


def subscribe_phone(client: Any, service: PushService, name: str) -> dict[str, Any]:
    sub = service.subscribe(name)
    answer = client.post("/api/v1/me/push-subscriptions", {**sub.browser_json(), "name": "Phone"}, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()
