"""Aborting is not a free re-deal: the host sees their hand before anyone moves, so a fair round is
never aborted once dealt (409 ``fair_round``), in a league or not; the round stays and is played or
resigned, and counts. Only a practice round (chosen seed or setup, never counted) can be aborted."""

from __future__ import annotations

import pytest

from games.models import Game
from scoring.models import RoundResult
from tests.games.api_helpers import act

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("in_league", [True, False])
def test_a_host_cannot_re_roll_a_fair_deal_by_aborting(make_table, make_player, in_league) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    host = make_player("Host")
    body = {}
    if in_league:
        league = host.post("/api/v1/leagues", {"name": "Friday", "rules": "classic"}, format="json").json()
        body["league"] = league["id"]
    table = make_table("classic", host=host, **body)
    bob = make_player("Bob")
    if in_league:  # only members play at a league's tables
        bob.post(f"/api/v1/leagues/{league['id']}/join", {"code": league["invite_code"]}, format="json")
    table.join(bob)
    gid = table.start().json()["id"]
    hand = host.get(f"/api/v1/games/{gid}").json()["hand"]
    for _attempt in range(20):
        refused = host.post(f"/api/v1/games/{gid}/abort")
        assert refused.status_code == 409 and refused.json()["error"]["details"]["reason"] == "fair_round"
        assert act(host, gid, {"type": "abort"}).status_code == 409
        again = table.start()  # the round is still running: no new deal either
        assert again.status_code == 409 and again.json()["error"]["details"]["reason"] == "round_running"
    game = Game.objects.get(pk=gid)
    assert game.status == "active" and host.get(f"/api/v1/games/{gid}").json()["hand"] == hand
    assert Game.objects.filter(table_id=table.id).count() == 1
    act(host, gid, {"type": "resign"})  # the way out counts
    assert RoundResult.objects.get(game_id=gid).reason == "resigned"


def test_a_practice_round_can_still_be_aborted_before_its_first_move(make_table, make_player) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    table = make_table("classic")
    table.join(make_player("Bob"))
    gid = table.start(seed=42).json()["id"]
    assert table.host.post(f"/api/v1/games/{gid}/abort").status_code == 200
    assert Game.objects.get(pk=gid).result["reason"] == "aborted"
