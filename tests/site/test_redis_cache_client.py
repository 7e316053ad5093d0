"""The Redis cache builds one ``redis.Redis`` per connection pool, not one per cache call, and still
reads back what it wrote, from several threads at once."""

from __future__ import annotations

import os
import threading

import pytest

from maumau.cache import SharedClientRedisCache

REDIS = os.environ.get("CACHE_URL", "")
pytestmark = pytest.mark.skipif(not REDIS.startswith("redis://"), reason="needs CACHE_URL on Redis")


def test_the_cache_keeps_one_client_per_pool_and_its_values_round_trip_across_threads() -> None:
    cache = SharedClientRedisCache(REDIS, {"KEY_PREFIX": f"client-test-{os.getpid()}"})
    clients = set()
    problems: list[str] = []

    def work(n: int) -> None:
        for i in range(50):
            key = f"k{n}-{i}"
            cache.set(key, [n, i], 30)
            if cache.get(key) != [n, i]:
                problems.append(key)
            clients.add(id(cache._cache.get_client(key)))
            clients.add(id(cache._cache.get_client(key, write=True)))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []
    assert len(clients) == 1  # one server: reads and writes share its one client
    cache.delete_many([f"k{n}-{i}" for n in range(4) for i in range(50)])
