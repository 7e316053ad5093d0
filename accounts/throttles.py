"""Growing delays after failed log-ins, per account and per client address.

After ``MAUMAU_LOGIN_FREE_FAILURES`` failures in a row, each further attempt must wait 1, 2, 4 ...
seconds (at most ``MAUMAU_LOGIN_MAX_DELAY_SECONDS``) after the last failure; an attempt that comes
too early is refused with 429 and ``Retry-After`` before any password is checked. A success clears
the account's count (the address keeps its own, so guessing across many accounts still slows down).
Counts live in the cache and are forgotten a day after the last failure. The address is DRF's
``get_ident`` (it trusts ``X-Forwarded-For`` only as far as the ``NUM_PROXIES`` setting says).

An attempt is claimed before its password is checked (:func:`login_claim`): the count is raised by
an atomic ``incr`` first, and an attempt whose number is not the one it read, beyond the free ones,
lost a race to another and is refused. So a burst sent the moment a delay has passed gets one
password checked, not one per request. During a cache outage the delays fail open
(``maumau.throttling``): log-ins go on, each still bounded by the Argon2 work (accounts.hashers).
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from maumau.throttling import CACHE_ERRORS, failed_open

FORGET_SECONDS = 24 * 3600
THROTTLE = "login"


def client_address(request: Request) -> str:
    return BaseThrottle().get_ident(request)


def _keys(username: str, address: str) -> list[str]:
    """Cache keys of the counts: the username hashed (any text a client sends, of any length, makes a valid key)."""
    user = hashlib.sha256(username.casefold().encode("utf-8", "surrogatepass")).hexdigest()
    addr = hashlib.sha256(str(address).encode("utf-8", "surrogatepass")).hexdigest()
    return [f"login_tries:user:{user}", f"login_tries:addr:{addr}"]


def _last(key: str) -> str:
    """The key of the time of the count's last attempt."""
    return f"{key}:last"


def _frees() -> list[int]:
    return [settings.MAUMAU_LOGIN_FREE_FAILURES, settings.MAUMAU_LOGIN_FREE_FAILURES_PER_ADDRESS]


def _delay(failures: int, free: int) -> float:
    if failures < free:
        return 0.0
    return float(min(settings.MAUMAU_LOGIN_MAX_DELAY_SECONDS, 2 ** (failures - free)))


def _counts(keys: list[str]) -> list[tuple[int, float]]:
    found = cache.get_many([*keys, *map(_last, keys)])
    return [(int(found.get(key, 0)), float(found.get(_last(key), 0.0))) for key in keys]


def _wait(counts: list[tuple[int, float]], now: float) -> float:
    return max([0.0, *(last + _delay(failures, free) - now for (failures, last), free in zip(counts, _frees(),
                                                                                           strict=True))])


def login_wait(username: str, address: str) -> float:
    """Seconds before a log-in as ``username`` from ``address`` may be tried; 0 if it may now."""
    try:
        return _wait(_counts(_keys(username, address)), time.time())
    except CACHE_ERRORS as error:
        failed_open(THROTTLE, error)
        return 0.0


def login_claim(username: str, address: str) -> float:
    """Claim one attempt before its password is checked: 0 if claimed (then :func:`login_failed` or
    :func:`login_succeeded` must follow), else the seconds to wait (nothing is claimed)."""
    keys = _keys(username, address)
    try:
        now = time.time()
        counts = _counts(keys)
        wait = _wait(counts, now)
        if wait > 0:
            return wait
        numbers = []
        for key in keys:
            cache.add(key, 0, FORGET_SECONDS)
            numbers.append(cache.incr(key))
        if all(number == failures + 1 or number <= free
               for number, (failures, _last_at), free in zip(numbers, counts, _frees(), strict=True)):
            cache.set_many({_last(key): now for key in keys}, FORGET_SECONDS)
            return 0.0
        for key in keys:  # another attempt claimed this turn first
            cache.decr(key)
        return max(1.0, _wait(_counts(keys), time.time()))
    except (*CACHE_ERRORS, ValueError) as error:  # ValueError: a key gone between add and incr
        failed_open(THROTTLE, error)
        return 0.0


def login_failed(username: str, address: str) -> None:
    """The claimed attempt failed: it stays counted; the next delay runs from now."""
    keys = _keys(username, address)
    try:
        cache.set_many({_last(key): time.time() for key in keys}, FORGET_SECONDS)
        for key in keys:
            cache.touch(key, FORGET_SECONDS)
    except CACHE_ERRORS as error:
        failed_open(THROTTLE, error)


def login_succeeded(username: str, address: str) -> None:
    """The claimed attempt succeeded: the account's count is cleared, the address's claim given back."""
    user, addr = _keys(username, address)
    try:
        cache.delete_many([user, _last(user)])
        if cache.get(addr, 0) > 0:
            cache.decr(addr)
    except (*CACHE_ERRORS, ValueError) as error:
        failed_open(THROTTLE, error)
