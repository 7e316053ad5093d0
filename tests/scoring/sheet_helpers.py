"""Helpers for the league-night tests: a league with members through the API, and rounds on its sheet."""

from __future__ import annotations

from typing import Any


def league_night(make_player: Any, count: int, **settings: Any) -> tuple[dict[str, Any], list[Any]]:
    """A league created by the first of `count` players (its owner, who keeps the sheet); the others join
    with its invite code. `settings` go into the create body (rules default to house)."""
    clients = [make_player(f"Member{index}") for index in range(count)]
    body = {"name": "Stammtisch", "rules": "house", **settings}
    made = clients[0].post("/api/v1/leagues", body, format="json")
    assert made.status_code == 201, made.content
    league = made.json()
    for client in clients[1:]:
        joined = client.post(f"/api/v1/leagues/{league['id']}/join", {"code": league["invite_code"]}, format="json")
        assert joined.status_code == 200, joined.content
    return league, clients


def record(client: Any, league_id: int, lines: list[dict[str, Any]], winner: int, *, extra_jacks: int = 0,
           corrects: int | None = None) -> Any:
    """POST a round to the sheet; the answer as it came."""
    body: dict[str, Any] = {"players": lines, "winner": winner, "extra_jacks": extra_jacks}
    if corrects is not None:
        body["corrects"] = corrects
    return client.post(f"/api/v1/leagues/{league_id}/rounds", body, format="json")


def recorded(client: Any, league_id: int, lines: list[dict[str, Any]], winner: int, **kw: Any) -> dict[str, Any]:
    answer = record(client, league_id, lines, winner, **kw)
    assert answer.status_code == 201, answer.content
    return answer.json()


def confirm(client: Any, league_id: int, round_id: int) -> Any:
    return client.post(f"/api/v1/leagues/{league_id}/rounds/{round_id}/confirm", {}, format="json")


def standings(client: Any, league_id: int, season: int | None = None) -> list[tuple[int, int, int, int]]:
    """(player, rounds, wins, points) per line, best first."""
    path = f"/api/v1/leagues/{league_id}/standings" if season is None else \
        f"/api/v1/leagues/{league_id}/seasons/{season}/standings"
    answer = client.get(path)
    assert answer.status_code == 200, answer.content
    return [(row["player"]["id"], row["rounds"], row["wins"], row["points"]) for row in answer.json()["standings"]]
