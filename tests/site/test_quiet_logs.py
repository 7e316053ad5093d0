"""The default logging drops the routine lines of the backstop sweeps and keeps everything else."""

from __future__ import annotations

import logging
from typing import Any

import pytest

SWEEP = "games.deadlines_sweep"
RECEIVED = "Task %(name)s[%(id)s] received"
SUCCEEDED = "Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s"


def task(name: str) -> dict[str, Any]:
    return {"name": name, "id": "4f1c", "runtime": 0.003, "return_value": 0}


LINES = [
    ("celery.beat", "Scheduler: Sending due task %s (%s)", "clocks-sweep"),
    ("celery.worker.strategy", RECEIVED, None),
    ("celery.app.trace", SUCCEEDED, None),
]


def log(logger_name: str, level: int, message: str, first: str | None, task_name: str) -> None:
    """A line as beat (positional arguments) or the worker (one mapping) writes it."""
    args: tuple[Any, ...] = (first, task_name) if first is not None else (task(task_name),)
    logging.getLogger(logger_name).log(level, message, *args)


@pytest.mark.parametrize("logger_name, message, first", LINES)
def test_the_clock_sweeps_routine_lines_are_not_logged(caplog: pytest.LogCaptureFixture, logger_name: str,
                                                        message: str, first: str | None) -> None:
    with caplog.at_level(logging.INFO):
        log(logger_name, logging.INFO, message, first, SWEEP)
    assert caplog.records == []


@pytest.mark.parametrize("logger_name, message, first", LINES)
def test_lines_about_other_tasks_are_logged(caplog: pytest.LogCaptureFixture, logger_name: str, message: str,
                                            first: str | None) -> None:
    with caplog.at_level(logging.INFO):
        log(logger_name, logging.INFO, message, first, "games.bot_move")
    assert [r.getMessage() for r in caplog.records if "games.bot_move" in r.getMessage()]


def test_the_sweeps_errors_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        logging.getLogger("celery.app.trace").error("Task %(name)s[%(id)s] raised unexpected: %(exc)s",
                                                    {**task(SWEEP), "exc": "OperationalError"})
    assert [r.levelno for r in caplog.records] == [logging.ERROR]
