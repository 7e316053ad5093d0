"""A long-poll under WSGI (gunicorn's threads) that is refused at once answers at once: twenty
long-polls of a spectator with a wrong invite code each get their 404 within two seconds."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import harness
from tests.streams.conftest import stream_server_env
from tests.streams.streams_helpers import sign_up, two_player_round

HANDS = [["KH", "8C", "10S", "AD", "QC"], ["7C", "8D", "9D", "AS", "10D"]]


@pytest.fixture
def gunicorn_server(streams_database: tuple[Path, str | None]) -> Iterator[str]:
    tmp, database_url = streams_database
    port = harness.free_port()
    process = harness.gunicorn("maumau.wsgi:application", port, workers=1, threads=4,
                               env=stream_server_env(tmp, database_url), log=tmp / "gunicorn-longpoll.log")
    try:
        process.wait_for_http(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.stop(timeout=10)


def test_long_polls_with_a_wrong_invite_code_answer_404_at_once_under_gunicorn(gunicorn_server: str) -> None:
    _ada, _bo, gid = two_player_round(gunicorn_server, HANDS, "9H", ["QS", "7S"], spectators="invited")
    eve = sign_up(gunicorn_server, "Eve")
    times = []
    for _ in range(20):
        started = time.monotonic()
        response = eve.http.get(f"/api/v1/games/{gid}", params={"wait": 20, "invite_code": "wrong"}, timeout=30)
        times.append(round(time.monotonic() - started, 2))
        assert response.status_code == 404, response.text
    assert max(times) < 2.0, times
