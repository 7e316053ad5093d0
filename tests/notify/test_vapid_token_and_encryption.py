"""Web Push without per-push signing: one VAPID JWT per push service origin, reused until shortly
before it expires; RFC 8291 encryption with a fresh ephemeral key and salt for every message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import http_ece
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from bench.push_service import PushService, b64url_decode
from notify import channels
from tests.notify.push_helpers import play_card, subscribe_phone

pytestmark = pytest.mark.django_db


def test_one_vapid_token_per_origin_is_reused_within_its_life_and_renewed_near_its_end(
    push_on: str, settings: Any,
) -> None:
    settings.VAPID_TOKEN_SECONDS = 1000
    tokens = channels.VapidTokens()
    first = tokens.authorization("https://push.example", now=10_000.0)
    assert tokens.authorization("https://push.example", now=10_000.0 + 899) == first, "reused within its life"
    other = tokens.authorization("https://other.example", now=10_000.0)
    assert other != first and tokens.signed == 2, "one per origin: the audience differs"
    renewed = tokens.authorization("https://push.example", now=10_000.0 + 901)
    assert renewed != first and tokens.signed == 3, "renewed when less than a tenth of its life is left"
    token = renewed.split("t=", 1)[1].split(",", 1)[0]
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["aud"] == "https://push.example" and claims["exp"] == 10_000 + 901 + 1000
    assert claims["sub"] == settings.VAPID_SUBJECT


def test_pushes_to_one_push_service_carry_the_same_signed_token(
    make_player: Callable[..., Any], round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService,
    eager_celery: None, django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    subscribe_phone(ada, push_service, "ada")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    play_card(bo, gid, "QH", django_capture_on_commit_callbacks)
    got = push_service.received
    assert [r.subscription for r in got] == ["bo", "ada"] and push_service.refused == []
    assert got[0].headers["authorization"] == got[1].headers["authorization"], "signed once, not per push"


def test_each_message_is_encrypted_with_a_fresh_key_and_decrypts_per_rfc_8291() -> None:
    service = PushService().start()
    sub = service.subscribe("bo")
    service.close()
    keys = {"p256dh": sub.browser_json()["keys"]["p256dh"], "auth": sub.browser_json()["keys"]["auth"]}
    one = channels.encrypted(**keys, payload=b'{"kind":"your_turn"}')
    two = channels.encrypted(**keys, payload=b'{"kind":"your_turn"}')
    # RFC 8188 header: salt (16), record size (4), key id length (1), key id: the sender's public key.
    assert one[:16] != two[:16], "a fresh salt"
    assert one[21:86] != two[21:86], "a fresh ephemeral key"
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), one[21:86])
    for body in (one, two):
        plain = http_ece.decrypt(body, private_key=sub.private_key, auth_secret=b64url_decode(keys["auth"]),
                                 version="aes128gcm")
        assert plain == b'{"kind":"your_turn"}'
