"""The outbox: a move's notifications are written for the deliveries process in the move's own
transaction (no broker message), and its reader takes them, and the due retries, in batches."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.utils import timezone

from bench.push_service import PushService
from notify import reader, services
from notify.models import Delivery, Outbox
from streams.models import Notification
from tests.notify.push_helpers import play_card, subscribe_phone


def test_a_moves_notification_waits_in_the_outbox_and_the_reader_sends_it_once(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    note = Notification.objects.get(player_id=bo.player_id, kind="your_turn")
    assert list(Outbox.objects.values_list("notification_id", flat=True)) == [note.pk]
    assert not Delivery.objects.exists() and push_service.for_("bo") == []
    assert services.outbox_read(wait=True) == 1
    assert not Outbox.objects.exists(), "taken in the transaction that wrote its deliveries"
    assert services.outbox_read(wait=True) == 0
    assert [r.payload["id"] for r in push_service.for_("bo")] == [note.pk]
    assert Delivery.objects.get(notification=note).outcome == "sent"


def test_a_player_without_a_target_leaves_nothing_in_the_outbox(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_on: str, django_capture_on_commit_callbacks: Any,
) -> None:
    ada, _bo, gid = round_for_two()
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    assert not Outbox.objects.exists()


def test_the_reader_takes_due_retries_in_a_batch_and_only_the_newest_your_turn_of_a_game(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.NOTIFY_MAX_ATTEMPTS = 5
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    push_service.subscriptions["bo"].status = 503
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    services.outbox_read(wait=True)
    older = Delivery.objects.get(player_id=bo.player_id)
    assert older.outcome == "retrying" and older.lease_until is None
    in_flight = timezone.now() + timedelta(seconds=60)
    Delivery.objects.filter(pk=older.pk).update(lease_until=in_flight)  # its retry on its way, unanswered
    play_card(bo, gid, "QH", django_capture_on_commit_callbacks)
    play_card(ada, gid, "10H", django_capture_on_commit_callbacks)
    services.outbox_read(wait=True)
    newer = Delivery.objects.filter(player_id=bo.player_id, kind="your_turn").latest("pk")
    assert newer.outcome == "retrying"
    Delivery.objects.filter(pk=older.pk).update(lease_until=None)  # that retry failed too: due again
    push_service.subscriptions["bo"].status = 201
    Delivery.objects.update(next_attempt_at=timezone.now() + timedelta(seconds=60))
    assert services.retries_read(wait=True) == 0, "not due yet"
    Delivery.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    assert services.retries_read(wait=True) == 2
    assert Delivery.objects.get(pk=older.pk).outcome == "replaced"
    assert Delivery.objects.get(pk=newer.pk).outcome == "sent"
    assert [r.payload["id"] for r in push_service.for_("bo")] == [newer.notification_id]
    assert reader.read_once() == 0


def test_a_reader_that_died_before_its_commit_leaves_the_outbox_to_the_next(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, monkeypatch: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    import pytest

    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    real = services._deliveries_rows  # noqa: SLF001 - the test kills the reader inside its transaction

    def dies(ids: list[int]) -> Any:
        real(ids)
        raise RuntimeError("killed")

    monkeypatch.setattr(services, "_deliveries_rows", dies)
    with pytest.raises(RuntimeError):
        services.outbox_read(wait=True)
    assert Outbox.objects.count() == 1 and not Delivery.objects.exists(), "nothing of the batch was committed"
    monkeypatch.setattr(services, "_deliveries_rows", real)
    assert services.outbox_read(wait=True) == 1
    assert len(push_service.for_("bo")) == 1


def test_a_turn_told_before_the_player_moved_but_read_after_does_not_hold_back_the_next(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Coalescing compares the player's last move with when a turn was told, not with when the
    reader wrote its row: a lagging reader wrote Bo's first your_turn after Bo had already played."""
    settings.NOTIFY_RECENT_MOVE_SECONDS = 0
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)  # Bo's turn told ...
    play_card(bo, gid, "QH", django_capture_on_commit_callbacks)  # ... Bo plays before the reader came
    assert services.outbox_read(wait=True) == 1  # the first turn is sent late
    play_card(ada, gid, "10H", django_capture_on_commit_callbacks)  # Bo's next turn
    assert services.outbox_read(wait=True) == 1
    latest = Delivery.objects.filter(player_id=bo.player_id, kind="your_turn").latest("pk")
    assert latest.outcome == "sent"
    assert len(push_service.for_("bo")) == 2
