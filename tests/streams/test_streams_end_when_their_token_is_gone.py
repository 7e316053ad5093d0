"""A stream opened with a token ends (``event: end`` with a reason, then the connection closes) within
seconds of the token's end: a password change, a log-out, a revocation, the account's deletion."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable

import httpx
import pytest

from tests.streams.streams_helpers import Person, SseReader, client, two_player_round

PASSWORD = "correct horse battery"
ADA, BO = ["KH", "7C", "8D", "9S", "QC"], ["9H", "10H", "JH", "8C", "7S"]
STARTER, STOCK_TOP = "9C", ["7H", "8H", "10C"]
#: What the issue asks for: at most 5 seconds (the servers of these tests re-check every second).
WITHIN = 5.0


def _account(base: str, username: str) -> Person:
    body = httpx.post(base + "/api/v1/accounts", json={"username": username, "password": PASSWORD,
                                                       "device": "phone"}, timeout=10).json()
    return Person(body["id"], body["token"], client(base, body["token"]))


def _second_token(person: Person, base: str, username: str, scopes: list[str] | None = None) -> tuple[int, str]:
    """A personal token with ``scopes``, or (None) the token of a log-in on another device."""
    if scopes is not None:
        body = person.http.post("/api/v1/me/tokens", json={"name": "script", "scopes": scopes}).json()
        return body["id"], body["token"]
    body = httpx.post(base + "/api/v1/auth/login", json={"username": username, "password": PASSWORD,
                                                         "device": "laptop"}, timeout=10).json()
    return body["token_id"], body["token"]


def _ends(stream: SseReader, since: float) -> str:
    """The reason of the stream's ``end`` event, which must come within WITHIN seconds of ``since``."""
    while True:
        remaining = since + WITHIN - time.monotonic()
        try:
            event = stream.next(max(0.05, remaining))
        except queue.Empty:
            pytest.fail("the stream still runs after its token is gone")
        if event.event == "end":
            assert event.at - since <= WITHIN
            assert stream.finished.wait(2), "the stream sent end but stayed open"
            return str(event.data["reason"])


def _revocations(base: str) -> dict[str, Callable[[Person, str], None]]:
    def password(person: Person, _key: str) -> None:
        assert person.http.post("/api/v1/me/password", json={"old_password": PASSWORD,
                                                             "new_password": "battery staple horse"}).status_code == 200

    def logout(_person: Person, key: str) -> None:
        assert client(base, key).post("/api/v1/auth/logout").status_code == 204

    def revoke(person: Person, key: str) -> None:
        token_id = next(t["id"] for t in person.http.get("/api/v1/me/tokens").json() if not t["current"]
                        and t["name"] in ("script", "laptop"))
        assert person.http.delete(f"/api/v1/me/tokens/{token_id}").status_code == 204

    def delete(person: Person, _key: str) -> None:
        assert person.http.request("DELETE", "/api/v1/me/account", json={"password": PASSWORD}).status_code == 204

    return {"password_change": password, "logout": logout, "revocation": revoke, "account_deletion": delete}


@pytest.mark.parametrize("how", ["password_change", "logout", "revocation", "account_deletion"])
def test_a_me_stream_ends_within_seconds_once_its_token_is_gone(poll_server: str, how: str) -> None:
    ada = _account(poll_server, f"ada_{how}")
    _token_id, key = _second_token(ada, poll_server, f"ada_{how}", ["read"] if how == "revocation" else None)
    stream = SseReader(poll_server, "/api/v1/me/stream", key).start()
    try:
        time.sleep(0.3)
        _revocations(poll_server)[how](ada, key)
        reason = _ends(stream, time.monotonic())
        assert reason in ("token_revoked", "account_deleted")
        if how == "account_deletion":
            assert reason == "account_deleted"
    finally:
        stream.close()


@pytest.mark.parametrize("how", ["password_change", "logout", "revocation", "account_deletion"])
def test_a_game_stream_ends_within_seconds_once_its_token_is_gone(poll_server: str, how: str) -> None:
    _ada, bo, gid = two_player_round(poll_server, [ADA, BO], STARTER, STOCK_TOP)
    username = f"bo_{how}"
    assert bo.http.post("/api/v1/me/credentials", json={"username": username, "password": PASSWORD}).status_code == 200
    _token_id, key = _second_token(bo, poll_server, username, ["read"] if how == "revocation" else None)
    stream = SseReader(poll_server, f"/api/v1/games/{gid}/stream", key).start()
    try:
        time.sleep(0.3)
        _revocations(poll_server)[how](bo, key)
        assert _ends(stream, time.monotonic()) in ("token_revoked", "account_deleted")
    finally:
        stream.close()
