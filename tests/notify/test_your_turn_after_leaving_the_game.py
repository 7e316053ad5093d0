"""A player who moved and then left the game page (their stream of it closed) is pushed their next turn,
even when it comes within NOTIFY_RECENT_MOVE_SECONDS of their move: the closed stream says they no
longer look at the board. Without leaving, a move just now still counts as looking."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync

from bench.push_service import PushService
from games import presence
from notify.models import Delivery
from tests.notify.push_helpers import play_card, subscribe_phone

pytestmark = pytest.mark.django_db


def test_a_move_just_now_holds_the_push_back_unless_the_player_left_the_game(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any, settings: Any,
) -> None:
    settings.NOTIFY_RECENT_MOVE_SECONDS = 60
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    assert len(push_service.for_("bo")) == 1
    play_card(bo, gid, "QH", django_capture_on_commit_callbacks)
    play_card(ada, gid, "10H", django_capture_on_commit_callbacks)  # within a minute of Bo's move, Bo still there
    assert len(push_service.for_("bo")) == 1
    assert Delivery.objects.filter(player_id=bo.player_id).order_by("-id").first().outcome == "watching"
    play_card(bo, gid, "10D", django_capture_on_commit_callbacks)
    async_to_sync(presence.watching_aunmark)(bo.player_id, gid)  # Bo's game stream closed: he left the page
    play_card(ada, gid, "10S", django_capture_on_commit_callbacks)  # within a minute of Bo's move, Bo gone
    got = push_service.for_("bo")
    assert len(got) == 2 and got[1].payload["kind"] == "your_turn"
    assert Delivery.objects.filter(player_id=bo.player_id).order_by("-id").first().outcome == "sent"
