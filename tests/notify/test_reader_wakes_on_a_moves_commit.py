"""On PostgreSQL the deliveries process's reader waits for the outbox's notification (sent at the
commit of a transaction that wrote outbox rows) instead of polling every DELIVERY_READ_SECONDS."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.db import transaction

from notify import reader
from notify.models import Outbox

ON_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]
pytestmark = [pytest.mark.skipif(not ON_POSTGRES, reason="SQLite has no LISTEN: its reader polls"),
              pytest.mark.django_db(transaction=True)]


def test_a_committed_outbox_row_wakes_the_reader() -> None:
    wakeup = reader.Wakeup()
    try:
        assert wakeup.wait(0.05, fallback=0) is False, "nothing written: the wait runs out"
        Outbox.objects.create(notification_id=1)
        assert wakeup.wait(60, fallback=0) is True
        assert wakeup.wait(0.05, fallback=0) is False, "one wake for one commit"
    finally:
        wakeup.close()


def test_a_rolled_back_outbox_row_wakes_nobody() -> None:
    wakeup = reader.Wakeup()
    try:
        wakeup.wait(0.05, fallback=0)
        with transaction.atomic():
            Outbox.objects.create(notification_id=1)
            transaction.set_rollback(True)
        assert wakeup.wait(0.5, fallback=0) is False
    finally:
        wakeup.close()


def test_a_broken_wakeup_connection_is_opened_again() -> None:
    wakeup = reader.Wakeup()
    try:
        wakeup.wait(0.05, fallback=0)
        wakeup.conn.close()  # the connection is gone
        Outbox.objects.create(notification_id=1)  # told while nobody listened: the next idle read finds it
        assert wakeup.wait(0.05, fallback=0) is False  # listening again, on a new connection
        Outbox.objects.create(notification_id=2)
        assert wakeup.wait(60, fallback=0) is True
    finally:
        wakeup.close()
