"""A read whose database connection died under it is answered from a fresh connection.

The pool checks a connection when a request borrows it (``maumau/postgresql/base.py``), but the
database may still end a session while a request uses it (a restart, ``pg_terminate_backend``). A
read that fails so is run once more: reads change nothing but what is idempotent by design (a passed
deadline resolved once, a token's last use). Writes retry where they know nothing was committed: the
move pipeline (``games.services.move_submit``) does so itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


class DatabaseRetryMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> Any:
        if (request.method not in SAFE_METHODS or getattr(request, "_database_retried", False)
                or not isinstance(exception, (OperationalError, InterfaceError)) or connection.in_atomic_block):
            return None
        request._database_retried = True  # type: ignore[attr-defined]
        connection.close()  # the broken one goes back to the pool, which discards it
        return self.get_response(request)
