"""Growing delays after failed log-ins, per account and per client address.

After ``MAUMAU_LOGIN_FREE_FAILURES`` failures in a row, each further attempt must wait 1, 2, 4 ...
seconds (at most ``MAUMAU_LOGIN_MAX_DELAY_SECONDS``) after the last failure; an attempt that comes
too early is refused with 429 and ``Retry-After`` before any password is checked. A success clears
the account's count (the address keeps its own, so guessing across many accounts still slows down).
Counts live in the cache and are forgotten a day after the last failure. The address is DRF's
``get_ident`` (it trusts ``X-Forwarded-For`` only as far as the ``NUM_PROXIES`` setting says).
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

FORGET_SECONDS = 24 * 3600


def client_address(request: Request) -> str:
    return BaseThrottle().get_ident(request)


def _keys(username: str, address: str) -> list[str]:
    """Cache keys: the username hashed (any text a client sends, of any length, makes a valid key)."""
    user = hashlib.sha256(username.casefold().encode("utf-8", "surrogatepass")).hexdigest()
    addr = hashlib.sha256(str(address).encode("utf-8", "surrogatepass")).hexdigest()
    return [f"login_fail:user:{user}", f"login_fail:addr:{addr}"]


def _delay(failures: int, free: int) -> float:
    if failures < free:
        return 0.0
    return float(min(settings.MAUMAU_LOGIN_MAX_DELAY_SECONDS, 2 ** (failures - free)))


def login_wait(username: str, address: str) -> float:
    """Seconds before a log-in as ``username`` from ``address`` may be tried; 0 if it may now."""
    now = time.time()
    frees = [settings.MAUMAU_LOGIN_FREE_FAILURES, settings.MAUMAU_LOGIN_FREE_FAILURES_PER_ADDRESS]
    waits = [0.0]
    for key, free in zip(_keys(username, address), frees, strict=True):
        failures, last = cache.get(key, (0, 0.0))
        waits.append(last + _delay(failures, free) - now)
    return max(waits)


def login_failed(username: str, address: str) -> None:
    now = time.time()
    for key in _keys(username, address):
        failures, _last = cache.get(key, (0, 0.0))
        cache.set(key, (failures + 1, now), FORGET_SECONDS)


def login_succeeded(username: str) -> None:
    cache.delete(_keys(username, "")[0])
