"""E-mail through a real SMTP server in the test process (aiosmtpd): the verification mail, a
your_turn mail (text + HTML, RFC 8058 one-click unsubscribe), and the unsubscribe link without log-in."""

from __future__ import annotations

import email
import email.policy
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from rest_framework.test import APIClient

from bench import harness
from games.models import Player
from notify.models import Delivery

pytestmark = pytest.mark.django_db


class Inbox:
    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
        return "250 OK"

    def wait(self, count: int) -> list[email.message.EmailMessage]:
        deadline = time.monotonic() + 30
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.messages


@pytest.fixture
def inbox(settings: Any) -> Iterator[Inbox]:
    box = Inbox()
    port = harness.free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.MAUMAU_PUBLIC_URL = "https://maumau.example.org"
    yield box
    controller.stop()


def _text(message: email.message.EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def _path(link: str) -> str:
    return link.removeprefix("https://maumau.example.org")


def _verified(bo: Any, inbox: Inbox, capture: Any, address: str = "bo@example.org") -> None:
    with capture(execute=True):
        assert bo.put("/api/v1/me/email", {"address": address}, format="json").status_code == 200
    link = re.search(r"https://\S+/email/verify/\S+", _text(inbox.wait(1)[-1])).group(0)
    page = APIClient().get(_path(link))
    assert page.status_code == 200 and address in page.content.decode()


def test_an_address_is_verified_by_its_link_then_gets_a_your_turn_mail_with_one_click_unsubscribe(
    round_for_two: Callable[[], tuple[Any, Any, int]], inbox: Inbox, eager_celery: None, push_on: str,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    assert bo.patch("/api/v1/me/notifications", {"kinds": {"your_turn": {"email": True}}},
                    format="json").status_code == 200
    _verified(bo, inbox, django_capture_on_commit_callbacks)
    assert inbox.messages[0]["To"] == "bo@example.org"
    assert bo.get("/api/v1/me/notifications").json()["email"] == {"address": "bo@example.org", "verified": True}
    assert Player.objects.get(pk=bo.player_id).has_notify_target
    with django_capture_on_commit_callbacks(execute=True):
        assert ada.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": ["KH"]},
                        format="json").status_code == 200
    mail = inbox.wait(2)[1]
    assert mail["Subject"] == "Your turn"
    assert f"https://maumau.example.org/#/game/{gid}" in _text(mail)
    assert mail.get_body(preferencelist=("html",)) is not None
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = str(mail["List-Unsubscribe"]).strip().strip("<>")
    assert unsubscribe.startswith("https://maumau.example.org/email/unsubscribe/")
    assert Delivery.objects.get(player_id=bo.player_id, channel="email").outcome == "sent"
    anonymous = APIClient()
    assert anonymous.get(_path(unsubscribe)).status_code == 200  # the page: nothing changed yet
    assert bo.get("/api/v1/me/notifications").json()["kinds"]["your_turn"]["email"] is True
    answer = anonymous.post(_path(unsubscribe), "List-Unsubscribe=One-Click",
                            content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 200
    kinds = bo.get("/api/v1/me/notifications").json()["kinds"]
    assert kinds["your_turn"]["email"] is False and kinds["round_over"]["email"] is False
    assert anonymous.post(_path(unsubscribe)[:-3] + "xyz").status_code == 400


def test_nothing_but_the_verification_mail_goes_to_an_unverified_address(
    round_for_two: Callable[[], tuple[Any, Any, int]], inbox: Inbox, eager_celery: None, push_on: str,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    bo.patch("/api/v1/me/notifications", {"kinds": {"your_turn": {"email": True}}}, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        bo.put("/api/v1/me/email", {"address": "bo@example.org"}, format="json")
        ada.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": ["KH"]}, format="json")
    assert len(inbox.wait(1)) == 1 and "verify" in _text(inbox.messages[0])
    assert not Delivery.objects.filter(channel="email").exists()


def test_verification_mails_to_one_address_are_limited(make_player: Callable[..., Any], inbox: Inbox,
                                                       eager_celery: None, settings: Any,
                                                       django_capture_on_commit_callbacks: Any) -> None:
    settings.NOTIFY_VERIFICATION_MAILS_PER_HOUR = 2
    bo = make_player("Bo")
    with django_capture_on_commit_callbacks(execute=True):
        answers = [bo.put("/api/v1/me/email", {"address": "bo@example.org"}, format="json").status_code
                   for _ in range(3)]
    assert answers == [200, 200, 429]
    assert len(inbox.wait(2)) == 2


@pytest.mark.parametrize("body", [{"address": "not an address"}, {"address": "a@" + "b" * 250 + ".org"},
                                  {"address": 5}, {}])
def test_a_bad_address_is_refused(make_player: Callable[..., Any], body: dict[str, Any]) -> None:
    bo = make_player("Bo")
    answer = bo.put("/api/v1/me/email", body, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "validation_error"
    assert bo.get("/api/v1/me/notifications").json()["email"] is None


def test_a_forged_verification_link_verifies_nothing(make_player: Callable[..., Any]) -> None:
    assert APIClient().get("/email/verify/forged:abc").status_code == 400
