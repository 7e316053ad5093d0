"""What operators see: request ids, structured logs, Prometheus metrics, error reporting.

- Request id: taken from ``X-Request-ID`` when the client (or the proxy) sends a sane one, else made
  here; returned in the same header, put on every log line of the request, and carried by the Celery
  tasks it sends (a message header), so a task's log lines name the request that caused it.
- Logs: readable lines by default, one JSON object per line with ``LOG_FORMAT=json``.
- Metrics (the official ``prometheus_client``): defined here, counted where things happen, served
  by ``maumau.ops.metrics``. With several processes (uvicorn ``--workers``, Celery's prefork pool)
  set ``PROMETHEUS_MULTIPROC_DIR`` to an empty folder shared by them: each process writes its own
  file there and a scrape of any one of them sums them all.
- Error reporting: Sentry (or any Sentry-compatible server) only when ``SENTRY_DSN`` is set.

Importable without Django being set up (settings.py imports it for the logging classes).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

log = logging.getLogger("maumau")

# --- request ids ------------------------------------------------------------------------------------

REQUEST_ID_HEADER = "X-Request-ID"
#: Celery message header that carries the request id to the worker.
TASK_HEADER = "maumau_request_id"
current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("maumau_request_id", default="-")
_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


def request_id_from(header: str | None) -> str:
    """The client's id if it is short and plain (it is logged and echoed), else a new one."""
    if header and _SANE_ID.match(header):
        return header
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Puts the current request id (or "-") on every record, for both formats."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id, and the exception if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", current_request_id.get()),
            "process": record.process,
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def logging_config(*, level: str, json_format: bool, filters: dict[str, Any],
                   filtered_loggers: dict[str, Any]) -> dict[str, Any]:
    """The LOGGING setting: one console handler, readable or JSON, every line with its request id."""
    import time as _time

    logging.Formatter.converter = _time.gmtime  # UTC, as the API's times are
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "maumau.observability.RequestIdFilter"}, **filters},
        "formatters": {
            "readable": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
            "json": {"()": "maumau.observability.JsonFormatter"},
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["request_id"],
                                 "formatter": "json" if json_format else "readable"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": filtered_loggers,
    }


def log_exception(message: str) -> None:
    log.exception(message)


# --- metrics ----------------------------------------------------------------------------------------

#: Latency buckets (seconds) of the API: a move takes milliseconds, a long-poll up to a minute.
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

HTTP_REQUESTS = Counter("maumau_http_requests", "HTTP requests answered, by route (URL pattern), method and status",
                        ["route", "method", "status"])
HTTP_SECONDS = Histogram("maumau_http_request_seconds", "Time to answer (a stream: to its first byte), by route",
                         ["route", "method"], buckets=_BUCKETS)
MOVES_APPLIED = Counter("maumau_moves_applied", "Ledger rows committed, by actor (player, bot, clock, system)",
                        ["actor"])
ILLEGAL_MOVES = Counter("maumau_illegal_moves_refused", "Plays refused by the rules (422 illegal_move)")
CLOCK_LAG = Histogram("maumau_clock_lag_seconds", "From a passed deadline to the commit of its timeout",
                      buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0))
TIMEOUTS = Counter("maumau_timeouts", "Timeouts committed, by policy (autoplay, penalty, skip; hermann for the "
                   "KD race)", ["policy"])
WEBHOOK_DELIVERIES = Counter("maumau_webhook_deliveries", "Webhook attempts by outcome (delivered, retrying, "
                             "failed)", ["outcome"])
DATABASE_BUSY = Counter("maumau_database_busy", "Requests answered 503 because no pooled database connection came "
                        "free within MAUMAU_DB_POOL_TIMEOUT")
THROTTLES_FAILED_OPEN = Counter("maumau_throttles_failed_open", "Requests a throttle let through unchecked because "
                                "the cache did not answer, by throttle", ["throttle"])
NOTIFY_DELIVERIES = Counter("maumau_notify_deliveries", "Notifications sent outside the service, by channel "
                            "(web_push, fcm, apns, email) and outcome (sent, retrying, failed, gone, watching, "
                            "coalesced, quiet, off)", ["channel", "outcome"])
NOTIFY_SEND_SECONDS = Histogram("maumau_notify_send_seconds", "One attempt's request to the push service or "
                                "mail server, by channel", ["channel"], buckets=_BUCKETS)
NOTIFY_LATENCY = Histogram("maumau_notify_latency_seconds", "From the commit of a notification to the end of "
                           "its first attempt, by channel", ["channel"], buckets=_BUCKETS)
DELIVERY_LAG = Histogram("maumau_delivery_lag_seconds", "From the commit of a notification or webhook event to "
                         "the far end's acceptance of it (any attempt), by channel (web_push, fcm, apns, email, "
                         "webhook)", ["channel"], buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0,
                                                           300.0))
OPEN_STREAMS = Gauge("maumau_open_streams", "Waiting clients held open (streams and long-polls), by route",
                     ["route"], multiprocess_mode="livesum")


def request_observed(route: str, method: str, status: int, seconds: float) -> None:
    HTTP_REQUESTS.labels(route, method, str(status)).inc()
    HTTP_SECONDS.labels(route, method).observe(seconds)


@contextlib.contextmanager
def open_stream(route: str) -> Iterator[None]:
    gauge = OPEN_STREAMS.labels(route)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def moves_committed(moves: list[Any]) -> None:
    """Count a transaction's ledger rows once it commits (call it from ``on_commit``)."""
    counts: dict[str, int] = {}
    for move in moves:
        counts[move.actor] = counts.get(move.actor, 0) + 1
    for actor, count in counts.items():
        MOVES_APPLIED.labels(actor).inc(count)


def timeout_committed(policy: str, lag_seconds: float) -> None:
    TIMEOUTS.labels(policy).inc()
    CLOCK_LAG.observe(max(0.0, lag_seconds))


def illegal_move_refused() -> None:
    ILLEGAL_MOVES.inc()


def database_busy() -> None:
    DATABASE_BUSY.inc()


def throttle_failed_open(throttle: str) -> None:
    THROTTLES_FAILED_OPEN.labels(throttle).inc()


def webhook_attempted(outcome: str) -> None:
    WEBHOOK_DELIVERIES.labels(outcome).inc()


def notify_delivered(channel: str, outcome: str) -> None:
    NOTIFY_DELIVERIES.labels(channel, outcome).inc()


def delivery_lag(channel: str, seconds: float) -> None:
    DELIVERY_LAG.labels(channel).observe(max(0.0, seconds))


def notify_latency(channel: str, send_seconds: float, since_commit: float | None) -> None:
    NOTIFY_SEND_SECONDS.labels(channel).observe(send_seconds)
    if since_commit is not None:
        NOTIFY_LATENCY.labels(channel).observe(max(0.0, since_commit))


class CeleryQueueDepth:
    """A collector read at scrape time: messages waiting in each Celery queue of the broker (Redis:
    the queue's lists; filesystem: its message files). ETA tasks a worker holds are not waiting."""

    def __init__(self, broker_url: str, queues: list[str], folder: str | None = None) -> None:
        self.broker_url, self.queues, self.folder = broker_url, queues, folder

    def describe(self) -> list[Any]:
        return []

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily("maumau_celery_queue_depth", "Messages waiting in each Celery queue",
                                   labels=["queue"])
        try:
            for queue, depth in self.depths().items():
                family.add_metric([queue], depth)
        except Exception:
            log.warning("metrics: the broker's queue depth is unavailable", exc_info=True)
            return
        yield family

    def depths(self) -> dict[str, int]:
        if self.broker_url.startswith(("redis://", "rediss://")):
            import redis

            client = redis.Redis.from_url(self.broker_url, socket_timeout=1, socket_connect_timeout=1)
            with client.pipeline(transaction=False) as pipe:
                # kombu keeps a queue as one list per priority step: "name", "name\x06\x163", ...
                for queue in self.queues:
                    for suffix in ("", "\x06\x163", "\x06\x166", "\x06\x169"):
                        pipe.llen(queue + suffix)
                lengths = pipe.execute()
            return {queue: sum(lengths[4 * n:4 * n + 4]) for n, queue in enumerate(self.queues)}
        if self.broker_url.startswith("filesystem://") and self.folder:
            total = sum(1 for entry in os.scandir(self.folder) if entry.name.endswith(".msg"))
            return {self.queues[0]: total} if len(self.queues) == 1 else {"all": total}
        return {}


def metrics_registry() -> Any:
    """The registry a scrape reads: every process's files in multiprocess mode, else this process's."""
    from prometheus_client import REGISTRY, CollectorRegistry, multiprocess

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


def celery_queue_collector() -> CeleryQueueDepth:
    from django.conf import settings

    queues = sorted({"celery", settings.MAUMAU_CLOCK_QUEUE, settings.MAUMAU_BOT_QUEUE, settings.MAUMAU_DELIVERY_QUEUE})
    folder = (settings.CELERY_BROKER_TRANSPORT_OPTIONS or {}).get("data_folder_in")
    return CeleryQueueDepth(settings.CELERY_BROKER_URL, queues, folder)


def metrics_text(*, with_queue_depth: bool = True) -> tuple[bytes, str]:
    """The exposition (and its content type) of every metric, the broker's queue depth included."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

    body = generate_latest(metrics_registry())
    if with_queue_depth:
        extra = CollectorRegistry()
        extra.register(celery_queue_collector())
        body += generate_latest(extra)
    return body, CONTENT_TYPE_LATEST


# --- error reporting ----------------------------------------------------------------------------------


def error_reporting_init(dsn: str, *, environment: str, traces_sample_rate: float) -> bool:
    """Sentry's SDK with Django and Celery, only when a DSN is set (any Sentry-compatible server)."""
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(dsn=dsn, environment=environment or None, traces_sample_rate=traces_sample_rate,
                    send_default_pii=False, integrations=[DjangoIntegration(), CeleryIntegration()])
    return True


# --- Django: one middleware -------------------------------------------------------------------------------


class RequestObservabilityMiddleware:
    """First in MIDDLEWARE: the request id (set for the request, returned in the response) and the
    request metrics by route, the URL pattern (``api/v1/games/<int:game_id>/actions``), so that
    every game does not make a series of its own. Sync and async capable."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any) -> None:
        from asgiref.sync import iscoroutinefunction, markcoroutinefunction

        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: Any) -> Any:
        if self.is_async:
            return self._acall(request)
        token, started = self._start(request)
        try:
            response = self.get_response(request)
            return self._finish(request, response, started)
        finally:
            current_request_id.reset(token)

    async def _acall(self, request: Any) -> Any:
        token, started = self._start(request)
        try:
            response = await self.get_response(request)
            return self._finish(request, response, started)
        finally:
            current_request_id.reset(token)

    def _start(self, request: Any) -> tuple[contextvars.Token[str], float]:
        request.request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        return current_request_id.set(request.request_id), time.perf_counter()

    def _finish(self, request: Any, response: Any, started: float) -> Any:
        response[REQUEST_ID_HEADER] = request.request_id
        match = getattr(request, "resolver_match", None)
        route = match.route if match is not None and match.route else "unmatched"
        request_observed(route, request.method, response.status_code, time.perf_counter() - started)
        return response


# --- Celery: the request id travels with the task; a worker's own metrics --------------------------------


def celery_signals_connect() -> None:
    """Carry the request id in a message header and restore it while the task runs; a worker started
    with ``CELERY_METRICS_PORT`` serves its metrics (all its pool processes') on that port."""
    from celery import signals

    signals.before_task_publish.connect(_task_publish, weak=False, dispatch_uid="maumau-request-id-publish")
    signals.task_prerun.connect(_task_prerun, weak=False, dispatch_uid="maumau-request-id-prerun")
    signals.task_postrun.connect(_task_postrun, weak=False, dispatch_uid="maumau-request-id-postrun")
    signals.worker_ready.connect(_worker_metrics_serve, weak=False, dispatch_uid="maumau-worker-metrics")


def _task_publish(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    request_id = current_request_id.get()
    if headers is not None and request_id != "-":
        headers.setdefault(TASK_HEADER, request_id)


_task_tokens: dict[str, contextvars.Token[str]] = {}


def _task_prerun(task_id: str = "", task: Any = None, **kwargs: Any) -> None:
    request_id = getattr(getattr(task, "request", None), TASK_HEADER, None) if task is not None else None
    if request_id and _SANE_ID.match(str(request_id)):
        _task_tokens[task_id] = current_request_id.set(str(request_id))


def _task_postrun(task_id: str = "", **kwargs: Any) -> None:
    token = _task_tokens.pop(task_id, None)
    if token is not None:
        current_request_id.reset(token)


def _worker_metrics_serve(**kwargs: Any) -> None:
    port = os.environ.get("CELERY_METRICS_PORT", "").strip()
    if not port:
        return
    from prometheus_client import start_http_server

    address = os.environ.get("CELERY_METRICS_ADDRESS", "127.0.0.1")
    start_http_server(int(port), addr=address, registry=_WorkerRegistry())
    log.warning("metrics of this worker on http://%s:%s/metrics", address, port)


class _WorkerRegistry:
    """What a worker's metrics port serves: every pool process's metrics and the queue depth."""

    def collect(self) -> Iterator[Any]:
        yield from metrics_registry().collect()
        yield from celery_queue_collector().collect()
