"""The API's JSON answers are gzip-compressed for a caller that accepts it; the event streams and the
long-polls are not (a stream's events must leave at once, not when a compressor's block fills)."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from django.test import Client

from tests.client.browser_helpers import Api, live_server

pytestmark = pytest.mark.django_db


def test_a_json_answer_is_gzip_compressed_when_the_caller_accepts_it(make_player: Any) -> None:
    host = make_player("Ada")
    for _ in range(6):
        assert host.post("/api/v1/tables", {"rules": "classic"}, format="json").status_code == 201
    auth = {"HTTP_AUTHORIZATION": f"Token {host.token}"}
    plain = Client().get("/api/v1/tables", **auth)
    assert plain.status_code == 200 and "Content-Encoding" not in plain
    packed = Client().get("/api/v1/tables", HTTP_ACCEPT_ENCODING="gzip, deflate, br", **auth)
    assert packed.status_code == 200
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    assert len(packed.content) < len(plain.content) / 2
    assert json.loads(gzip.decompress(packed.content)) == plain.json()


def test_the_round_view_keeps_its_strong_etag_uncompressed_and_answers_304(make_player: Any) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    table = ada.post("/api/v1/tables", {"rules": "classic", "max_players": 2}, format="json").json()["id"]
    bob.post(f"/api/v1/tables/{table}/join", {}, format="json")
    game = ada.post(f"/api/v1/tables/{table}/rounds", {}, format="json").json()["id"]
    first = ada.get(f"/api/v1/games/{game}", HTTP_ACCEPT_ENCODING="gzip")
    assert "Content-Encoding" not in first and first["ETag"].startswith('"'), "the long-poll's ETag, unweakened"
    again = ada.get(f"/api/v1/games/{game}", HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304


def test_a_streaming_answer_passes_the_compression_untouched() -> None:
    """Under WSGI (and Django's own ASGI handler) the streams go through the middleware: it leaves them."""
    from django.http import StreamingHttpResponse
    from django.test import RequestFactory

    from maumau.compression import CompressedAnswersMiddleware

    def stream(request: Any) -> StreamingHttpResponse:
        return StreamingHttpResponse(iter([b": keep-alive\n\n" * 100]), content_type="text/event-stream")

    request = RequestFactory().get("/api/v1/me/stream", HTTP_ACCEPT_ENCODING="gzip")
    response = CompressedAnswersMiddleware(stream)(request)
    assert "Content-Encoding" not in response
    assert b"".join(response.streaming_content) == b": keep-alive\n\n" * 100


@pytest.mark.django_db(transaction=True)
def test_over_a_real_server_json_is_compressed_and_streams_and_long_polls_are_not(tmp_path: Any) -> None:
    import httpx

    with live_server(tmp_path) as base:
        ada = Api.guest(base, "Ada")
        table = ada.call("POST", "tables", {"rules": "classic", "max_players": 2})["id"]
        ada.call("POST", f"tables/{table}/bots", {"level": "basic"})
        game = ada.call("POST", f"tables/{table}/rounds", {})["id"]
        auth = {"Authorization": f"Token {ada.token}", "Accept-Encoding": "gzip"}
        tables = httpx.get(f"{base}/api/v1/tables", params={"status": "playing"}, headers=auth)
        assert tables.headers["content-encoding"] == "gzip" and tables.json()[0]["id"] == table
        waited = httpx.get(f"{base}/api/v1/games/{game}", params={"wait": "0.2", "after": 10_000}, headers=auth)
        assert waited.status_code in (200, 304) and "content-encoding" not in waited.headers
        with httpx.stream("GET", f"{base}/api/v1/games/{game}/stream", headers=auth, timeout=10) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert "content-encoding" not in stream.headers
            first = next(stream.iter_raw())
            assert first.startswith(b"retry:"), first
