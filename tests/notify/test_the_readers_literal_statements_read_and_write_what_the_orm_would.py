"""notify.sql: the deliveries reader's literal statements read and write what the ORM would, on
either database, and a batch of the outbox costs the same statements however many it takes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bench.push_service import PushService
from games.models import Move
from notify import services
from notify import sql as notify_sql
from notify.models import Delivery, Outbox, Preferences
from streams.models import Notification
from tests.notify.push_helpers import play_card, subscribe_phone

pytestmark = pytest.mark.django_db


def fields_of(obj: Model) -> dict[str, Any]:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


@pytest.mark.parametrize(("model", "columns"), [
    (Notification, notify_sql.NOTE_COLUMNS), (Preferences, notify_sql.PREFERENCE_COLUMNS),
], ids=["notification", "preferences"])
def test_the_literal_reads_select_every_field_of_their_models(model: type[Model], columns: tuple[str, ...]) -> None:
    """A field added to a model must be added to the statement that loads it (else it loads deferred)."""
    assert columns == tuple(f.attname for f in model._meta.concrete_fields)


def test_the_literal_insert_names_every_field_of_a_delivery() -> None:
    """What the statement writes from the rows, what it sets itself, and what it leaves NULL."""
    written = set(notify_sql.DELIVERY_COLUMNS) | {"attempts", "last_error", "next_attempt_at", "lease_until",
                                                  "created_at"}
    assert written | {"id", "response_status", "sent_at"} == {f.attname for f in Delivery._meta.concrete_fields}


def test_inserted_deliveries_get_their_ids_and_read_back_equal(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService,
) -> None:
    _ada, bo, gid = round_for_two()
    sub = subscribe_phone(bo, push_service, "bo")["id"]
    note = Notification.objects.create(player_id=bo.player_id, kind="your_turn", game_id=gid)
    rows = [Delivery(notification=note, player_id=bo.player_id, game_id=gid, kind="your_turn", channel="web_push",
                     target=f"web_push:{sub}", subscription_id=sub, outcome="pending"),
            Delivery(notification=note, player_id=bo.player_id, game_id=gid, kind="your_turn", channel="email",
                     target="email:1", outcome="quiet")]
    now = timezone.now()
    notify_sql.deliveries_insert(rows, now, now + timedelta(seconds=60))
    assert all(row.pk is not None and not row._state.adding for row in rows)
    assert [fields_of(row) for row in rows] == [fields_of(Delivery.objects.get(pk=row.pk)) for row in rows]
    pending, quiet = (Delivery.objects.get(pk=row.pk) for row in rows)
    assert (pending.attempts, pending.last_error, pending.response_status, pending.sent_at) == (0, "", None, None)
    assert pending.lease_until == now + timedelta(seconds=60) and quiet.lease_until is None
    assert pending.next_attempt_at == now and abs(pending.created_at - now) < timedelta(seconds=1)


def test_the_batchs_notifications_come_with_their_preferences_and_without_those_written(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService,
) -> None:
    ada, bo, gid = round_for_two()
    Preferences.objects.create(player_id=bo.player_id, language="de", choices={"your_turn": {"email": True}})
    notes = [Notification.objects.create(player_id=player.player_id, kind="your_turn", game_id=gid, data={"n": n})
             for n, player in enumerate((bo, ada, bo))]
    Delivery.objects.create(notification=notes[2], player_id=bo.player_id, game_id=gid, kind="your_turn",
                            channel="email", target="email:1", outcome="sent")
    read, prefs = notify_sql.notes_unwritten([n.pk for n in notes])
    assert [fields_of(n) for n in read] == [fields_of(Notification.objects.get(pk=n.pk)) for n in notes[:2]]
    assert list(prefs) == [bo.player_id]
    assert fields_of(prefs[bo.player_id]) == fields_of(Preferences.objects.get(player_id=bo.player_id))


def test_a_players_last_move_is_read_to_the_microsecond(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    moved = Move.objects.filter(game_id=gid, player_id=ada.player_id).latest("seq").created_at
    rows = notify_sql.turns_told({(ada.player_id, gid)}, [])
    assert [(what, seconds) for what, *_rest, seconds in rows] == [
        ("moved", pytest.approx(moved.timestamp(), abs=1e-6))]


def test_a_batch_of_the_outbox_costs_the_same_statements_for_one_notification_as_for_many(
    make_player: Callable[..., Any], round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService,
) -> None:
    def statements_for(count: int) -> int:
        Outbox.objects.all().delete()
        for n in range(count):
            _ada, bo, gid = round_for_two()
            subscribe_phone(bo, push_service, f"bo{count}-{n}")
            note = Notification.objects.create(player_id=bo.player_id, kind="your_turn", game_id=gid)
            Outbox.objects.create(notification_id=note.pk)
        with CaptureQueriesContext(connection) as queries:
            assert services.outbox_read(wait=True) == count
        return len(queries.captured_queries)

    assert statements_for(1) == statements_for(6)
    assert Delivery.objects.filter(outcome="sent").count() == 7
