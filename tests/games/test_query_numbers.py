"""Numbers in query strings beyond what the service counts are malformed input (400), never a 500:
a 20-digit offset fits no database column."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db

HUGE = str(2**70)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/games/{game}/events?after=" + HUGE,
        "/api/v1/games/{game}/events?limit=" + HUGE,
        "/api/v1/games/{game}/events?after=-1",
        "/api/v1/games/{game}/events?limit=0",
        "/api/v1/me/history?offset=" + HUGE,
        "/api/v1/me/history?limit=" + HUGE,
        "/api/v1/me/history?offset=x",
    ],
)
def test_a_number_out_of_range_in_a_query_is_a_validation_error(two_people: Any, path: str) -> None:
    _table, host, _guest, game = two_people("classic")
    response = host.get(path.format(game=game["id"]))
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error" and error["details"]["field"] in ("after", "limit", "offset")


def test_the_largest_accepted_numbers_are_answered(two_people: Any) -> None:
    _table, host, _guest, game = two_people("classic")
    assert host.get(f"/api/v1/games/{game['id']}/events?after={2**31 - 1}").status_code == 200
    assert host.get(f"/api/v1/me/history?offset={2**31 - 1}").status_code == 200
