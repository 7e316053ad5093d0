"""Django's PostgreSQL backend, except how a pooled connection is borrowed.

psycopg's pool can check a connection when it hands it out (Django passes ``check`` when
``CONN_HEALTH_CHECKS`` is on), but after each failed check it sleeps with a growing backoff (1 s,
2 s, 4 s ...), meant for a server that is down: when the server dropped all of a pool's connections
at once (a restart, ``pg_terminate_backend``), the next request waited 7 s with four pooled
connections and ran into the pool's timeout with ten. Here a dead connection goes straight back to
the pool, which discards it and opens a new one, and the next is tried at once; only a server that
refuses new connections makes the request wait, up to the pool's timeout.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        pool = self.pool
        if pool is None:
            return connection
        # Every connection idle in the pool may be dead; after max_size of them only new ones are left.
        for _ in range(pool.max_size + 1):
            try:
                pool.check_connection(connection)
                return connection
            except Exception:
                pool.putconn(connection)  # broken: the pool discards it and opens a replacement
            connection = super().get_new_connection(conn_params)
        return connection
