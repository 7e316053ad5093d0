"""Concurrent seekers on PostgreSQL: every seek is seated once, no seat is taken twice, no table is
made twice, and every table made is full."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from games.models import Seat, Table
from lobby.models import Seek

ON_POSTGRES = "postgresql" in settings.DATABASES["default"]["ENGINE"]
pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: concurrent transactions on real connections"),
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.parametrize("players", [2, 3])
def test_concurrent_seekers_never_share_a_seat_and_no_table_is_made_twice(make_player, players: int) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    seekers = [make_player(f"P{i}") for i in range(6 * players)]
    barrier = threading.Barrier(len(seekers))
    statuses: list[int] = []
    lock = threading.Lock()

    def one(token: str) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        barrier.wait()
        try:
            response = client.post("/api/v1/seeks", {"rules": "classic", "players": players}, format="json")
            with lock:
                statuses.append(response.status_code)
        finally:
            connection.close()

    workers = [threading.Thread(target=one, args=(c.token,)) for c in seekers]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert statuses == [201] * len(seekers)
    seeks = list(Seek.objects.all())
    assert all(s.status == "matched" for s in seeks)
    per_table = Counter(s.table_id for s in seeks)
    assert len(per_table) == 6 and set(per_table.values()) == {players}
    seated = Counter(Seat.objects.values_list("player_id", flat=True))
    assert set(seated.values()) == {1}  # nobody sits twice
    assert Table.objects.count() == 6
    for seek in seeks:
        assert Seat.objects.filter(table_id=seek.table_id, player_id=seek.player_id).exists()
