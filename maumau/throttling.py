"""What every throttle does when its cache does not answer: let the request through.

A throttle is a guard, not the service: during a cache (Redis) outage a write must not turn into a
500 because its counter cannot be read. So each throttle catches :data:`CACHE_ERRORS` around its
cache calls, lets the request pass and calls :func:`failed_open`, which logs a warning and counts
``maumau_throttles_failed_open`` (the operator's alert: while it grows, nothing is throttled).
"""

from __future__ import annotations

import logging

from redis.exceptions import RedisError

from maumau import observability

log = logging.getLogger(__name__)

#: What a cache backend raises when its server is down or slow (redis-py's errors, a socket's).
CACHE_ERRORS: tuple[type[Exception], ...] = (RedisError, OSError)


def failed_open(throttle: str, error: Exception) -> None:
    log.warning("cache unavailable: the %s throttle lets the request through (%s: %s)", throttle,
                type(error).__name__, error)
    observability.throttle_failed_open(throttle)
