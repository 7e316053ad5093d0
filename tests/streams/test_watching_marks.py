"""A seated player's open game stream or long-poll marks them as watching that game, in the cache the
web processes share with the workers (the notify app sends no your_turn push to a watcher). Against a
real uvicorn (tests/streams/conftest.py), whose shared "presence" cache is files under its var folder."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from games import presence
from tests.streams.streams_helpers import SseReader, two_player_round

HANDS = [["KH", "8C", "10S", "AD", "QC"], ["7C", "8D", "9D", "AS", "10D"]]


def _until(check: Any, deadline: float = 30.0) -> bool:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


@pytest.fixture
def servers_marks(settings: Any, _server_pool: dict[str, Any]) -> None:
    """This process reads the marks where the servers write them."""
    tmp = _server_pool["database"][0]
    settings.CACHES = {**settings.CACHES, "presence": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": str(tmp / "presence")}}


def test_an_open_game_stream_and_a_long_poll_mark_their_player_watching(poll_server: str,
                                                                        servers_marks: None) -> None:
    ada, bo, gid = two_player_round(poll_server, HANDS, "9H", ["QS"])
    assert not presence.watching(bo.id, gid) and not presence.watching(ada.id, gid)
    stream = SseReader(poll_server, f"/api/v1/games/{gid}/stream", bo.token).start()
    try:
        assert _until(lambda: presence.watching(bo.id, gid))
    finally:
        stream.close()
    poll = threading.Thread(target=lambda: ada.http.get(f"/api/v1/games/{gid}", params={"wait": 3}), daemon=True)
    poll.start()
    assert _until(lambda: presence.watching(ada.id, gid))
    poll.join(timeout=30)
    assert not presence.watching(ada.id, gid + 1), "a mark is for one game"


def test_a_closed_game_stream_takes_its_mark_along_at_once(poll_server: str, servers_marks: None) -> None:
    """The process keeps one mark per (player, game) of its open streams and deletes it when the last
    closes, rather than leaving it to outlive a keep-alive and its grace (25 s by default)."""
    _ada, bo, gid = two_player_round(poll_server, HANDS, "9H", ["QS"])
    first = SseReader(poll_server, f"/api/v1/games/{gid}/stream", bo.token).start()
    second = SseReader(poll_server, f"/api/v1/games/{gid}/stream", bo.token).start()
    try:
        assert _until(lambda: presence.watching(bo.id, gid))
        first.close()
        time.sleep(0.5)
        assert presence.watching(bo.id, gid), "another stream of Bo's still holds the game"
    finally:
        second.close()
    assert _until(lambda: not presence.watching(bo.id, gid), deadline=10.0)
