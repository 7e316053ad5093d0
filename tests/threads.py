"""Requests and moves run at once, each in a thread of its own (its own database connection), released
together at a barrier: the concurrency tests of several apps share this one shape."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def run_together(moves: list[Callable[[threading.Barrier], object]]) -> list[BaseException]:
    """Run each move in its own thread (own connection); each waits at the shared barrier."""
    barrier = threading.Barrier(len(moves))
    errors: list[BaseException] = []

    def run(move: Callable[[threading.Barrier], object]) -> None:
        try:
            move(barrier)
        except BaseException as error:  # noqa: BLE001 - reported to the test thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(move,)) for move in moves]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return errors


def statuses_at_once(requests: list[Callable[[], Any]]) -> list[int]:
    """Each request (a test client's call) in its own thread, all released at once: their status codes."""
    statuses: list[int] = []

    def move(request: Callable[[], Any]) -> Callable[[threading.Barrier], object]:
        def run(barrier: threading.Barrier) -> None:
            barrier.wait()
            statuses.append(request().status_code)

        return run

    errors = run_together([move(request) for request in requests])
    if errors:
        raise errors[0]
    return statuses
