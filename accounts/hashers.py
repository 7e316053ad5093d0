"""Argon2 with a bound on how many hashes a process computes at once.

Each Argon2 hash takes 100 MiB and a core for a good fraction of a second: a flood of log-ins (or
sign-ups) would otherwise take every core and the memory of the process, and the moves served beside
them would stall. With at most ``MAUMAU_PASSWORD_HASHES_AT_ONCE`` (default 2) hashes running, the
others queue here: a flood slows the log-ins down, not the rest of the service. The algorithm's
name stays ``argon2``, so hashes made before verify unchanged.
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.contrib.auth.hashers import Argon2PasswordHasher

_slots: threading.BoundedSemaphore | None = None
_slots_lock = threading.Lock()


def hash_slots() -> threading.BoundedSemaphore:
    """The process's semaphore, sized from the setting on first use."""
    global _slots
    with _slots_lock:
        if _slots is None:
            _slots = threading.BoundedSemaphore(max(1, int(settings.MAUMAU_PASSWORD_HASHES_AT_ONCE)))
        return _slots


class BoundedArgon2PasswordHasher(Argon2PasswordHasher):
    def encode(self, password: str, salt: str) -> str:
        with hash_slots():
            return super().encode(password, salt)

    def verify(self, password: str, encoded: str) -> bool:
        with hash_slots():
            return super().verify(password, encoded)
