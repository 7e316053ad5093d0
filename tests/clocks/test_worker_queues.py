"""Celery's routing (maumau/celery.py): the sweeps, the bots and the deliveries each on a queue of their
own, so that nothing a player sends (webhooks, pushes, mails) waits in front of a turn clock."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from maumau.celery import app


def queue_of(name: str) -> str:
    return app.amqp.router.route({}, name)["queue"].name


def test_the_defaults_are_three_queues() -> None:
    assert (settings.MAUMAU_CLOCK_QUEUE, settings.MAUMAU_BOT_QUEUE, settings.MAUMAU_DELIVERY_QUEUE) == (
        "clocks", "bots", "deliveries")


@pytest.mark.parametrize("name", ["games.deadlines_sweep", "games.idempotency_purge", "lobby.sweep", "notify.sweep",
                                  "streams.webhook_sweep", "scoring.sweep"])
def test_every_sweep_goes_to_the_clocks_queue(name: str) -> None:
    assert queue_of(name) == settings.MAUMAU_CLOCK_QUEUE


@pytest.mark.parametrize("name", ["streams.webhook_deliver", "notify.fan_out", "notify.deliver",
                                  "notify.verification_mail", "notify.push_batch", "streams.anything_new"])
def test_every_delivery_goes_to_the_deliveries_queue(name: str) -> None:
    assert queue_of(name) == settings.MAUMAU_DELIVERY_QUEUE


def test_the_bots_move_goes_to_the_bots_queue() -> None:
    assert queue_of("games.bot_move") == settings.MAUMAU_BOT_QUEUE


def test_every_registered_task_has_a_named_queue() -> None:
    """No task of the product falls through to Celery's default queue, which no worker consumes."""
    ours = [name for name in app.tasks if name.split(".")[0] in {"games", "notify", "streams", "lobby", "scoring"}]
    assert ours
    queues = {settings.MAUMAU_CLOCK_QUEUE, settings.MAUMAU_BOT_QUEUE, settings.MAUMAU_DELIVERY_QUEUE}
    assert {name: queue_of(name) for name in ours if queue_of(name) not in queues} == {}


def test_the_queue_settings_are_read_when_a_task_is_sent() -> None:
    with override_settings(MAUMAU_CLOCK_QUEUE="c1", MAUMAU_BOT_QUEUE="b1", MAUMAU_DELIVERY_QUEUE="d1"):
        assert [queue_of(n) for n in ("games.deadlines_sweep", "games.bot_move", "notify.deliver")] == [
            "c1", "b1", "d1"]


def test_the_procfile_runs_one_worker_per_queue_and_beat() -> None:
    procfile = (Path(settings.BASE_DIR) / "Procfile").read_text()
    lines = dict(line.split(":", 1) for line in procfile.splitlines() if line.strip())
    workers = {name: command for name, command in lines.items() if " worker " in command}
    consumed = {name: re.search(r"-Q (\S+)", command).group(1) for name, command in workers.items()}
    assert consumed == {"clocks": "${MAUMAU_CLOCK_QUEUE:-clocks}", "bots": "${MAUMAU_BOT_QUEUE:-bots}",
                        "deliveries": "${MAUMAU_DELIVERY_QUEUE:-deliveries}"}
    assert "celery -A maumau beat" in lines["beat"]
