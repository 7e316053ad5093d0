"""Throttles on writes only: reads (polling a game view) stay free, writes are bounded.

The rate is read from settings at request time (not frozen at import like DRF's
SimpleRateThrottle.THROTTLE_RATES), so tests and the benchmark can change it.

During a cache outage the throttle fails open (``maumau.throttling``): writes go on unthrottled,
with a warning logged and ``maumau_throttles_failed_open`` counted, rather than each answering 500.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from maumau.throttling import CACHE_ERRORS, failed_open

if TYPE_CHECKING:
    from rest_framework.request import Request

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


class WriteThrottle(SimpleRateThrottle):
    """Per caller (player token), or per client address for the one open write (sign-up): the address
    is DRF's ``get_ident``, which believes X-Forwarded-For only from ``NUM_PROXIES`` proxies."""

    scope = "writes"

    def get_rate(self) -> str | None:
        return None  # resolved per request in allow_request

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        if request.user is not None and request.user.is_authenticated:
            self.rate = settings.MAUMAU_WRITE_RATE
            ident = f"user:{request.user.pk}"
        else:
            self.rate = settings.MAUMAU_SIGNUP_RATE
            ident = f"addr:{self.get_ident(request)}"
        if not self.rate:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.key = f"throttle_{self.scope}_{ident}"
        try:
            self.history = self.cache.get(self.key, [])
            self.now = self.timer()
            while self.history and self.history[-1] <= self.now - self.duration:
                self.history.pop()
            if len(self.history) >= self.num_requests:
                return self.throttle_failure()
            return self.throttle_success()
        except CACHE_ERRORS as error:
            failed_open(self.scope, error)
            return True

    def get_cache_key(self, request: Request, view: Any) -> str | None:  # pragma: no cover - unused
        return None
