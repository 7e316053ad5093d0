"""Django's Redis cache with one ``redis.Redis`` client per connection pool.

Django's client builds a new ``redis.Redis`` for every cache call, and redis-py's constructor
fills its table of response callbacks anew each time: on a write request (the throttle reads and
writes its history) that was a measurable share of the request. A ``redis.Redis`` takes a
connection from its pool per command, so one per pool serves every thread of the process.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis import ConnectionPool


class SharedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, servers: list[str], **options: Any) -> None:
        super().__init__(servers, **options)
        self._clients: dict[ConnectionPool, Any] = {}  # Django's pools, which it keeps for good

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients.setdefault(pool, self._client(connection_pool=pool))
        return client


class SharedClientRedisCache(RedisCache):
    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient
