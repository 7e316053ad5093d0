"""Settings of the streams app, each with a default from the environment.

Read at call time through :func:`setting`, so tests and benchmarks can override them with
Django's ``settings`` (``WEBHOOK_ALLOW_PRIVATE = True`` in a test allows a loopback receiver).
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "")
    return float(value) if value.strip() else default


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name, "")
    return value.strip().lower() in {"1", "true", "yes", "on"} if value.strip() else default


DEFAULTS: dict[str, Any] = {
    # "poll" | "postgres" | "redis://host:port/db" | "" (auto: postgres on PostgreSQL, else poll)
    "STREAMS_CHANNEL": os.environ.get("STREAMS_CHANNEL", ""),
    # How often the serverless "poll" channel looks at game versions / notification ids.
    "STREAMS_POLL_INTERVAL": _env_float("STREAMS_POLL_INTERVAL", 0.05),
    # With postgres/redis the same poll runs this rarely, as a backstop for a lost wake-up.
    "STREAMS_BACKSTOP_INTERVAL": _env_float("STREAMS_BACKSTOP_INTERVAL", 2.0),
    # A ": keep-alive" comment on a quiet stream, well inside the idle timeouts of proxies (nginx: 60 s);
    # each costs the process a little CPU and no database work (15 s: 10,000 streams send 670 a second).
    "STREAMS_KEEPALIVE_SECONDS": _env_float("STREAMS_KEEPALIVE_SECONDS", 15.0),
    "STREAMS_LONGPOLL_MAX_SECONDS": _env_float("STREAMS_LONGPOLL_MAX_SECONDS", 60.0),
    # Threads that run the ORM for waiting clients (never the threads that serve moves).
    "STREAMS_DB_THREADS": int(_env_float("STREAMS_DB_THREADS", 4)),
    # A "deadline_soon" notification once this share of a turn's time is used ...
    "STREAMS_REMINDER_SHARE": _env_float("STREAMS_REMINDER_SHARE", 0.75),
    # ... on clocks at least this long (short blitz clocks get no reminder).
    "STREAMS_REMINDER_MIN_SECONDS": _env_float("STREAMS_REMINDER_MIN_SECONDS", 60),
    # Webhooks: server-side request forgery guard and delivery policy.
    "WEBHOOK_ALLOW_PRIVATE": _env_bool("WEBHOOK_ALLOW_PRIVATE", False),
    "WEBHOOK_ALLOWED_NETWORKS": [n for n in os.environ.get("WEBHOOK_ALLOWED_NETWORKS", "").split(",") if n.strip()],
    "WEBHOOK_MAX_ATTEMPTS": int(_env_float("WEBHOOK_MAX_ATTEMPTS", 5)),
    "WEBHOOK_BACKOFF_SECONDS": _env_float("WEBHOOK_BACKOFF_SECONDS", 10.0),
    "WEBHOOK_TIMEOUT_SECONDS": _env_float("WEBHOOK_TIMEOUT_SECONDS", 5.0),
    # A worker's claim on a delivery it attempts; above the task's hard time limit (60 s), so that a
    # live attempt never loses it: when it runs out, the worker died and the sweep queues the delivery again.
    "WEBHOOK_LEASE_SECONDS": _env_float("WEBHOOK_LEASE_SECONDS", 120.0),
    # A pending delivery whose time is this far past lost its queue message: the sweep sends it again.
    "WEBHOOK_REQUEUE_AFTER_SECONDS": _env_float("WEBHOOK_REQUEUE_AFTER_SECONDS", 60.0),
    "WEBHOOK_MAX_PER_PLAYER": 10,
}


def setting(name: str) -> Any:
    return getattr(settings, name, DEFAULTS[name])


def channel_kind() -> str:
    """The wake-up channel: explicit STREAMS_CHANNEL, else LISTEN/NOTIFY on PostgreSQL, else poll."""
    value = str(setting("STREAMS_CHANNEL") or "").strip()
    if value:
        if value.startswith(("redis://", "rediss://", "unix://")):
            return "redis"
        if value in ("postgres", "postgresql", "poll"):
            return "postgres" if value.startswith("postgres") else "poll"
        raise ValueError(f"STREAMS_CHANNEL must be poll, postgres or a redis:// URL, not {value!r}")
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return "postgres"
    return "poll"
