"""An invite code with characters outside ASCII is a code that does not match (404 as for a wrong
one), never a server error, on every endpoint that takes one: the round's view, its ledger, its
long-poll and its stream, and joining a private table."""

from __future__ import annotations

import pytest

from tests.streams.streams_helpers import sign_up, two_player_round

ADA = ["KH", "8C", "10S", "AD", "QC"]
BO = ["7C", "8D", "9D", "AS", "10D"]
CODES = ["é", "\u00e9\u00e9\u00e9", "日本", "q3LxV0Ab7xYk9mQ\u00e9"]


@pytest.mark.parametrize("code", CODES)
def test_a_non_ascii_invite_code_is_a_404_on_every_endpoint_that_takes_one(poll_server: str, code: str) -> None:
    ada, _bo, gid = two_player_round(poll_server, [ADA, BO], "9H", ["QS"], spectators="invited")
    eve = sign_up(poll_server, "Eve")
    params = {"invite_code": code}
    assert eve.http.get(f"/api/v1/games/{gid}", params=params).status_code == 404
    assert eve.http.get(f"/api/v1/games/{gid}/events", params=params).status_code == 404
    assert eve.http.get(f"/api/v1/games/{gid}", params={**params, "wait": 1}).status_code == 404
    with eve.http.stream("GET", f"/api/v1/games/{gid}/stream", params=params) as stream:
        assert stream.status_code == 404
    private = ada.http.post("/api/v1/tables", json={"rules": "classic", "visibility": "private"}).json()
    joined = eve.http.post(f"/api/v1/tables/{private['id']}/join", json={"invite_code": code})
    assert joined.status_code == 404 and joined.json()["error"]["code"] == "not_found"
