"""A small Web Push service on 127.0.0.1 for the tests and the push benchmark: it holds subscriptions
whose key pairs it made, checks each push's VAPID JWT (ES256, RFC 8292) against the application
server's public key, decrypts the RFC 8291 aes128gcm payload with the subscription's private key, and
keeps what arrived (with the time it arrived). Written from the RFCs, with the ``cryptography``,
``http_ece`` and PyJWT packages, not with the service's own code."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import http_ece
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def vapid_key_pem() -> str:
    """A fresh P-256 private key in PEM, as an operator would set VAPID_PRIVATE_KEY."""
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


@dataclass
class Received:
    subscription: str
    payload: dict[str, Any]
    headers: dict[str, str]
    claims: dict[str, Any]
    at: float


@dataclass
class Subscription:
    name: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    endpoint: str
    status: int = 201

    def browser_json(self) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives a page."""
        point = self.private_key.public_key().public_bytes(serialization.Encoding.X962,
                                                           serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)}}


@dataclass
class PushService:
    """``server_key``: the application server's public key (base64url) the JWTs must verify with.
    ``delay``: seconds each answer takes (a real push service answers in 50-150 ms); ``keep_alive``:
    HTTP/1.1 with kept connections; :meth:`stall` makes it hold every request, unanswered, until the
    stall ends: a request whose sender gave up by then (timed out, closed) is not taken."""

    server_key: str = ""
    delay: float = 0.0
    keep_alive: bool = False
    subscriptions: dict[str, Subscription] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    dropped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    stalled_until: float = 0.0
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)

    def stall(self, seconds: float) -> None:
        self.stalled_until = time.monotonic() + seconds

    def _sender_still_there(self, connection: Any) -> bool:
        import select
        import socket

        while time.monotonic() < self.stalled_until:
            time.sleep(min(0.05, self.stalled_until - time.monotonic()))
        readable, _, _ = select.select([connection], [], [], 0)
        if not readable:
            return True
        try:
            return connection.recv(1, socket.MSG_PEEK) != b""
        except OSError:
            return False

    def start(self) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if service.keep_alive else "HTTP/1.0"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if service.delay:
                    time.sleep(service.delay)
                if time.monotonic() < service.stalled_until and not service._sender_still_there(self.connection):
                    with service.lock:
                        service.dropped += 1
                    self.close_connection = True
                    return
                status = service.take(self.path, dict(self.headers), body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 1024  # a burst of new connections after a stall

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a sender that closed its kept connection (or gave up in a stall)

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def subscribe(self, name: str) -> Subscription:
        sub = Subscription(name, ec.generate_private_key(ec.SECP256R1()), os.urandom(16),
                           f"{self.origin}/push/{name}")
        self.subscriptions[name] = sub
        return sub

    def for_(self, name: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.subscription == name]

    def take(self, path: str, headers: dict[str, str], body: bytes) -> int:
        name = path.rsplit("/", 1)[-1]
        sub = self.subscriptions.get(name)
        if sub is None:
            return 404
        if sub.status >= 400:
            return sub.status
        try:
            claims = self.vapid_checked(headers, sub.endpoint)
            encoding = {k.lower(): v for k, v in headers.items()}.get("content-encoding")
            if encoding != "aes128gcm":
                raise ValueError(f"content encoding {encoding}")
            plain = http_ece.decrypt(body, private_key=sub.private_key, auth_secret=sub.auth, version="aes128gcm")
            payload = json.loads(plain)
        except Exception as exc:
            with self.lock:
                self.refused.append(f"{type(exc).__name__}: {exc}")
            return 400
        with self.lock:
            self.received.append(Received(name, payload, {k.lower(): v for k, v in headers.items()}, claims,
                                          time.time()))
        return sub.status

    def vapid_checked(self, headers: dict[str, str], endpoint: str) -> dict[str, Any]:
        """RFC 8292: ``Authorization: vapid t=<JWT>, k=<public key>``, the JWT signed with ES256 by the
        key the subscription was made with, its ``aud`` the push resource's origin, ``exp`` within 24 h."""
        headers = {k.lower(): v for k, v in headers.items()}
        scheme, _, params = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError(f"authorization scheme {scheme!r}")
        values = dict(part.strip().split("=", 1) for part in params.split(","))
        if self.server_key and values["k"] != self.server_key:
            raise ValueError("not the application server's key")
        parts = urlsplit(endpoint)
        claims = self.tokens.get(values["t"] + values["k"])  # a token verified before: its signature holds
        if claims is None or claims["aud"] != f"{parts.scheme}://{parts.netloc}":
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(values["k"]))
            claims = jwt.decode(values["t"], public, algorithms=["ES256"],
                                audience=f"{parts.scheme}://{parts.netloc}")
            self.tokens[values["t"] + values["k"]] = claims
        if not 0 < claims["exp"] - time.time() <= 24 * 3600 or "sub" not in claims:
            raise ValueError("exp or sub")
        return claims
