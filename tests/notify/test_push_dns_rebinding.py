"""Web Push against DNS rebinding: the push goes to the address the SSRF guard checked, over TLS with
the endpoint's name (Host, SNI, certificate), even when the name resolves to loopback by the time of
sending; an endpoint whose name resolves to a private address gets nothing.

``push.example`` stands for a push service: the guard resolves it to 127.0.0.2, which the operator
allows (``WEBHOOK_ALLOWED_NETWORKS``); any other look-up of the name answers 127.0.0.1, where an
internal service listens on the same port. The push service is bench.push_service behind a TLS front
whose certificate the test makes and trusts."""

from __future__ import annotations

import datetime as dt
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bench.push_service import PushService
from notify.models import Delivery, PushSubscription
from tests.notify.push_helpers import play_card, subscribe_phone

pytestmark = pytest.mark.django_db

NAME = "push.example"
CHECKED = "127.0.0.2"
INTERNAL = "127.0.0.1"


def _certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for NAME and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, NAME)])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(NAME)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = directory / "push.pem", directory / "push.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


@dataclass
class RebindingPushService:
    """The push service on CHECKED:port behind TLS, and an internal listener on INTERNAL:port."""

    service: PushService
    port: int = 0
    server_names: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    internal_connections: list[tuple[str, int]] = field(default_factory=list)

    def start(self, cert_file: Path, key_file: Path) -> RebindingPushService:
        front = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                front.hosts.append(self.headers.get("Host", ""))
                self.send_response(front.service.take(self.path, dict(self.headers), body))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        context.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name or "")
        for _ in range(20):  # a port free on both addresses
            self.server = ThreadingHTTPServer((CHECKED, 0), Handler)
            self.port = self.server.server_address[1]
            self.internal = socket.socket()
            try:
                self.internal.bind((INTERNAL, self.port))
                break
            except OSError:
                self.internal.close()
                self.server.server_close()
        else:
            pytest.fail("no port free on both loopback addresses")
        self.server.daemon_threads = True
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.internal.listen()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        threading.Thread(target=self._internal_accepts, daemon=True).start()
        self.service.origin = f"https://{NAME}:{self.port}"
        return self

    def _internal_accepts(self) -> None:
        while True:
            try:
                conn, peer = self.internal.accept()
            except OSError:
                return
            self.internal_connections.append(peer)
            conn.close()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.internal.close()


@pytest.fixture
def rebinding(push_on: str, settings: Any, monkeypatch: pytest.MonkeyPatch,
              tmp_path: Path) -> Iterator[tuple[RebindingPushService, list[str]]]:
    """The guard's answer for NAME (a list the test may change) and the services behind both addresses."""
    import certifi

    from streams import outbound, ssrf

    settings.WEBHOOK_ALLOWED_NETWORKS = [f"{CHECKED}/32"]
    cert_file, key_file = _certificate(tmp_path)
    monkeypatch.setattr(certifi, "where", lambda: str(cert_file))  # the HTTP client trusts the test's certificate
    outbound.reset()  # no connection (nor trust store) kept from another test
    guard_answer = [CHECKED]
    real_resolve, real_getaddrinfo = ssrf.resolve, socket.getaddrinfo

    def guard_resolve(host: str, port: int) -> list[str]:
        return list(guard_answer) if host == NAME else real_resolve(host, port)

    def later_getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host == NAME:
            return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (INTERNAL, int(port)))]
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(ssrf, "resolve", guard_resolve)
    monkeypatch.setattr(socket, "getaddrinfo", later_getaddrinfo)
    front = RebindingPushService(PushService(server_key=push_on)).start(cert_file, key_file)
    yield front, guard_answer
    front.close()


def test_a_push_goes_to_the_checked_address_when_the_name_resolves_to_loopback_by_then(
    round_for_two: Callable[[], tuple[Any, Any, int]], rebinding: tuple[RebindingPushService, list[str]],
    eager_celery: None, django_capture_on_commit_callbacks: Any,
) -> None:
    front, _guard_answer = rebinding
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, front.service, "bo")
    assert PushSubscription.objects.get().endpoint == f"https://{NAME}:{front.port}/push/bo"
    assert socket.getaddrinfo(NAME, front.port)[0][4][0] == INTERNAL, "a fresh look-up now says loopback"
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    got = front.service.for_("bo")
    assert front.service.refused == [] and [r.payload["kind"] for r in got] == ["your_turn"]
    assert got[0].claims["aud"] == f"https://{NAME}:{front.port}", "VAPID names the push service, not its address"
    assert front.server_names == [NAME] and front.hosts == [f"{NAME}:{front.port}"]
    assert front.internal_connections == []
    assert Delivery.objects.get(player_id=bo.player_id).outcome == "sent"


def test_an_endpoint_whose_name_resolves_to_a_private_address_gets_nothing(
    round_for_two: Callable[[], tuple[Any, Any, int]], rebinding: tuple[RebindingPushService, list[str]],
    eager_celery: None, django_capture_on_commit_callbacks: Any,
) -> None:
    front, guard_answer = rebinding
    ada, bo, gid = round_for_two()
    guard_answer[:] = ["10.0.0.7"]
    refused = bo.post("/api/v1/me/push-subscriptions", front.service.subscribe("bo").browser_json(), format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == {"field": "endpoint", "reason": "private_address",
                                                   "address": "10.0.0.7", "kind": "private"}
    assert not PushSubscription.objects.exists()
    guard_answer[:] = [CHECKED]
    subscribe_phone(bo, front.service, "bo")
    guard_answer[:] = [CHECKED, "10.0.0.7"]  # one bad address among good ones is enough
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    delivery = Delivery.objects.get(player_id=bo.player_id)
    assert (delivery.outcome, delivery.response_status) == ("failed", None)
    assert "private_address" in delivery.last_error
    assert front.service.received == [] and front.server_names == [] and front.internal_connections == []
