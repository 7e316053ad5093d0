"""Idempotency-Key on moves, and the house penalty for an illegal play charged exactly once."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from games.models import Game, IdempotencyRecord, Move
from tests.games.api_helpers import act, setup_for

pytestmark = pytest.mark.django_db

HANDS = [["7H", "8H", "KS", "AC", "9D"], ["10H", "QS", "KC", "AD", "7C"]]


def test_same_key_twice_returns_the_first_answer_and_applies_once(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people("classic", setup=setup_for("classic", HANDS, "9H"))
    first = act(host, game["id"], {"type": "play", "cards": ["7H"]}, HTTP_IDEMPOTENCY_KEY="k-1")
    again = act(host, game["id"], {"type": "play", "cards": ["7H"]}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert Game.objects.get(pk=game["id"]).version == 1 and Move.objects.count() == 1


def test_same_key_with_another_body_is_refused(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people("classic", setup=setup_for("classic", HANDS, "9H"))
    act(host, game["id"], {"type": "play", "cards": ["7H"]}, HTTP_IDEMPOTENCY_KEY="k-2")
    other = act(host, game["id"], {"type": "play", "cards": ["8H"]}, HTTP_IDEMPOTENCY_KEY="k-2")
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"
    assert Game.objects.get(pk=game["id"]).version == 1


def test_keys_belong_to_their_player(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, guest, game = two_people("classic", setup=setup_for("classic", HANDS, "9H"))
    act(host, game["id"], {"type": "play", "cards": ["7H"]}, HTTP_IDEMPOTENCY_KEY="shared")
    theirs = act(guest, game["id"], {"type": "draw"}, HTTP_IDEMPOTENCY_KEY="shared")
    assert theirs.status_code == 200 and theirs.json()["version"] == 2
    assert IdempotencyRecord.objects.filter(key="shared").count() == 2


def test_a_refusal_that_changed_nothing_is_not_stored(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, guest, game = two_people("classic", setup=setup_for("classic", HANDS, "9H"))
    early = act(guest, game["id"], {"type": "draw"}, HTTP_IDEMPOTENCY_KEY="k-3")
    assert early.status_code == 409
    act(host, game["id"], {"type": "play", "cards": ["7H"]})
    later = act(guest, game["id"], {"type": "draw"}, HTTP_IDEMPOTENCY_KEY="k-3")
    assert later.status_code == 200  # the key is free: the first try applied nothing


HOUSE = [["KS", "3H", "4C"], ["5C", "6C", "8D"]]


@pytest.fixture
def house_round(two_people):  # type: ignore[no-untyped-def]
    return two_people("house", setup=setup_for("house", HOUSE, "2H", ["9D", "9S"]))


def test_house_illegal_play_is_refused_and_costs_one_card_once(house_round) -> None:  # type: ignore[no-untyped-def]
    _table, host, guest, game = house_round
    refused = act(host, game["id"], {"type": "play", "cards": ["KS"]})
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == "illegal_move" and error["details"]["reason"]
    assert error["details"]["penalty"][0]["type"] == "drew" and error["details"]["penalty"][0]["cards"] == ["9D"]
    assert error["details"]["version"] == 1
    row = Move.objects.get(game_id=game["id"])
    assert row.actor == "system" and row.seat == 0 and row.action["cards"] == ["KS"]
    retried = act(host, game["id"], {"type": "play", "cards": ["KS"]})
    assert retried.status_code == 422 and retried.json()["error"]["details"]["penalty"] == []
    assert Move.objects.filter(game_id=game["id"]).count() == 1
    hand = host.get(f"/api/v1/games/{game['id']}").json()["hand"]
    assert sorted(hand) == sorted([*HOUSE[0], "9D"])
    # The other player sees that a play was refused, not which card was tried, nor the penalty card.
    seen = guest.get(f"/api/v1/games/{game['id']}/events").json()["moves"][0]
    assert seen["action"] == {"type": "play"} and "cards" not in seen["events"][0]
    call_command("verify_ledger", game["id"])


def test_house_penalty_with_a_key_is_replayed_not_charged_again(house_round) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = house_round
    first = act(host, game["id"], {"type": "play", "cards": ["KS"]}, HTTP_IDEMPOTENCY_KEY="oops")
    again = act(host, game["id"], {"type": "play", "cards": ["KS"]}, HTTP_IDEMPOTENCY_KEY="oops")
    assert first.status_code == again.status_code == 422 and first.json() == again.json()
    assert Move.objects.filter(game_id=game["id"]).count() == 1


def test_stored_answers_are_kept_a_day_then_purged_by_the_hourly_task(two_people, time_machine) -> None:  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime, timedelta

    from play.tasks import idempotency_purge_task

    time_machine.move_to(datetime(2030, 1, 1, 12, 0, tzinfo=UTC), tick=False)
    _table, host, guest, game = two_people("classic", {"turn_seconds": 0}, setup=setup_for("classic", HANDS, "9H"))
    assert act(host, game["id"], {"type": "play", "cards": ["7H"]}, HTTP_IDEMPOTENCY_KEY="old").status_code == 200
    time_machine.shift(timedelta(hours=23))
    assert act(guest, game["id"], {"type": "draw"}, HTTP_IDEMPOTENCY_KEY="young").status_code == 200
    time_machine.shift(timedelta(hours=2))
    assert idempotency_purge_task() == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["young"]
