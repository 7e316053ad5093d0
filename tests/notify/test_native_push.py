"""FCM HTTP v1 and APNs (token-based): the requests the service makes, checked against local endpoints
that play the providers (the real ones cannot be reached from here). FCM: the OAuth JWT-bearer grant
signed with the service account's key, then messages:send. APNs: HTTP/2 (h2, prior knowledge on a
loopback stand-in), an ES256 provider token, its headers and payload. A gone token deletes the device."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import h2.config
import h2.connection
import h2.events
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from notify import channels
from notify.models import Delivery, Device

pytestmark = pytest.mark.django_db


def _pem(key: Any) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


class FakeFcm:
    """oauth2 token endpoint + /v1/projects/<id>/messages:send."""

    def __init__(self, account_key: rsa.RSAPrivateKey) -> None:
        self.public = account_key.public_key()
        self.messages: list[dict[str, Any]] = []
        self.status = 200
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path == "/token":
                    form = parse_qs(body.decode())
                    assert form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
                    claims = jwt.decode(form["assertion"][0], fake.public, algorithms=["RS256"],
                                        audience=f"{fake.origin}/token")
                    assert claims["scope"] == "https://www.googleapis.com/auth/firebase.messaging"
                    answer, status = {"access_token": "ya29.test", "expires_in": 3600}, 200
                else:
                    assert self.headers["Authorization"] == "Bearer ya29.test"
                    fake.messages.append({"path": self.path, "body": json.loads(body)})
                    status = fake.status
                    answer = {"name": "projects/maumau-test/messages/1"} if status == 200 else {
                        "error": {"status": "NOT_FOUND", "details": [{"errorCode": "UNREGISTERED"}]}}
                raw = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


class FakeApns:
    """An HTTP/2 server (h2) that keeps each request's headers and body and answers ``status``."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 200
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.origin = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                sock, _addr = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        open_streams: dict[int, dict[str, Any]] = {}
        while True:
            data = sock.recv(65535)
            if not data:
                return
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    open_streams[event.stream_id] = {"headers": dict(event.headers), "body": b""}
                elif isinstance(event, h2.events.DataReceived):
                    open_streams[event.stream_id]["body"] += event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    request = open_streams.pop(event.stream_id)
                    self.requests.append(request)
                    body = b"" if self.status == 200 else json.dumps({"reason": "Unregistered"}).encode()
                    conn.send_headers(event.stream_id, [(":status", str(self.status)),
                                                        ("apns-id", "0000-test"),
                                                        ("content-length", str(len(body)))],
                                      end_stream=not body)
                    if body:
                        conn.send_data(event.stream_id, body, end_stream=True)
            sock.sendall(conn.data_to_send())


@pytest.fixture
def fcm(settings: Any, tmp_path: Path) -> Iterator[FakeFcm]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    fake = FakeFcm(key)
    account = {"type": "service_account", "project_id": "maumau-test", "private_key_id": "k1",
               "private_key": _pem(key), "client_email": "push@maumau-test.iam.gserviceaccount.com",
               "token_uri": f"{fake.origin}/token"}
    (tmp_path / "fcm.json").write_text(json.dumps(account))
    settings.FCM_CREDENTIALS_FILE = str(tmp_path / "fcm.json")
    settings.FCM_ENDPOINT = fake.origin
    channels.fcm_tokens.token = ""
    yield fake
    fake.server.shutdown()


@pytest.fixture
def apns(settings: Any, tmp_path: Path) -> Iterator[tuple[FakeApns, ec.EllipticCurvePrivateKey]]:
    key = ec.generate_private_key(ec.SECP256R1())
    (tmp_path / "AuthKey.p8").write_text(_pem(key))
    fake = FakeApns()
    settings.APNS_KEY_FILE, settings.APNS_KEY_ID, settings.APNS_TEAM_ID = str(tmp_path / "AuthKey.p8"), "KEY1", "TEAM1"
    settings.APNS_TOPIC, settings.APNS_ENDPOINT = "org.example.maumau", fake.origin
    channels.apns_token.token = ""
    yield fake, key
    fake.listener.close()


def _move(ada: Any, gid: int, capture: Any) -> None:
    with capture(execute=True):
        assert ada.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": ["KH"]},
                        format="json").status_code == 200


def test_fcm_gets_an_http_v1_message_with_an_oauth_token(
    round_for_two: Callable[[], tuple[Any, Any, int]], fcm: FakeFcm, eager_celery: None, push_on: str,
    django_capture_on_commit_callbacks: Any, api_client: Any,
) -> None:
    ada, bo, gid = round_for_two()
    assert bo.post("/api/v1/me/devices", {"platform": "fcm", "token": "fcm-token-of-bo-1234", "name": "Pixel"},
                   format="json").status_code == 201
    _move(ada, gid, django_capture_on_commit_callbacks)
    [sent] = fcm.messages
    assert sent["path"] == "/v1/projects/maumau-test/messages:send"
    message = sent["body"]["message"]
    assert message["token"] == "fcm-token-of-bo-1234"
    assert message["notification"] == {"title": "Your turn", "body": f"Table {_table(gid)}: it is your turn."}
    assert message["data"]["kind"] == "your_turn" and message["data"]["game"] == str(gid)
    assert all(isinstance(v, str) for v in message["data"].values()), "FCM data values are strings"
    assert message["android"]["collapse_key"] == f"yourturn-{gid}"
    assert Delivery.objects.get(channel="fcm").outcome == "sent"


def test_fcm_unregistered_token_deletes_the_device(
    round_for_two: Callable[[], tuple[Any, Any, int]], fcm: FakeFcm, eager_celery: None, push_on: str,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    bo.post("/api/v1/me/devices", {"platform": "fcm", "token": "fcm-token-of-bo-1234"}, format="json")
    fcm.status = 404
    _move(ada, gid, django_capture_on_commit_callbacks)
    assert not Device.objects.exists() and Delivery.objects.get(channel="fcm").outcome == "gone"


def test_apns_gets_an_http2_request_with_a_provider_token(
    round_for_two: Callable[[], tuple[Any, Any, int]], apns: tuple[FakeApns, Any], eager_celery: None,
    push_on: str, django_capture_on_commit_callbacks: Any,
) -> None:
    fake, key = apns
    ada, bo, gid = round_for_two()
    token = "ab" * 32
    assert bo.post("/api/v1/me/devices", {"platform": "apns", "token": token}, format="json").status_code == 201
    _move(ada, gid, django_capture_on_commit_callbacks)
    [request] = fake.requests
    headers = request["headers"]
    assert headers[":method"] == "POST" and headers[":path"] == f"/3/device/{token}"
    assert headers["apns-topic"] == "org.example.maumau" and headers["apns-push-type"] == "alert"
    assert headers["apns-collapse-id"] == f"yourturn-{gid}"
    scheme, provider_token = headers["authorization"].split(" ")
    assert scheme == "bearer"
    assert jwt.get_unverified_header(provider_token)["kid"] == "KEY1"
    assert jwt.decode(provider_token, key.public_key(), algorithms=["ES256"])["iss"] == "TEAM1"
    body = json.loads(request["body"])
    assert body["aps"]["alert"]["title"] == "Your turn" and body["game"] == str(gid)
    assert Delivery.objects.get(channel="apns").outcome == "sent"
    fake.status = 410
    assert channels.apns_send(token=token, title="t", body="b", data={}, collapse="c").gone


def test_without_credentials_native_push_is_off_and_says_so(
    round_for_two: Callable[[], tuple[Any, Any, int]], eager_celery: None, push_on: str, api_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ready = api_client.get("/readyz").json()
    assert ready["details"]["notify"]["fcm"].startswith("off") and ready["details"]["notify"]["apns"].startswith("off")
    assert ready["details"]["notify"]["web_push"] == "on"
    ada, bo, gid = round_for_two()
    bo.post("/api/v1/me/devices", {"platform": "apns", "token": "cd" * 32}, format="json")
    _move(ada, gid, django_capture_on_commit_callbacks)  # the move is fine
    assert Delivery.objects.get(channel="apns").outcome == "off"


def _table(gid: int) -> int:
    from games.models import Game

    return Game.objects.get(pk=gid).table_id
