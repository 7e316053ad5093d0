"""A finished round shows its players everything (the server seed, every hand, the fairness check),
but a spectator only the commitment and the entropy: the server seed would recompute every hand, so a
spectator sees it only ``MAUMAU_SEED_REVEAL_DELAY_SECONDS`` after the round ended."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from tests.games.api_helpers import act

pytestmark = pytest.mark.django_db


def test_a_spectator_gets_no_seed_of_a_finished_round_until_the_delay_has_passed(make_table, make_player, settings, time_machine) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    settings.MAUMAU_SEED_REVEAL_DELAY_SECONDS = 3600
    time_machine.move_to(timezone.now(), tick=False)
    table = make_table("classic")
    bob, eve = make_player("Bob"), make_player("Eve")
    table.join(bob)
    gid = table.start().json()["id"]
    assert act(bob, gid, {"type": "resign"}).json()["status"] == "finished"
    game = Game.objects.get(pk=gid)

    player = table.host.get(f"/api/v1/games/{gid}").json()["deal"]
    assert player["seed"] == game.seed and player["entropy"]
    assert table.host.get(f"/api/v1/games/{gid}/fairness").json()["verified"]

    watched = eve.get(f"/api/v1/games/{gid}").json()
    assert watched["spectator"] and watched["deal"]["seed"] is None
    assert watched["deal"]["commitment"] == game.commitment
    assert game.seed not in eve.get(f"/api/v1/games/{gid}").content.decode()
    assert game.seed not in eve.get(f"/api/v1/games/{gid}/events").content.decode()
    assert eve.get(f"/api/v1/games/{gid}/events").json()["deal"]["hands"] == [None, None]
    assert eve.get(f"/api/v1/games/{gid}/fairness").status_code == 404

    time_machine.shift(timedelta(seconds=3599))
    assert eve.get(f"/api/v1/games/{gid}").json()["deal"]["seed"] is None
    time_machine.shift(timedelta(seconds=2))
    assert eve.get(f"/api/v1/games/{gid}").json()["deal"]["seed"] == game.seed
