"""Seats that wait for people: in ``house`` a slow turn costs its penalty card and a bot takes over
only an absent person; a person comes back by an explicit reclaim; matched seekers with a webhook
are told ``game_started`` there too; a player can resign a league."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from games.models import Move, Player, Seat
from play import clocks
from streams.models import WebhookDelivery
from tests.clocks.clock_helpers import T0, fresh, person_moves, round_with_people, seat_of_turn

pytestmark = pytest.mark.django_db




def _time_out_turn(clock: Any, game: Any) -> Any:
    clock.shift(10)
    assert clocks.clocks_resolve_due(game_id=game.pk) == 1
    return fresh(game)


def test_in_house_a_slow_but_present_person_pays_a_card_and_keeps_the_seat(clock: Any) -> None:
    game, players = round_with_people("house", options={"turn_seconds": 10})
    sleeper = seat_of_turn(game)
    hand_before = len(game.engine_state().hands[game.turn])
    for round_trip in range(4):
        Player.objects.filter(pk=sleeper.player_id).update(last_seen_at=T0 + timedelta(seconds=20 * round_trip))
        game = _time_out_turn(clock, game)
        if round_trip == 0:
            penalty = Move.objects.filter(game=game, actor="clock").order_by("seq").first()
            assert any(e["type"] == "drew" for e in penalty.events), "a slow turn costs the penalty card"
            assert len(game.engine_state().hands[penalty.seat]) > hand_before
        game = person_moves(game, players)  # the other person plays in time
    sleeper.refresh_from_db()
    assert sleeper.consecutive_timeouts == 4 and not sleeper.bot_controlled, "seen recently: no bot takes over"


def test_in_house_a_bot_takes_over_only_an_absent_person_and_the_table_says_so(clock: Any, make_player: Any) -> None:
    game, players = round_with_people("house", options={"turn_seconds": 10})
    sleeper = seat_of_turn(game)
    for round_trip in range(3):  # no request at all for three turns' time: absent
        game = _time_out_turn(clock, game)
        if round_trip < 2:
            game = person_moves(game, players)
    sleeper.refresh_from_db()
    assert sleeper.bot_controlled
    seats = {s.position: s for s in Seat.objects.filter(table_id=game.table_id)}
    assert seats[sleeper.position].bot_controlled


def test_a_person_takes_the_seat_back_by_an_explicit_reclaim(make_table: Any, make_player: Any) -> None:
    table = make_table("classic", options={"turn_seconds": 60})
    bob = make_player("Bob")
    table.join(bob)
    table.start()
    Seat.objects.filter(table_id=table.id, player_id=bob.player_id).update(bot_controlled=True)
    outsider = make_player("Eve")
    assert outsider.post(f"/api/v1/tables/{table.id}/reclaim").status_code == 403
    answer = bob.post(f"/api/v1/tables/{table.id}/reclaim")
    assert answer.status_code == 200
    mine = next(s for s in answer.json()["seats"] if s["player"]["id"] == bob.player_id)
    assert mine["bot_controlled"] is False and mine["absent"] is False


def test_matched_seekers_with_a_webhook_get_game_started_there(make_player: Any) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    hook = ada.post("/api/v1/webhooks", {"url": "https://8.8.8.8/maumau", "events": ["game_started"]}, format="json")
    assert hook.status_code == 201, hook.json()
    assert ada.post("/api/v1/seeks", {"rules": "classic", "players": 2}, format="json").status_code == 201
    matched = bob.post("/api/v1/seeks", {"rules": "classic", "players": 2}, format="json").json()
    deliveries = list(WebhookDelivery.objects.filter(webhook_id=hook.json()["id"]))
    assert [d.event for d in deliveries] == ["game_started"]
    assert f'"game": {matched["game"]}' in deliveries[0].body or f'"game":{matched["game"]}' in deliveries[0].body
