"""The mails of one fan-out go to the mail server over ONE SMTP connection, not one each."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from django.utils import timezone

from bench import harness
from notify.models import Delivery, EmailAddress, Preferences
from streams.models import Notification
from tests.notify.test_email import Inbox

pytestmark = pytest.mark.django_db


class CountingInbox(Inbox):
    def __init__(self) -> None:
        super().__init__()
        self.connections = 0

    async def handle_EHLO(self, server: Any, session: Any, envelope: Any, hostname: str,  # noqa: N802
                          responses: list[str]) -> list[str]:
        self.connections += 1
        session.host_name = hostname
        return responses


@pytest.fixture
def inbox(settings: Any) -> Iterator[CountingInbox]:
    box = CountingInbox()
    controller = Controller(box, hostname="127.0.0.1", port=harness.free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    yield box
    controller.stop()


def test_a_batch_of_mails_goes_over_one_smtp_connection(
    make_player: Callable[..., Any], inbox: CountingInbox, push_on: str,
) -> None:
    from notify import services

    notes = []
    for name in ("Ada", "Bo", "Cy"):
        player = make_player(name)
        EmailAddress.objects.create(player_id=player.player_id, address=f"{name.lower()}@example.org",
                                    verified_at=timezone.now())
        Preferences.objects.create(player_id=player.player_id, choices={"round_over": {"email": True}})
        notes.append(Notification.objects.create(player_id=player.player_id, kind="round_over", data={}))
    sent = services.fan_out(notification_ids=[n.pk for n in notes])
    assert len(sent) == 3
    assert sorted(m["To"] for m in inbox.wait(3)) == ["ada@example.org", "bo@example.org", "cy@example.org"]
    assert inbox.connections == 1
    assert list(Delivery.objects.values_list("outcome", flat=True)) == ["sent"] * 3
