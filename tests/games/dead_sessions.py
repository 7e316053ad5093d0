"""A database session really ended under a running use case: ``pg_terminate_backend`` from another
connection, just before the use case's first statement that matches, so that statement meets a dead
session mid-transaction (as a restart or an operator's kill does). PostgreSQL only."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql",
                                     reason="ending a session from outside needs PostgreSQL")


def terminate(wrapper: Any) -> None:
    """End the session of ``wrapper`` (a Django connection) from a connection of its own, and wait until it is gone."""
    info = wrapper.connection.info
    with psycopg.connect(info.dsn, password=wrapper.settings_dict.get("PASSWORD") or None, autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s, 5000)", [info.backend_pid]).fetchone() == (True,)


@contextlib.contextmanager
def session_killed_before(fragment: str) -> Iterator[list[str]]:
    """Kill the session once, before the first statement whose SQL holds ``fragment``; yields the
    statements it was killed before (one, once it happened)."""
    killed: list[str] = []

    def wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        if not killed and fragment in sql:
            killed.append(sql)
            terminate(context["connection"])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield killed


@contextlib.contextmanager
def session_killed_after_commit() -> Iterator[list[str]]:
    """Kill the session once, before the first statement run outside a transaction after one ran inside
    one: a write view's answer, read after its service committed. Yields the statements it was killed
    before (one, once it happened)."""
    killed: list[str] = []
    wrote: list[bool] = []

    def wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        if context["connection"].in_atomic_block:
            wrote.append(True)
        elif wrote and not killed:
            killed.append(sql)
            terminate(context["connection"])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield killed


@contextlib.contextmanager
def session_killed_at_commit(after: str) -> Iterator[list[str]]:
    """Kill the session once, at the COMMIT of the first transaction that ran a statement holding
    ``after``: the COMMIT meets a dead session, so the server may or may not have committed (a
    restart, an operator's ``pg_terminate_backend`` during the commit). Yields what was killed."""
    killed: list[str] = []
    seen: list[str] = []
    wrapper = connection

    def watch(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        if after in sql:
            seen.append(sql)
        return execute(sql, params, many, context)

    real_commit = wrapper._commit

    def commit() -> Any:
        if seen and not killed and wrapper.connection is not None:
            killed.append("COMMIT")
            terminate(wrapper)
        return real_commit()

    wrapper._commit = commit  # type: ignore[method-assign]
    try:
        with connection.execute_wrapper(watch):
            yield killed
    finally:
        del wrapper._commit
