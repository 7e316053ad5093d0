"""The webhook signing secret signs deliveries: whoever reads it can forge them, so a ``read`` token
(a leaderboard scraper) never sees it; it needs the ``play`` scope, as registering a webhook does."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from tests.accounts.conftest import signed_in

pytestmark = pytest.mark.django_db


def test_a_read_token_cannot_fetch_the_webhook_secret(make_player: Callable[..., APIClient]) -> None:
    ada = make_player("Ada")
    secret = ada.get("/api/v1/webhooks/secret")
    assert secret.status_code == 200 and secret.json()["secret"]
    reader = signed_in(ada.post("/api/v1/me/tokens", {"name": "scraper", "scopes": ["read"]}, format="json").json())
    refused = reader.get("/api/v1/webhooks/secret")
    assert refused.status_code == 403, refused.content
    assert refused.json()["error"]["details"]["required_scope"] == "play"
    assert secret.json()["secret"] not in refused.content.decode()
    assert reader.get("/api/v1/webhooks").status_code == 200  # the list holds no secret: still readable
    player = signed_in(ada.post("/api/v1/me/tokens", {"name": "bot", "scopes": ["play"]}, format="json").json())
    assert player.get("/api/v1/webhooks/secret").json()["secret"] == secret.json()["secret"]
