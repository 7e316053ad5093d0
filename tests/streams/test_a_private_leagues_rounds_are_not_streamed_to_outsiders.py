"""The live surfaces of a private league's round (its stream and its long-poll, on a real server) are
404 to anyone who is not a member, as its table and its standings are; a member seated there streams it."""

from __future__ import annotations

from tests.streams.streams_helpers import sign_up


def test_a_private_leagues_round_is_not_streamed_or_long_polled_by_a_stranger(poll_server: str) -> None:
    ada, bo, eve = sign_up(poll_server, "Ada"), sign_up(poll_server, "Bo"), sign_up(poll_server, "Eve")
    league = ada.http.post("/api/v1/leagues", json={"name": "Stammtisch", "rules": "classic",
                                                   "visibility": "private"}).json()
    assert bo.http.post(f"/api/v1/leagues/{league['id']}/join", json={"code": league["invite_code"]}).status_code == 200
    table = ada.http.post("/api/v1/tables", json={"rules": "classic", "max_players": 2, "league": league["id"]}).json()
    assert table["visibility"] == "private"
    assert bo.http.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    game = ada.http.post(f"/api/v1/tables/{table['id']}/rounds", json={})
    assert game.status_code == 201, game.text
    gid = game.json()["id"]
    assert eve.http.get(f"/api/v1/games/{gid}", params={"wait": 1, "after": 0}).status_code == 404
    with eve.http.stream("GET", f"/api/v1/games/{gid}/stream") as stream:
        assert stream.status_code == 404
    with bo.http.stream("GET", f"/api/v1/games/{gid}/stream") as stream:
        assert stream.status_code == 200
