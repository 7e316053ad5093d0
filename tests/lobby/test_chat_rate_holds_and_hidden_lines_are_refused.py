"""Table chat: the rate holds under concurrent posts (one count, across processes), and line and
paragraph separators are refused like control characters."""

from __future__ import annotations

import threading

import pytest
from django.conf import settings as django_settings
from django.db import connection
from rest_framework.test import APIClient

from lobby.models import TableMessage

ON_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["one\u2028two", "one\u2029two", "a\u0085b", "a\nb", "a\rb", "a\x0bb", "a\u200bb"])
def test_line_and_paragraph_separators_are_refused_in_chat(make_table, make_player, text: str) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    table = make_table("classic")
    response = table.host.post(f"/api/v1/tables/{table.id}/messages", {"text": text}, format="json")
    assert response.status_code == 400, repr(text)
    assert response.json()["error"]["details"]["field"] == "text"
    assert TableMessage.objects.count() == 0


@pytest.mark.postgres_only
@pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: concurrent transactions on real connections")
@pytest.mark.django_db(transaction=True)
def test_forty_concurrent_chat_lines_are_held_to_the_rate(make_table, settings) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    settings.MAUMAU_CHAT_RATE = 5
    settings.MAUMAU_CHAT_WINDOW_SECONDS = 60
    table = make_table("classic")
    token = table.host.token
    barrier = threading.Barrier(40)
    statuses: list[int] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        barrier.wait()
        try:
            response = client.post(f"/api/v1/tables/{table.id}/messages", {"text": f"line {i}"}, format="json")
            with lock:
                statuses.append(response.status_code)
        finally:
            connection.close()

    workers = [threading.Thread(target=one, args=(i,)) for i in range(40)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert sorted(statuses) == [201] * 5 + [429] * 35
    assert TableMessage.objects.count() == 5


@pytest.mark.django_db
def test_the_chat_rate_holds_when_the_cache_forgets(make_table, settings) -> None:  # type: ignore[no-untyped-def]
    """Each process has its own local-memory cache (the default): the count must not live there."""
    from django.core.cache import cache

    settings.MAUMAU_CHAT_RATE = 3
    table = make_table("classic")
    url = f"/api/v1/tables/{table.id}/messages"
    codes = []
    for i in range(5):
        cache.clear()  # another process, which never saw the lines before
        codes.append(table.host.post(url, {"text": f"line {i}"}, format="json").status_code)
    assert codes == [201, 201, 201, 429, 429]
