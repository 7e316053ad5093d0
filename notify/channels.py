"""The four ways out: Web Push (RFC 8030 over the process's kept connections, RFC 8291 aes128gcm
and RFC 8292 VAPID written here with ``cryptography``), FCM HTTP v1 and APNs with a provider token
(APNs speaks only HTTP/2: many streams on one kept connection), e-mail (Django's mail framework, one
SMTP connection per batch). The requests go out through streams.outbound: many at once from one
worker process, bounded per origin, target and player. Each sender returns a :class:`Sent`; none
raises for a refusal, so the caller records the outcome. A channel without its settings is off
(:func:`status`, shown in /readyz)."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import os
import struct
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings

from streams import outbound
from streams.ssrf import UnsafeTarget

#: A Web Push message's record size (RFC 8291's 4096-byte record; its encryption adds 103 bytes).
PAYLOAD_MAX_BYTES = 3993
RECORD_SIZE = 4096


@dataclass
class Sent:
    """What one attempt came to: ``status`` the HTTP status (None: no answer); ``retry`` on
    429/5xx/timeouts, ``gone`` when the target no longer exists (404/410, an unregistered token)."""

    status: int | None
    error: str = ""
    retry: bool = False
    gone: bool = False

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def judged(status: int, error: str = "") -> Sent:
    if 200 <= status < 300:
        return Sent(status)
    return Sent(status, error[:300] or f"HTTP {status}", retry=status == 429 or status >= 500,
                gone=status in (404, 410))


def far_end_failed(sent: Any) -> bool:
    """For the back-off of a target or origin: no answer, 429 or 5xx."""
    return isinstance(sent, Sent) and sent.retry


@dataclass
class Request:
    """A request made ready in a Django thread (encrypted, signed), sent later on the loop."""

    url: str
    origin: str
    headers: dict[str, str]
    content: bytes = b""
    refusal: Any = None
    http1: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    #: Made ready for the loop (header lines encoded, the URL parsed) where no judge reads the answer.
    ready: outbound.Prepared | None = None


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"


async def posted(request: Request, judge: Callable[[httpx.Response], Sent] | None = None) -> Sent:
    """POST a prepared request over the origin's kept client (call on the loop)."""
    judge = judge or request.extra.get("judge")
    try:
        if judge is None and request.http1:  # only the status and the text: the light client
            light = outbound.outbound().light(request.origin, refusal=request.refusal)
            status, content = await light.post(
                request.ready or outbound.prepared(request.url, request.headers, request.content))
            return judged(status, content.decode("utf-8", "replace"))
        client = outbound.outbound().client(request.origin, refusal=request.refusal, http1=request.http1)
        answer = await client.post(request.url, content=request.content, headers=request.headers)
    except UnsafeTarget as exc:  # the address the name resolved to at connect time is refused
        return Sent(None, f"endpoint refused: {exc.reason} {exc.details}"[:300])
    except httpx.HTTPError as exc:  # timeouts, refused connections: try again later
        return Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=True)
    return judge(answer)


def sent_now(make: Callable[[], Awaitable[Sent]]) -> Sent:
    """One request on the loop, waited for (single sends: tests, tools)."""
    return outbound.outbound().call(make)


# --- Web Push -------------------------------------------------------------------------------------


def vapid_pem() -> str:
    """The VAPID private key: VAPID_PRIVATE_KEY, else the file bin/serve made (VAPID_PRIVATE_KEY_FILE)."""
    if settings.VAPID_PRIVATE_KEY.strip():
        return settings.VAPID_PRIVATE_KEY.strip().replace("\\n", "\n")
    path = Path(settings.VAPID_PRIVATE_KEY_FILE)
    return path.read_text() if path.is_file() else ""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@functools.lru_cache(maxsize=4)
def _vapid_key(pem: str) -> tuple[ec.EllipticCurvePrivateKey, str]:
    key = serialization.load_pem_private_key(pem.encode(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError("VAPID_PRIVATE_KEY is not an EC key")
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return key, b64url(point)


def vapid_public_key() -> str | None:
    """The application server key a browser subscribes with: the uncompressed P-256 point, base64url."""
    pem = vapid_pem()
    return _vapid_key(pem)[1] if pem else None


class VapidTokens:
    """One VAPID JWT per push service origin (RFC 8292: ``aud`` is the origin), signed once and reused
    until less than a tenth of its life is left, instead of an ECDSA signature per push."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tokens: dict[tuple[str, str], tuple[str, float]] = {}
        self.signed = 0  # how many were signed (for tests and the benchmark)

    def authorization(self, origin: str, now: float | None = None) -> str | None:
        pem = vapid_pem()
        if not pem:
            return None
        now = time.time() if now is None else now
        life = int(settings.VAPID_TOKEN_SECONDS)
        with self.lock:
            header, until = self.tokens.get((pem, origin), ("", 0.0))
            if until - now > life / 10:
                return header
            key, public = _vapid_key(pem)
            until = int(now) + life
            token = jwt.encode({"aud": origin, "exp": until, "sub": settings.VAPID_SUBJECT}, key, algorithm="ES256")
            header = f"vapid t={token}, k={public}"
            if len(self.tokens) > 1000:
                self.tokens.clear()
            self.tokens[(pem, origin)] = (header, float(until))
            self.signed += 1
            return header


vapid_tokens = VapidTokens()


@functools.lru_cache(maxsize=4096)
def _subscriber_key(p256dh: str) -> tuple[ec.EllipticCurvePublicKey, bytes]:
    point = b64url_decode(p256dh)
    return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point), point


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def encrypted(*, p256dh: str, auth: str, payload: bytes) -> bytes:
    """RFC 8291 (Message Encryption for Web Push) with RFC 8188 aes128gcm, one record: a fresh
    ephemeral key pair and salt per message (the RFC's rule), the subscriber's key parsed once."""
    subscriber, subscriber_point = _subscriber_key(p256dh)
    ephemeral = ec.generate_private_key(ec.SECP256R1())
    ephemeral_point = ephemeral.public_key().public_bytes(serialization.Encoding.X962,
                                                          serialization.PublicFormat.UncompressedPoint)
    shared = ephemeral.exchange(ec.ECDH(), subscriber)
    # HKDF-SHA256 with one output block each (RFC 5869: T(1) = HMAC(PRK, info || 0x01)).
    ikm = _hmac(_hmac(b64url_decode(auth), shared), b"WebPush: info\x00" + subscriber_point + ephemeral_point + b"\x01")
    salt = os.urandom(16)
    prk = _hmac(salt, ikm)
    cek = _hmac(prk, b"Content-Encoding: aes128gcm\x00\x01")[:16]
    nonce = _hmac(prk, b"Content-Encoding: nonce\x00\x01")[:12]
    record = AESGCM(cek).encrypt(nonce, payload + b"\x02", None)  # 0x02: the last record's delimiter
    return salt + struct.pack("!IB", RECORD_SIZE, len(ephemeral_point)) + ephemeral_point + record


def endpoint_allowed(endpoint: str) -> str | None:
    """Why a stored endpoint may not be pushed to now (its address is checked when connecting)."""
    parts = urlsplit(endpoint)
    if parts.scheme == "https" or (settings.PUSH_ALLOW_LOOPBACK and parts.scheme == "http"):
        return None if parts.hostname else "no_host"
    return "not_https"


def web_push_request(*, endpoint: str, p256dh: str, auth: str, payload: bytes, topic: str, ttl: int) -> Request | Sent:
    """The encrypted, signed request of one push (or why there is none). ``Topic`` (RFC 8030 5.4)
    makes a later message of the same game replace one the push service still holds."""
    origin = origin_of(endpoint)
    parts = urlsplit(endpoint)
    authorization = vapid_tokens.authorization(f"{parts.scheme}://{parts.netloc}")
    if authorization is None:
        return Sent(None, "web push is off: no VAPID key")
    why = endpoint_allowed(endpoint)
    if why is not None:
        return Sent(None, f"endpoint refused: {why}")
    try:
        body = encrypted(p256dh=p256dh, auth=auth, payload=payload)
    except (ValueError, TypeError) as exc:
        return Sent(None, f"bad subscription keys: {exc}"[:300])
    headers = {"Authorization": authorization, "Content-Encoding": "aes128gcm", "TTL": str(ttl), "Topic": topic,
               "Urgency": "high", "Content-Type": "application/octet-stream"}
    return Request(endpoint, origin, headers, body, refusal=outbound.push_refusal,
                   ready=outbound.prepared(endpoint, headers, body))


def web_push_send(*, endpoint: str, p256dh: str, auth: str, payload: bytes, topic: str, ttl: int) -> Sent:
    """One push, waited for."""
    request = web_push_request(endpoint=endpoint, p256dh=p256dh, auth=auth, payload=payload, topic=topic, ttl=ttl)
    if isinstance(request, Sent):
        return request
    return sent_now(lambda: posted(request))


# --- FCM HTTP v1 ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def _fcm_account(path: str) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def fcm_account() -> dict[str, Any] | None:
    path = settings.FCM_CREDENTIALS_FILE
    if not path or not Path(path).is_file():
        return None
    return _fcm_account(path)


class _AccessTokens:
    """OAuth 2 access tokens of the FCM service account (JWT bearer grant, RFC 7523), kept until near expiry."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.token: str = ""
        self.until = 0.0

    def get(self, account: dict[str, Any]) -> str:
        with self.lock:
            if self.token and time.time() < self.until - 60:
                return self.token
            now = int(time.time())
            token_uri = settings.FCM_TOKEN_URI or account.get("token_uri") or "https://oauth2.googleapis.com/token"
            assertion = jwt.encode({"iss": account["client_email"], "aud": token_uri, "iat": now, "exp": now + 3600,
                                    "scope": "https://www.googleapis.com/auth/firebase.messaging"},
                                   account["private_key"], algorithm="RS256",
                                   headers={"kid": account.get("private_key_id", "")})
            answer = httpx.post(token_uri, data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                                 "assertion": assertion}, timeout=settings.NOTIFY_TIMEOUT_SECONDS)
            answer.raise_for_status()
            body = answer.json()
            self.token, self.until = body["access_token"], now + float(body.get("expires_in", 3600))
            return self.token


fcm_tokens = _AccessTokens()


def fcm_request(*, token: str, title: str, body: str, data: dict[str, str], collapse: str) -> Request | Sent:
    """The FCM HTTP v1 request of one message (the OAuth token fetched here, kept until near expiry)."""
    account = fcm_account()
    if account is None:
        return Sent(None, "fcm is off: no FCM_CREDENTIALS_FILE")
    project = settings.FCM_PROJECT_ID or account.get("project_id", "")
    message = {"message": {"token": token, "notification": {"title": title, "body": body}, "data": data,
                           "android": {"collapse_key": collapse, "priority": "high",
                                       "notification": {"tag": collapse}},
                           "apns": {"headers": {"apns-collapse-id": collapse}}}}
    try:
        access = fcm_tokens.get(account)
    except httpx.HTTPStatusError as exc:
        return judged(exc.response.status_code, "token: " + exc.response.text)
    except httpx.HTTPError as exc:
        return Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=True)
    url = f"{settings.FCM_ENDPOINT.rstrip('/')}/v1/projects/{project}/messages:send"
    return Request(url, origin_of(url), {"Authorization": f"Bearer {access}", "Content-Type": "application/json"},
                   json.dumps(message).encode())


def fcm_send(*, token: str, title: str, body: str, data: dict[str, str], collapse: str) -> Sent:
    request = fcm_request(token=token, title=title, body=body, data=data, collapse=collapse)
    if isinstance(request, Sent):
        return request
    return sent_now(lambda: posted(request))  # 404 UNREGISTERED: a token FCM no longer knows


# --- APNs (token-based) ---------------------------------------------------------------------------


def apns_configured() -> bool:
    return bool(settings.APNS_KEY_FILE and Path(settings.APNS_KEY_FILE).is_file() and settings.APNS_KEY_ID
                and settings.APNS_TEAM_ID and settings.APNS_TOPIC)


class _ProviderToken:
    """The APNs provider token (ES256 JWT): Apple wants it renewed at most every 20 minutes, at least hourly."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.token = ""
        self.made = 0.0

    def get(self) -> str:
        with self.lock:
            if not self.token or time.time() - self.made > 40 * 60:
                self.made = time.time()
                self.token = jwt.encode({"iss": settings.APNS_TEAM_ID, "iat": int(self.made)},
                                        Path(settings.APNS_KEY_FILE).read_text(), algorithm="ES256",
                                        headers={"kid": settings.APNS_KEY_ID})
            return self.token


apns_token = _ProviderToken()


def apns_judged(answer: httpx.Response) -> Sent:
    sent = judged(answer.status_code, answer.text)
    if answer.status_code == 400 and "BadDeviceToken" in answer.text:
        sent.gone = True
    return sent


def apns_request(*, token: str, title: str, body: str, data: dict[str, Any], collapse: str) -> Request | Sent:
    """One APNs request; all go over one kept HTTP/2 connection per process (a plain-http origin, a
    local stand-in, speaks HTTP/2 with prior knowledge)."""
    if not apns_configured():
        return Sent(None, "apns is off: APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_TOPIC")
    origin = settings.APNS_ENDPOINT or ("https://api.sandbox.push.apple.com" if settings.APNS_USE_SANDBOX
                                        else "https://api.push.apple.com")
    headers = {"authorization": f"bearer {apns_token.get()}", "apns-topic": settings.APNS_TOPIC,
               "apns-push-type": "alert", "apns-priority": "10", "apns-collapse-id": collapse[:64],
               "apns-expiration": str(int(time.time()) + 3600), "content-type": "application/json"}
    payload = {"aps": {"alert": {"title": title, "body": body}, "thread-id": collapse, "sound": "default"}, **data}
    url = f"{origin.rstrip('/')}/3/device/{token}"
    return Request(url, origin_of(url), headers, json.dumps(payload).encode(), http1=not origin.startswith("http://"),
                   extra={"judge": apns_judged})


def apns_send(*, token: str, title: str, body: str, data: dict[str, Any], collapse: str) -> Sent:
    request = apns_request(token=token, title=title, body=body, data=data, collapse=collapse)
    if isinstance(request, Sent):
        return request
    return sent_now(lambda: posted(request, apns_judged))


# --- what is on -----------------------------------------------------------------------------------


def email_on() -> bool:
    return bool(settings.EMAIL_HOST)


def channel_on(channel: str) -> bool:
    if channel == "web_push":
        return bool(vapid_pem())
    if channel == "fcm":
        return fcm_account() is not None
    if channel == "apns":
        return apns_configured()
    return email_on()


def status() -> dict[str, str]:
    """For /readyz: each channel on, or off and why (never a failed check: a move does not need them)."""
    why = {"web_push": "off: no VAPID_PRIVATE_KEY", "fcm": "off: no FCM_CREDENTIALS_FILE",
           "apns": "off: APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID and APNS_TOPIC are needed",
           "email": "off: no EMAIL_HOST"}
    return {channel: "on" if channel_on(channel) else reason for channel, reason in why.items()}
