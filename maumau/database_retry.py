"""A read whose database connection died under it is answered from a fresh connection.

The pool checks a connection when a request borrows it (``maumau/postgresql/base.py``), but the
database may still end a session while a request uses it (a restart, ``pg_terminate_backend``). A
read that fails so is run once more (from the API's exception handler, inside the view's own thread,
under WSGI and ASGI alike): reads change nothing but what is idempotent by design (a passed deadline
resolved once, a token's last use). Writes retry where they know nothing was committed: the move
pipeline (``games.services.move_submit``) does so itself.
"""

from __future__ import annotations

from typing import Any

from django.db import InterfaceError, OperationalError, connection
from psycopg_pool import PoolTimeout

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def pool_exhausted(exc: BaseException | None) -> bool:
    """True when ``exc`` (or what it was raised from) is the pool's timeout: every connection stayed
    busy for ``MAUMAU_DB_POOL_TIMEOUT`` seconds. No retry helps then (it would wait as long again);
    the caller is told to come back (503)."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, PoolTimeout):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def read_again(exc: Exception, context: dict[str, Any]) -> Any:
    """The view's answer from a fresh connection, or None when this is no read to run again."""
    request, view = context.get("request"), context.get("view")
    if (request is None or view is None or request.method not in SAFE_METHODS
            or not isinstance(exc, (OperationalError, InterfaceError)) or pool_exhausted(exc)
            or connection.in_atomic_block
            or getattr(request._request, "_database_retried", False)):
        return None
    request._request._database_retried = True
    connection.close()  # the broken one goes back to the pool, which discards it
    return view.dispatch(request._request, *context.get("args", ()), **context.get("kwargs", {}))
