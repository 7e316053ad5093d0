"""The deliveries process's reader and desk keep their database connection from batch to batch; one
the database ended (a restart, a cut, ``pg_terminate_backend``) is replaced before the next batch,
or every later batch of that thread fails (the fault drill's webhook outcomes stayed unrecorded)."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.db import OperationalError, connection

from streams import outbound

ON_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]


@pytest.mark.skipif(not ON_POSTGRES, reason="SQLite has no session to end")
@pytest.mark.django_db(transaction=True)
def test_a_connection_the_database_ended_is_replaced_and_a_sound_one_kept() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        first = cursor.fetchone()[0]
    outbound.connections_mended()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] == first, "a sound connection is kept"
    with pytest.raises(OperationalError), connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
    outbound.connections_mended()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != first
