"""Whole numbers from query strings and headers, checked once for every endpoint.

Counts, sequence numbers, versions and offsets of this service all fit 31 bits; a larger value
from a client is refused as malformed (400) before it reaches the database, where it would not fit
a column (SQLite raises on integers past 64 bits, PostgreSQL on values past the column's type).
"""

from __future__ import annotations

from typing import Any

from maumau.errors import ValidationFailed

QUERY_INT_MAX = 2**31 - 1


def query_int(value: Any, name: str, default: Any = None, *, minimum: int = 0,
              maximum: int = QUERY_INT_MAX) -> Any:
    """``value`` (a query parameter or header, possibly missing) as an int within the bounds. An empty
    value (``?limit=``) is no number, as the schema says: refused, not read as missing."""
    if value is None:
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or not minimum <= number <= maximum:
        raise ValidationFailed(details={"field": name, "reason": f"a whole number from {minimum} to {maximum}"})
    return number


def query_bool(value: Any, name: str) -> bool:
    """``true`` or ``false`` (a query string's boolean, as the schema and its generators write it);
    missing is false. Empty, ``1``, ``yes`` and the like are refused, not guessed at."""
    if value is None:
        return False
    if value in ("true", "false"):
        return value == "true"
    raise ValidationFailed(details={"field": name, "reason": "true or false"})
