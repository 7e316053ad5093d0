"""The hot path's prepared statements outlive the request that prepared them: the connection goes
back to the pool, not away, and the next request that borrows it runs them prepared."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection

from accounts import authentication

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements and the pool are PostgreSQL's"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def one_pooled_connection() -> Iterator[None]:
    """The pool narrowed to one connection, so that every request borrows the same one."""
    options = connection.settings_dict["OPTIONS"]
    before = options.get("pool")
    if not before:  # no pool (MAUMAU_DB_POOL=false): nothing to narrow
        yield
        return
    connection.close()
    connection.close_pool()
    options["pool"] = {**before, "min_size": 1, "max_size": 1}
    yield
    connection.close()
    connection.close_pool()
    options["pool"] = before


def test_prepared_statements_survive_across_requests_on_a_pooled_connection(one_pooled_connection: None) -> None:
    pids = set()
    for _request in range(6):  # psycopg prepares a statement on its 5th run on a connection
        assert authentication.token_with_user_and_player("no-such-token") is None
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pids.add(cursor.fetchone()[0])
        connection.close()  # the request ends: its connection goes back to the pool
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert len(pids) == 1, "every request borrowed the same pooled connection"
    assert any("FROM accounts_accesstoken t" in text for text in prepared), prepared
