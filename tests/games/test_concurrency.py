"""Twenty clients race the same move on PostgreSQL: the row lock lets exactly one through."""

from __future__ import annotations

import threading

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from games.models import Game, Move
from tests.games.api_helpers import setup_for

ON_POSTGRES = "postgresql" in settings.DATABASES["default"]["ENGINE"]
pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: SELECT ... FOR UPDATE across real connections "
                       "(the SQLite test database is one in-memory connection)"),
    pytest.mark.django_db(transaction=True),
]

HANDS = [["7H", "8H", "KS", "AC", "9D"], ["10H", "QS", "KC", "AD", "7C"]]


def race(token: str, game_id: int, body: dict, headers: dict[str, str], threads: int = 20) -> list[int]:
    barrier = threading.Barrier(threads)
    statuses: list[int] = []
    lock = threading.Lock()

    def one() -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        barrier.wait()
        try:
            response = client.post(f"/api/v1/games/{game_id}/actions", body, format="json", **headers)
            with lock:
                statuses.append(response.status_code)
        finally:
            connection.close()

    workers = [threading.Thread(target=one) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    return statuses


def test_twenty_threads_same_move_same_version_exactly_one_applies(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people("classic", setup=setup_for("classic", HANDS, "9H"))
    statuses = race(host.token, game["id"], {"type": "play", "cards": ["7H"], "expected_version": 0}, {})
    assert sorted(statuses) == [200] + [409] * 19
    assert Move.objects.filter(game_id=game["id"]).count() == 1
    assert Game.objects.get(pk=game["id"]).version == 1


def test_twenty_threads_same_idempotency_key_apply_once(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people("classic", setup=setup_for("classic", HANDS, "9H"))
    statuses = race(host.token, game["id"], {"type": "play", "cards": ["7H"]}, {"HTTP_IDEMPOTENCY_KEY": "same"})
    # One applies; a duplicate that arrives while it runs gets 409 idempotency_in_progress, one
    # that arrives after its commit gets the stored answer (200, the same body).
    assert statuses.count(200) >= 1 and set(statuses) <= {200, 409} and len(statuses) == 20
    assert Move.objects.filter(game_id=game["id"]).count() == 1
    assert Game.objects.get(pk=game["id"]).version == 1


def test_a_move_waiting_for_the_lock_reads_the_seats_its_holder_committed(two_people) -> None:  # type: ignore[no-untyped-def]
    """The game row and the seats come in one statement only when nobody holds the lock; a move that
    must wait reads the seats after the wait, as the holder left them (here: a bot took a seat)."""
    from django.db import transaction

    from games import sql
    from games.models import Seat

    table, _host, _guest, game = two_people()
    holding, release = threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with transaction.atomic():
                Game.objects.select_for_update().get(pk=game["id"])
                Seat.objects.filter(table_id=table.id, position=1).update(bot_controlled=True)
                holding.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=holder)
    thread.start()
    assert holding.wait(10)
    found: dict[str, object] = {}

    def mover() -> None:
        try:
            with transaction.atomic():
                found["result"] = sql.game_locked_with_seats(game["id"])
        finally:
            connection.close()

    waiting = threading.Thread(target=mover)
    waiting.start()
    waiting.join(0.5)
    assert waiting.is_alive(), "the move waits for the lock"
    release.set()
    thread.join(10)
    waiting.join(10)
    result = found["result"]
    assert result is not None
    _game_row, seats = result  # type: ignore[misc]
    assert [s.bot_controlled for s in seats] == [False, True]
