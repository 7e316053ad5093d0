"""The four ways out: Web Push (RFC 8030 over httpx to the address the SSRF guard checked, RFC 8291
aes128gcm by pywebpush, RFC 8292 VAPID by py-vapid), FCM HTTP v1 and APNs with a provider token
(httpx; APNs speaks only HTTP/2), e-mail (Django's mail framework). Each sender returns a
:class:`Sent`; none raises for a refusal, so the caller records the outcome. A channel without its
settings is off (:func:`status`, shown in /readyz)."""

from __future__ import annotations

import functools
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import jwt
from django.conf import settings

from streams.ssrf import Target, post_pinned

#: A Web Push message's record size (RFC 8291's 4096-byte record; its encryption adds 103 bytes).
PAYLOAD_MAX_BYTES = 3993


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


# --- Web Push -------------------------------------------------------------------------------------


def vapid_pem() -> str:
    """The VAPID private key: VAPID_PRIVATE_KEY, else the file bin/serve made (VAPID_PRIVATE_KEY_FILE)."""
    if settings.VAPID_PRIVATE_KEY.strip():
        return settings.VAPID_PRIVATE_KEY.strip().replace("\\n", "\n")
    path = Path(settings.VAPID_PRIVATE_KEY_FILE)
    return path.read_text() if path.is_file() else ""


@functools.lru_cache(maxsize=4)
def _vapid(pem: str) -> Any:
    from py_vapid import Vapid02

    return Vapid02.from_pem(pem.encode())


def vapid() -> Any | None:
    pem = vapid_pem()
    return _vapid(pem) if pem else None


def vapid_public_key() -> str | None:
    """The application server key a browser subscribes with: the uncompressed P-256 point, base64url."""
    from cryptography.hazmat.primitives import serialization
    from py_vapid.utils import b64urlencode

    key = vapid()
    if key is None:
        return None
    return b64urlencode(key.public_key.public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint))


_push_clients = threading.local()
#: Push services a worker thread keeps a connection to (browsers use a handful).
PUSH_CLIENTS_KEPT = 8


def _push_client(target: Target) -> httpx.Client:
    """One client per push service host and worker thread, so connections are kept open and each
    carries the one server name it was opened and its certificate checked for."""
    clients: OrderedDict[tuple[str, str, int], httpx.Client] | None = getattr(_push_clients, "clients", None)
    if clients is None:
        clients = _push_clients.clients = OrderedDict()
    key = (target.scheme, target.host, target.port)
    client = clients.pop(key, None)
    if client is None:
        client = httpx.Client(timeout=settings.NOTIFY_TIMEOUT_SECONDS, follow_redirects=False, trust_env=False)
        while len(clients) >= PUSH_CLIENTS_KEPT:
            clients.popitem(last=False)[1].close()
    clients[key] = client
    return client


def web_push_send(*, endpoint: str, target: Target, p256dh: str, auth: str, payload: bytes, topic: str,
                  ttl: int) -> Sent:
    """One encrypted push, sent to ``target``: the endpoint's address that passed the SSRF guard (the
    name is not resolved again). ``Topic`` (RFC 8030 5.4) makes a later message of the same game
    replace one the push service still holds, so a message sent twice reaches the device once."""
    from pywebpush import WebPushException, WebPusher

    key = vapid()
    if key is None:
        return Sent(None, "web push is off: no VAPID key")
    origin = urlsplit(endpoint)
    try:
        body = WebPusher({"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}).encode(
            payload, "aes128gcm")["body"]
    except WebPushException as exc:
        return Sent(None, str(exc)[:300], retry=True)
    claims = {"sub": settings.VAPID_SUBJECT, "aud": f"{origin.scheme}://{origin.netloc}",
              "exp": int(time.time()) + 12 * 3600}
    headers = {**key.sign(claims), "Content-Encoding": "aes128gcm", "TTL": str(ttl), "Topic": topic,
               "Urgency": "high"}
    try:
        answer = post_pinned(_push_client(target), target, content=body, headers=headers)
    except httpx.HTTPError as exc:  # timeouts, refused connections: try again later
        return Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=True)
    return judged(answer.status_code, answer.text)


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


def fcm_send(*, token: str, title: str, body: str, data: dict[str, str], collapse: str) -> Sent:
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
        answer = httpx.post(f"{settings.FCM_ENDPOINT.rstrip('/')}/v1/projects/{project}/messages:send",
                            json=message, headers={"Authorization": f"Bearer {access}"},
                            timeout=settings.NOTIFY_TIMEOUT_SECONDS)
    except httpx.HTTPStatusError as exc:
        return judged(exc.response.status_code, "token: " + exc.response.text)
    except httpx.HTTPError as exc:
        return Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=True)
    return judged(answer.status_code, answer.text)  # 404 UNREGISTERED: a token FCM no longer knows


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
_apns_clients: dict[str, httpx.Client] = {}


def _apns_client(origin: str) -> httpx.Client:
    """One HTTP/2 connection per worker process (APNs wants connections kept, not one per push). A
    plain-http origin (a local stand-in) speaks HTTP/2 with prior knowledge."""
    client = _apns_clients.get(origin)
    if client is None:
        client = httpx.Client(http2=True, http1=not origin.startswith("http://"),
                              timeout=settings.NOTIFY_TIMEOUT_SECONDS)
        _apns_clients[origin] = client
    return client


def apns_send(*, token: str, title: str, body: str, data: dict[str, Any], collapse: str) -> Sent:
    if not apns_configured():
        return Sent(None, "apns is off: APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_TOPIC")
    origin = settings.APNS_ENDPOINT or ("https://api.sandbox.push.apple.com" if settings.APNS_USE_SANDBOX
                                        else "https://api.push.apple.com")
    headers = {"authorization": f"bearer {apns_token.get()}", "apns-topic": settings.APNS_TOPIC,
               "apns-push-type": "alert", "apns-priority": "10", "apns-collapse-id": collapse[:64],
               "apns-expiration": str(int(time.time()) + 3600)}
    payload = {"aps": {"alert": {"title": title, "body": body}, "thread-id": collapse, "sound": "default"}, **data}
    try:
        answer = _apns_client(origin).post(f"{origin.rstrip('/')}/3/device/{token}", json=payload, headers=headers)
    except httpx.HTTPError as exc:
        return Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=True)
    sent = judged(answer.status_code, answer.text)
    if answer.status_code == 400 and "BadDeviceToken" in answer.text:
        sent.gone = True
    return sent


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
