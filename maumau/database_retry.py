"""Work whose database session died under it runs once more, on a fresh connection: the one place
that says why and when.

The pool checks a connection when a request borrows it (``maumau/postgresql/base.py``), but the
database may still end a session while a request uses it (a restart, ``pg_terminate_backend``).

- A read that fails so is run once more (from the API's exception handler, inside the view's own
  thread, under WSGI and ASGI alike): reads change nothing but what is idempotent by design (a passed
  deadline resolved once, a token's last use).
- A write retries only where it knows nothing was committed: a session that dies before the COMMIT
  leaves nothing written. Not after the body ended (the commit's outcome is unknown), nor inside a
  caller's transaction (that one is lost with the connection; the caller retries), nor when the pool
  is exhausted (waiting again won't help). A service whose use case is one transaction says so with
  :func:`written_once_more`; the move pipeline (``play.services.move_submit``) runs the same loop
  itself. What a write view reads for its answer after that commit goes through :func:`read_once_more`
  (a 500 there would hide a write that was made).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import psycopg
from django.db import InterfaceError, OperationalError, connection, transaction
from psycopg_pool import PoolTimeout

P = ParamSpec("P")
R = TypeVar("R")

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


def connection_lost(exc: BaseException | None) -> bool:
    """True when ``exc`` is the database session ending under the request (a restart, a cut network,
    ``pg_terminate_backend``), at any point, the COMMIT included: what psycopg raised is a connection
    exception (SQLSTATE class 08), the server shutting the session (57P01-57P03), or the client's own
    "connection lost" (no SQLSTATE). Not the pool's timeout (:func:`pool_exhausted`), and not an error
    the live session answered (a missing table, a refused constraint), which stays a bug's 500."""
    if not isinstance(exc, (OperationalError, InterfaceError)) or pool_exhausted(exc):
        return False
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 8:
        if isinstance(cause, psycopg.InterfaceError):
            return True
        if isinstance(cause, psycopg.OperationalError):
            state = cause.sqlstate
            return state is None or state.startswith("08") or state in SESSION_ENDED_STATES
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return isinstance(exc, InterfaceError)  # Django's own: "connection already closed"


#: The server ended the session: admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now.
SESSION_ENDED_STATES = frozenset({"57P01", "57P02", "57P03"})


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


def read_once_more(read: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``read(*args, **kwargs)``, run once more on a fresh connection when its session died under it:
    for what a request reads outside a transaction where running the whole view again would write
    again (the answer a write view reads after its service committed, the token look-up)."""
    try:
        return read(*args, **kwargs)
    except (OperationalError, InterfaceError) as exc:
        if connection.in_atomic_block or pool_exhausted(exc):
            raise
        connection.close()
    return read(*args, **kwargs)


def written_once_more(service: Callable[P, R]) -> Callable[P, R]:
    """Run ``service`` as one transaction (a use case that is one: this is its ``atomic``); when its
    database session ends under it before the COMMIT, nothing was written, so it runs once more on a
    fresh connection.
    A failure at the COMMIT itself is raised (the server may have committed), and so is one inside a
    caller's transaction (the caller's work is gone with it) or a full pool (waiting again won't help)."""

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        for attempt in (1, 2):
            committing = False
            outermost = not connection.in_atomic_block
            try:
                with transaction.atomic():
                    result = service(*args, **kwargs)
                    committing = True
                return result
            except (OperationalError, InterfaceError) as exc:
                if committing or attempt == 2 or not outermost or pool_exhausted(exc):
                    raise
                connection.close()
        raise AssertionError("unreachable")

    return run
