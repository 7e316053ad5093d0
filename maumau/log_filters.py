"""Logging that stays readable: the backstop sweeps run every few seconds and say nothing unless they fail."""

from __future__ import annotations

import logging
from collections.abc import Iterable


class RoutineTasksFilter(logging.Filter):
    """Drops the INFO lines of beat ("Sending due task") and of the worker ("received", "succeeded")
    about the given routine tasks; their warnings and errors pass, as does every line about other tasks."""

    def __init__(self, tasks: Iterable[str] = ()) -> None:
        super().__init__()
        self.tasks = tuple(tasks)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        message = record.getMessage()
        return not any(task in message for task in self.tasks)
