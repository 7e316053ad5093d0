"""A private table answers anyone without a seat at it exactly as a table that does not exist (404,
the same body), on every table endpoint, reads and writes; a seated player who is not the host still
gets 403 for what only the host may do."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db

MISSING = 999_999

#: (method, path after /tables/{id}, body) of every table endpoint.
ENDPOINTS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("get", "", None),
    ("get", "/scoreboard", None),
    ("get", "/messages", None),
    ("post", "/messages", {"text": "hello"}),
    ("post", "/mute", {"player": 1, "muted": True}),
    ("post", "/join", {}),
    ("post", "/join", {"invite_code": "wrong"}),
    ("post", "/leave", None),
    ("post", "/entropy", {"entropy": "abc"}),
    ("post", "/bots", {"level": "basic"}),
    ("post", "/rounds", {}),
    ("post", "/reclaim", None),
]


def _call(client: Any, method: str, url: str, body: dict[str, Any] | None) -> Any:
    return getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_a_private_table_answers_an_outsider_as_a_missing_table(make_table, make_player, method, path, body) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    table = make_table("classic", visibility="private")
    eve = make_player("Eve")
    missing = _call(eve, method, f"/api/v1/tables/{MISSING}{path}", body)
    private = _call(eve, method, f"/api/v1/tables/{table.id}{path}", body)
    assert missing.status_code == 404
    assert (private.status_code, private.json()) == (missing.status_code, missing.json())


def test_a_seated_non_host_of_a_private_table_gets_403_for_host_only_actions(make_table, make_player) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    table = make_table("classic", visibility="private")
    bob = make_player("Bob")
    assert bob.post(f"/api/v1/tables/{table.id}/join", {"invite_code": table.data["invite_code"]},
                    format="json").status_code == 200
    assert bob.get(f"/api/v1/tables/{table.id}/scoreboard").status_code == 200
    assert bob.post(f"/api/v1/tables/{table.id}/bots", {"level": "basic"}, format="json").status_code == 403
    assert bob.post(f"/api/v1/tables/{table.id}/rounds", {}, format="json").status_code == 403
    assert bob.post(f"/api/v1/tables/{table.id}/entropy", {"entropy": "abc"}, format="json").status_code == 200
    assert bob.post(f"/api/v1/tables/{table.id}/leave").status_code == 200
