"""Endpoints for operators: ``/healthz``, ``/readyz`` and ``/metrics``.

Plain Django views, not DRF ones: no authentication, no throttling, no session, so a load
balancer's probe every second costs next to nothing and is never refused for its rate.
``/metrics`` is open to the addresses of ``MAUMAU_METRICS_NETWORKS`` (loopback by default), or to
whoever sends ``Authorization: Bearer <MAUMAU_METRICS_TOKEN>`` when that is set.
"""

from __future__ import annotations

import hmac
import ipaddress
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from maumau import observability
from maumau.errors import error_body

_migrated = threading.Event()
#: What the apps above the kernel add to /readyz's answer (name -> a function of no arguments that
#: returns JSON), registered in their AppConfig.ready(): information, never a failed check.
DETAILS: dict[str, Callable[[], Any]] = {}


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The process lives and answers (no database, no broker: a restart would not fix those)."""
    return JsonResponse({"status": "ok"})


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    if not _migrated.is_set():  # once true, true for the life of the process
        from django.db.migrations.executor import MigrationExecutor

        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            raise RuntimeError("migrations not applied")
        _migrated.set()


def _redis_ping(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    finally:
        client.close()


def _broker() -> None:
    url = settings.CELERY_BROKER_URL
    if url.startswith(("redis://", "rediss://")):
        _redis_ping(url)
    elif url.startswith("filesystem://"):
        from pathlib import Path

        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in", "")
        if not Path(folder).is_dir():
            raise RuntimeError("the broker's folder is missing")
    else:
        from kombu import Connection

        with Connection(url, connect_timeout=2) as broker:
            broker.ensure_connection(max_retries=1)


def channel_kind() -> str:
    """The wake-up channel: explicit STREAMS_CHANNEL, else LISTEN/NOTIFY on PostgreSQL, else poll."""
    value = str(settings.STREAMS_CHANNEL or "").strip()
    if value:
        if value.startswith(("redis://", "rediss://", "unix://")):
            return "redis"
        if value in ("postgres", "postgresql", "poll"):
            return "postgres" if value.startswith("postgres") else "poll"
        raise ValueError(f"STREAMS_CHANNEL must be poll, postgres or a redis:// URL, not {value!r}")
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return "postgres"
    return "poll"


def _channel() -> None:
    if channel_kind() == "redis":
        _redis_ping(str(settings.STREAMS_CHANNEL).strip())
    # postgres and poll: the database, checked above, is the channel


CHECKS = {"database": _database, "broker": _broker, "channel": _channel}


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """Ready for traffic: the database answers with every migration applied, the broker and the
    wake-up channel answer. 503 names what failed (in the error shape of docs/api.md)."""
    checks: dict[str, str] = {}
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            check()
            checks[name] = f"ok ({(time.perf_counter() - started) * 1000:.0f} ms)"
        except Exception as exc:
            checks[name] = f"failed: {type(exc).__name__}: {exc}"[:300]
    details = {}
    for name, detail in DETAILS.items():
        try:
            details[name] = detail()
        except Exception as exc:
            details[name] = f"unknown: {type(exc).__name__}"
    if all(value.startswith("ok") for value in checks.values()):
        return JsonResponse({"status": "ready", "checks": checks, "details": details})
    return JsonResponse(error_body("not_ready", "The service is not ready.", {"checks": checks, "details": details}),
                        status=503)


def metrics_allowed(request: HttpRequest) -> bool:
    token = settings.MAUMAU_METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "")
        return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in settings.MAUMAU_METRICS_NETWORKS)


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus exposition of every metric (all processes' in multiprocess mode)."""
    if not metrics_allowed(request):
        return JsonResponse(error_body("permission_denied", "Metrics are not open to this client.",
                                       {"see": "MAUMAU_METRICS_TOKEN, MAUMAU_METRICS_NETWORKS"}), status=403)
    body, content_type = observability.metrics_text()
    return HttpResponse(body, content_type=content_type)

