"""Outbound deliveries from a worker process: many requests in flight at once, over connections kept
per origin, with bounds per process, per origin, per target and per player.

Every delivery (a webhook, a Web Push, FCM, APNs, a batch of mails) is a :class:`Job` handed to the
process's :class:`Outbound`: one asyncio event loop in a thread of its own, made on first use in the
process that uses it (so a Celery worker's forked children each make their own after the fork). The
loop holds one connection pool per origin, so connections outlive a task: httpx over httpcore (HTTP/2
where TLS offers it) for webhooks and APNs, and for the prepared POSTs of Web Push and FCM, sent at
the move rate, aiohttp (:class:`LightClient`: its HTTP/1.1 is parsed in C, a request costs the loop
about a quarter of httpcore's CPU). The Django work (reading rows, recording outcomes) stays in ordinary
threads; the loop only sends.

Bounds, so that one tenant cannot take the process:

- a target (one webhook, one push subscription, one device) has ``DELIVERY_PER_TARGET`` requests in
  flight at most; its other jobs wait in its own lane, and a newer job with the same collapse key
  (a game's ``your_turn``) replaces an older one still waiting there or at its origin (backing off,
  held). One whose request is out is not abandoned: the far end may deliver it all the same, and its
  row is to say what happened; the newer one goes when it is answered or times out;
- a player has ``DELIVERY_PER_PLAYER`` in flight at most, whatever their targets;
- an origin ``DELIVERY_PER_ORIGIN`` (its connection pool's size too), the process
  ``DELIVERY_MAX_IN_FLIGHT``;
- a target or origin that fails (no answer, 5xx, 429, refused connection) backs off: its lane waits
  0.5 s, doubled per failure up to ``DELIVERY_BACKOFF_MAX_SECONDS``, before its next request; a target
  that answers slower than ``DELIVERY_SLOW_SECONDS`` waits 0.5 s (its origin answered: it is up, and
  its other targets go on; a push service back from a stall answers everything it held slowly). Jobs
  of other targets never wait for it.
- a push service that is failing gets one push at a time (a probe), not one per waiting target
  (jobs made with ``one_at_a_time``): a stalled push service holds whatever it was sent and delivers
  it on its return, so everything sent into the stall would arrive beside the newer turns made
  meanwhile. When the probe is answered the origin sets :attr:`Outbound.origin_back` and stays held
  until the process's reader has read the outbox once more (:meth:`Outbound.held_released`; at most
  :data:`HELD_SECONDS`): a ``your_turn`` committed before the return then replaces its older one
  before that goes, and the service gets one push per player and game. Webhooks do not wait for a
  probe: their origin may be shared by many players, and one player's failing receiver would make
  the others' deliveries wait for probes of its own that fail.

Server-side request forgery: a pool made with a ``refusal`` rule resolves the host when it opens a
connection, checks every address with the rule (streams.ssrf) and connects to the checked one; TLS
still names the host (SNI and the certificate's check). A connection is checked when it is opened,
whoever asked for it, and kept connections expire after ``DELIVERY_KEEPALIVE_SECONDS``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import itertools
import logging
import os
import queue
import select
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import aiohttp.abc
import httpcore
import httpx
import multidict
import uvloop
import yarl
from django.conf import settings
from django.db import connections

from streams import ssrf

log = logging.getLogger(__name__)

Refusal = Callable[[ssrf.IPAddress, str], str | None]


# --- connections: one pool per origin, the address checked when a connection is opened ---------------


async def checked_addresses(host: str, port: int, refusal: Refusal) -> list[str]:
    """The addresses of ``host`` (resolved now, unless it is one), every one passing ``refusal``;
    the connection is to go to the first. Raises :class:`ssrf.UnsafeTarget`."""
    try:
        addresses = [str(ipaddress.ip_address(host))]
    except ValueError:
        addresses = await asyncio.get_running_loop().run_in_executor(None, ssrf.resolve, host, port)
    if not addresses:
        raise ssrf.UnsafeTarget("unresolvable", host=host)
    for text in addresses:
        unsafe = address_refused(ipaddress.ip_address(text), host, refusal)
        if unsafe is not None:
            raise unsafe
    return addresses


def address_refused(address: ssrf.IPAddress, host: str, refusal: Refusal) -> ssrf.UnsafeTarget | None:
    """Why a connection to ``address`` (for ``host``) may not be opened, as the error to raise."""
    why = refusal(address, host)
    return None if why is None else ssrf.UnsafeTarget("private_address", address=str(address), kind=why)


class CheckedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend with the SSRF guard at connect time: the name is resolved here, every
    address must pass ``refusal`` and the connection goes to the first (the one that was checked)."""

    def __init__(self, refusal: Refusal | None, *, http1: bool = True) -> None:
        self.inner = httpcore.AnyIOBackend()
        self.refusal = refusal
        self.http1 = http1  # a plain connection speaks HTTP/1.1 (else HTTP/2 with prior knowledge)

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None, socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        if self.refusal is not None:
            host = (await checked_addresses(host, port, self.refusal))[0]
        return KeptStream(await self.inner.connect_tcp(host, port, timeout=timeout, local_address=local_address,
                                                       socket_options=socket_options), one_request=self.http1)

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("no unix sockets for deliveries")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


#: An idle connection found not readable (not closed by the far end) is taken as such this long
#: without asking again: httpcore asks every idle connection of a pool at each request and at each
#: answer's end (a poll each), though a far end closes a kept connection after seconds of quiet.
READABLE_CHECK_SECONDS = 0.05


class KeptStream(httpcore.AsyncNetworkStream):
    """anyio's stream, cheaper per request.

    - The liveness check: httpcore asks every idle connection of a pool whether it is readable (closed
      by the far end), and anyio answers by building all the socket's attributes, a ``getpeername``
      call among them. The socket is looked up and registered with a poll object once; ``is_readable``
      is one zero-timeout poll, and a "no" holds for READABLE_CHECK_SECONDS.
    - One write per HTTP/1.1 request (``one_request``): httpcore writes a request's head and its body
      apart (two system calls, two TLS records); they are kept and written together when the answer
      is read. Not on HTTP/2, where requests of other tasks share the connection and a read may wait
      for another stream's answer."""

    def __init__(self, inner: httpcore.AsyncNetworkStream, *, one_request: bool) -> None:
        self.inner = inner
        self.sock = inner.get_extra_info("socket")
        self.poller = select.poll()
        if self.sock is not None:
            self.poller.register(self.sock, select.POLLIN)
        self.quiet_until = 0.0
        self.one_request = one_request
        self.unsent: list[bytes] = []

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self.unsent:
            data, self.unsent = b"".join(self.unsent), []
            await self.inner.write(data, timeout)
        return await self.inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not self.one_request:
            await self.inner.write(buffer, timeout)
        elif buffer:
            self.unsent.append(buffer)

    async def aclose(self) -> None:
        self.unsent = []
        await self.inner.aclose()

    async def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        stream = await self.inner.start_tls(ssl_context, server_hostname, timeout)
        ssl_object = stream.get_extra_info("ssl_object")
        http2 = ssl_object is not None and ssl_object.selected_alpn_protocol() == "h2"
        return KeptStream(stream, one_request=not http2)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            if self.sock is None or self.sock.fileno() < 0:
                return True
            now = time.monotonic()
            if now < self.quiet_until:
                return False
            readable = bool(self.poller.poll(0))
            if not readable:
                self.quiet_until = now + READABLE_CHECK_SECONDS
            return readable
        if info == "socket":
            return self.sock
        return self.inner.get_extra_info(info)


#: httpcore's failures of a request (a connection refused, a timeout, a broken answer).
TRANSPORT_ERRORS = (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError,
                    httpcore.UnsupportedProtocol)


class PoolTransport(httpx.AsyncBaseTransport):
    """httpx over an httpcore pool we built (httpx's own transport does not take a network backend).
    Bodies are read whole: deliveries get short answers."""

    def __init__(self, pool: httpcore.AsyncConnectionPool) -> None:
        self.pool = pool

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        core = httpcore.Request(method=request.method,
                                url=httpcore.URL(scheme=request.url.raw_scheme, host=request.url.raw_host,
                                                 port=request.url.port, target=request.url.raw_path),
                                headers=request.headers.raw, content=request.stream, extensions=request.extensions)
        answer, content = await exchange(self.pool, core, request)
        return httpx.Response(answer.status, headers=answer.headers, content=content,
                              extensions={k: v for k, v in answer.extensions.items() if k != "network_stream"})

    async def aclose(self) -> None:
        await self.pool.aclose()


#: Connections of one pool (see :meth:`Outbound.client`).
POOL_CONNECTIONS = 4


async def exchange(pool: httpcore.AsyncConnectionPool, core: httpcore.Request,
                   request: httpx.Request | None = None) -> tuple[httpcore.Response, bytes]:
    """One request on the pool and its answer read whole (deliveries get short answers); httpcore's
    failures raised as httpx's."""
    try:
        answer = await pool.handle_async_request(core)
        try:
            content = await answer.aread()
        finally:
            await answer.aclose()
    except TRANSPORT_ERRORS as exc:
        raise as_httpx(exc, request) from exc
    return answer, content


def as_httpx(exc: Exception, request: httpx.Request | None = None) -> httpx.TransportError:
    """httpx's exception of the same name as httpcore's (what the callers catch)."""
    if isinstance(exc, httpcore.TimeoutException):
        return getattr(httpx, type(exc).__name__, httpx.TimeoutException)(str(exc), request=request)
    if isinstance(exc, httpcore.ConnectError):
        return httpx.ConnectError(str(exc), request=request)
    return getattr(httpx, type(exc).__name__, httpx.TransportError)(str(exc), request=request)


@dataclass(frozen=True)
class Prepared:
    """A POST made ready off the loop, for :meth:`LightClient.post`: the URL parsed, the headers in
    aiohttp's own mapping. ``Accept-Encoding: identity``: an answer is read as it comes (only its
    status and a short text matter); named here rather than skipped per session, which made aiohttp
    build a header mapping more per request."""

    url: yarl.URL
    headers: multidict.CIMultiDict
    content: bytes


def prepared(url: str, headers: dict[str, str], content: bytes) -> Prepared:
    return Prepared(yarl.URL(url), multidict.CIMultiDict({"Accept-Encoding": "identity", **headers}), content)


class CheckedResolver(aiohttp.abc.AbstractResolver):
    """aiohttp's look-up with the SSRF guard, as :class:`CheckedBackend` for httpcore: the name is
    resolved when a connection is opened, every address checked, the connection made to the first.
    (aiohttp asks no resolver for an address literal: :class:`LightClient` checks those itself.)"""

    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET) -> list[Any]:
        address = (await checked_addresses(host, port, self.refusal))[0]
        return [{"hostname": host, "host": address, "port": port, "proto": 0, "flags": socket.AI_NUMERICHOST,
                 "family": socket.AF_INET6 if ":" in address else socket.AF_INET}]

    async def close(self) -> None:
        pass


#: The most of an answer's body a push reads (its text only names an error): a far end that answers
#: with more, or without a length, costs no more memory than this.
ANSWER_BYTES = 16384


class LightClient:
    """An origin's client for prepared POSTs (Web Push, FCM: HTTP/1.1, a status and a short answer
    read): aiohttp over connections kept per origin, ``DELIVERY_PER_ORIGIN`` of them at most, each
    opened to an address the ``refusal`` rule passed. Raises httpx's exceptions, as KeptClient does."""

    def __init__(self, origin: str, *, refusal: Refusal | None, ssl_context: Any, timeout: float) -> None:
        size = int(settings.DELIVERY_PER_ORIGIN)
        connector = aiohttp.TCPConnector(
            limit=size, limit_per_host=size, keepalive_timeout=float(settings.DELIVERY_KEEPALIVE_SECONDS),
            use_dns_cache=False, ssl=ssl_context, happy_eyeballs_delay=None,
            resolver=CheckedResolver(refusal) if refusal is not None else None)
        self.session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout),
                                             auto_decompress=False)
        self.refused: ssrf.UnsafeTarget | None = None
        host = yarl.URL(origin).host or ""
        try:
            literal = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if refusal is not None and literal is not None:
            self.refused = address_refused(literal, host, refusal)

    async def post(self, request: Prepared) -> tuple[int, bytes]:
        """(status, body) of the POST."""
        if self.refused is not None:
            raise self.refused
        try:
            async with self.session.post(request.url, data=request.content, headers=request.headers) as answer:
                if answer.content_length is not None and answer.content_length <= ANSWER_BYTES:
                    return answer.status, await answer.read()
                return answer.status, await answer.content.read(ANSWER_BYTES)  # the connection is not kept
        except TimeoutError as exc:
            raise httpx.TimeoutException(f"no answer within {self.session.timeout.total} s") from exc
        except aiohttp.ClientError as exc:
            raise httpx.TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def aclose(self) -> None:
        await self.session.close()


class KeptClient(httpx.AsyncClient):
    """An origin's client that counts its requests in flight (to pick the least busy of a group)."""

    def __init__(self, *, pool: httpcore.AsyncConnectionPool, timeout: float, **kwargs: Any) -> None:
        super().__init__(transport=PoolTransport(pool), timeout=timeout, **kwargs)
        self.in_flight = 0

    async def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        self.in_flight += 1
        try:
            return await super().send(request, **kwargs)
        finally:
            self.in_flight -= 1


def push_refusal(address: ssrf.IPAddress, host: str) -> str | None:
    """Push endpoints: the webhooks' rule, and with PUSH_ALLOW_LOOPBACK a loopback address literal."""
    if settings.PUSH_ALLOW_LOOPBACK and address.is_loopback and host == str(address):
        return None
    return ssrf.address_refusal(address)


def webhook_refusal(address: ssrf.IPAddress, host: str) -> str | None:
    return ssrf.address_refusal(address)


# --- jobs, lanes and the loop -----------------------------------------------------------------------


@dataclass
class Done:
    """What became of a job: ``value`` what its send returned; ``replaced`` when a newer job with
    the same collapse key took its place before it was sent; ``newer_waiting`` when such a job came
    while it was in flight; ``expired`` when it waited past its deadline unsent."""

    value: Any = None
    replaced: bool = False
    newer_waiting: bool = False
    expired: bool = False
    seconds: float = 0.0


@dataclass(eq=False)
class Job:
    """One delivery: ``send`` makes the request (with the client :meth:`Outbound.client` gives it);
    ``failed`` says whether its value counts as the far end failing (for the back-off)."""

    target: str
    origin: str
    player: int
    send: Callable[[], Awaitable[Any]]
    failed: Callable[[Any], bool] = lambda value: False
    collapse: str | None = None
    deadline: float = float("inf")
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)
    key: Any = None
    one_at_a_time: bool = False
    superseded: bool = False
    started: bool = False
    on_the_wire: bool = False


@dataclass
class Lane:
    waiting: OrderedDict = field(default_factory=OrderedDict)
    in_flight: int = 0
    sending: dict = field(default_factory=dict)  # collapse key -> (job, its task) while in flight
    failures: int = 0
    paused_until: float = 0.0
    # an origin's: its one probe is out while it fails; back, held until the reader read (the count)
    probing: bool = False
    held: int = 0
    changed: asyncio.Event | None = None

    def wake(self) -> None:
        """Wake the jobs waiting for this origin to change (its probe answered, its hold ended)."""
        if self.changed is not None:
            self.changed.set()
            self.changed = None

    def let_go(self) -> None:
        """End the origin's hold: its waiting jobs go."""
        self.held = 0
        self.wake()


#: the longest an origin back from failing waits for the reader's next read (a reader that is slow or
#: stuck, a process without one) before its waiting jobs go anyway
HELD_SECONDS = 2.0


_sequence = itertools.count()


class Outbound:
    """The process's sender (see the module docstring); :func:`outbound` gives the one of this process."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = uvloop.new_event_loop()  # the loop's own work per request: about a fifth less than asyncio's
        self.clients: OrderedDict[tuple[Any, ...], list[KeptClient]] = OrderedDict()
        self.light_clients: OrderedDict[tuple[Any, ...], LightClient] = OrderedDict()
        self.context: Any = None
        self.lanes: dict[str, Lane] = {}
        self.origins: dict[str, Lane] = {}
        self.players: dict[int, tuple[asyncio.Semaphore, list[int]]] = {}  # gate, [jobs using it]
        self.origin_gates: dict[str, asyncio.Semaphore] = {}
        #: Set when an origin that failed answers again (the reader then sends the retries it holds back).
        self.origin_back = threading.Event()
        #: how many times an origin came back (counted before ``origin_back`` is set; see held_released)
        self.back_count = 0
        #: whether a reader feeds this process (then an origin back from failing waits for its read)
        self.reader_attached = False
        self.thread = threading.Thread(target=self._run, name="deliveries-loop", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.process_gate = asyncio.Semaphore(int(settings.DELIVERY_MAX_IN_FLIGHT))
        self.loop.run_forever()

    # -- from any thread --

    def submit(self, job: Job) -> concurrent.futures.Future:
        self.loop.call_soon_threadsafe(self._enqueue, job)
        return job.future

    def submit_all(self, jobs: list[Job]) -> list[concurrent.futures.Future]:
        """A batch of jobs, with one wake-up of the loop for all of them (not one each)."""
        if jobs:
            self.loop.call_soon_threadsafe(self._enqueue_all, jobs)
        return [job.future for job in jobs]

    def call(self, make: Callable[[], Awaitable[Any]], timeout: float | None = None) -> Any:
        """Run a coroutine on the loop and wait for its result (a sender's one-off, e.g. a test's)."""
        async def run() -> Any:
            return await make()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def held_released(self, count: int) -> None:
        """The reader has read the outbox after the first ``count`` returns of failing origins: their
        waiting jobs may go (called from the reader's thread)."""
        self.loop.call_soon_threadsafe(self._release, count)

    def reset(self) -> None:
        """Close every kept connection (the next request opens, and checks, a new one)."""
        async def close() -> None:
            groups, self.clients, self.context = list(self.clients.values()), OrderedDict(), None
            lights, self.light_clients = list(self.light_clients.values()), OrderedDict()
            for group in groups:
                for client in group:
                    await client.aclose()
            for light in lights:
                await light.aclose()
            self.lanes.clear()
            self.origins.clear()

        if self.thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)

    # -- on the loop --

    def client(self, origin: str, *, refusal: Refusal | None, http2: bool = True, http1: bool = True,
               timeout: float | None = None) -> KeptClient:
        """A kept client of an origin (``scheme://host:port``), the least busy of its group.

        An origin's connections are split into pools of at most POOL_CONNECTIONS: httpcore looks at
        every connection of a pool for every request, so one big pool costs each request time in
        proportion to its size. At most DELIVERY_ORIGINS_KEPT origins are kept."""
        key = (origin, refusal, http1, http2)
        group = self.clients.pop(key, None)
        if group is None:
            size = int(settings.DELIVERY_PER_ORIGIN)
            group = [self._client(min(size, POOL_CONNECTIONS), refusal, http1, http2, timeout)
                     for _n in range(max(1, -(-size // POOL_CONNECTIONS)))]
            while len(self.clients) >= int(settings.DELIVERY_ORIGINS_KEPT):
                for old in self.clients.popitem(last=False)[1]:
                    self.loop.create_task(old.aclose())
        self.clients[key] = group
        return min(group, key=lambda client: client.in_flight)

    def light(self, origin: str, *, refusal: Refusal | None) -> LightClient:
        """The kept :class:`LightClient` of an origin (``scheme://host:port``); at most
        DELIVERY_ORIGINS_KEPT origins are kept."""
        key = (origin, refusal)
        light = self.light_clients.pop(key, None)
        if light is None:
            light = LightClient(origin, refusal=refusal, ssl_context=self.ssl_context(),
                                timeout=float(settings.NOTIFY_TIMEOUT_SECONDS))
            while len(self.light_clients) >= int(settings.DELIVERY_ORIGINS_KEPT):
                self.loop.create_task(self.light_clients.popitem(last=False)[1].aclose())
        self.light_clients[key] = light
        return light

    def _client(self, size: int, refusal: Refusal | None, http1: bool, http2: bool,
                timeout: float | None) -> KeptClient:
        pool = httpcore.AsyncConnectionPool(
            ssl_context=self.ssl_context(), max_connections=size, max_keepalive_connections=size,
            keepalive_expiry=float(settings.DELIVERY_KEEPALIVE_SECONDS), http1=http1, http2=http2,
            network_backend=CheckedBackend(refusal, http1=http1))
        return KeptClient(pool=pool, follow_redirects=False, trust_env=False,
                          timeout=timeout or float(settings.NOTIFY_TIMEOUT_SECONDS))

    def ssl_context(self) -> Any:
        """One TLS context for every pool (loading the trust store is slow); made again after :meth:`reset`."""
        if self.context is None:
            self.context = httpx.create_ssl_context(trust_env=False)
        return self.context

    def _enqueue_all(self, jobs: list[Job]) -> None:
        for job in jobs:
            self._enqueue(job)

    def _enqueue(self, job: Job) -> None:
        lane = self.lanes.setdefault(job.target, Lane())
        job.key = job.collapse if job.collapse is not None else next(_sequence)
        older = lane.waiting.pop(job.key, None)
        if older is not None:
            older.future.set_result(Done(replaced=True))
        if job.collapse is not None and job.key in lane.sending:
            # One on its way but not sent (its origin fails or is held): the newer one takes its place
            # now, not after it (two pushes of one turn). One whose request is out stays (see above).
            sending, task = lane.sending[job.key]
            if not sending.on_the_wire:
                sending.superseded = True
                if sending.started:  # a task cancelled before its first step would never settle its job
                    task.cancel()
        lane.waiting[job.key] = job
        self._pump(job.target)

    def _pump(self, target: str) -> None:
        lane = self.lanes.get(target)
        if lane is None:
            return
        now = time.monotonic()
        if lane.paused_until > now:
            self.loop.call_at(self.loop.time() + (lane.paused_until - now), self._pump, target)
            return
        while lane.waiting and lane.in_flight < int(settings.DELIVERY_PER_TARGET):
            _key, job = lane.waiting.popitem(last=False)
            lane.in_flight += 1
            task = self.loop.create_task(self._run_job(lane, job))
            if job.collapse is not None:
                lane.sending[job.key] = (job, task)
        if not lane.waiting and not lane.in_flight and not lane.failures:
            self.lanes.pop(target, None)

    def _release(self, count: int) -> None:
        for origin in self.origins.values():
            if origin.held and origin.held <= count:
                origin.let_go()

    @staticmethod
    def _hold_ended(origin: Lane, held: int) -> None:
        if origin.held == held:
            origin.let_go()

    async def _origin_turn(self, origin: Lane, job: Job) -> bool:
        """Wait until a job may go to its origin: not while it backs off; a ``one_at_a_time`` job
        not beside a failing origin's probe, nor while the origin is held. True when the job goes as
        the failing origin's probe."""
        while True:
            now = time.monotonic()
            if origin.paused_until > now:
                await asyncio.sleep(origin.paused_until - now)
                continue
            if not job.one_at_a_time:
                return False
            if not origin.held and not origin.probing:
                if not origin.failures:
                    return False
                origin.probing = True
                return True
            if origin.changed is None:
                origin.changed = asyncio.Event()
            await origin.changed.wait()

    def _came_back(self, origin: Lane, job: Job) -> None:
        """A failing origin answered: its retries in the database may go now, and (a push service,
        with a reader) its waiting jobs once the reader has read what was committed meanwhile."""
        self.back_count += 1
        if self.reader_attached and job.one_at_a_time:
            origin.held = self.back_count
            self.loop.call_later(HELD_SECONDS, self._hold_ended, origin, origin.held)
        self.origin_back.set()

    async def _run_job(self, lane: Lane, job: Job) -> None:
        done = Done()
        job.started = True  # from here a cancel reaches the try below (see _enqueue)
        origin, probe = None, False
        try:
            if job.superseded:
                done.replaced = True
                return
            if time.monotonic() > job.deadline:
                done.expired = True
                return
            origin = self.origins.setdefault(job.origin, Lane())
            probe = await self._origin_turn(origin, job)
            player_gate, users = self.players.setdefault(
                job.player, (asyncio.Semaphore(int(settings.DELIVERY_PER_PLAYER)), [0]))
            users[0] += 1
            origin_gate = self.origin_gates.setdefault(job.origin, asyncio.Semaphore(int(settings.DELIVERY_PER_ORIGIN)))
            try:
                await player_gate.acquire()
                try:
                    async with origin_gate, self.process_gate:
                        if time.monotonic() > job.deadline:
                            done.expired = True
                            return
                        if job.superseded:
                            done.replaced = True
                            return
                        started = time.monotonic()
                        job.on_the_wire = True
                        try:
                            done.value = await job.send()
                        finally:
                            done.seconds = time.monotonic() - started
                finally:
                    player_gate.release()
            finally:
                users[0] -= 1
                if not users[0]:
                    self.players.pop(job.player, None)
            failed = bool(job.failed(done.value))
            slow = done.seconds > float(settings.DELIVERY_SLOW_SECONDS)
            for gate in (lane, origin):
                if failed:
                    gate.failures += 1
                    gate.paused_until = time.monotonic() + min(float(settings.DELIVERY_BACKOFF_MAX_SECONDS),
                                                               0.5 * 2 ** (gate.failures - 1))
                elif slow and gate is lane:  # a slow target waits a moment; its origin answered, so is up
                    gate.failures, gate.paused_until = 0, time.monotonic() + 0.5
                else:
                    if gate is origin and gate.failures:
                        self._came_back(origin, job)
                    gate.failures, gate.paused_until = 0, 0.0
            done.newer_waiting = job.collapse is not None and job.key in lane.waiting
        except asyncio.CancelledError:
            if not job.superseded:
                raise
            done = Done(replaced=True)  # a newer job of its collapse key took its place (see _enqueue)
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the job, in its thread
            if not job.future.done():
                job.future.set_exception(exc)
        finally:
            if probe and origin is not None:
                origin.probing = False
                origin.wake()
            if job.collapse is not None and lane.sending.get(job.key, (None,))[0] is job:
                del lane.sending[job.key]
            lane.in_flight -= 1
            if not job.future.done():
                job.future.set_result(done)
            self._pump(job.target)


_current: Outbound | None = None
_current_lock = threading.Lock()


def outbound() -> Outbound:
    """This process's sender, made on first use (after a fork: a new one, the parent's loop is not ours)."""
    global _current
    with _current_lock:
        if _current is None or _current.pid != os.getpid():
            _current = Outbound()
        return _current


def reset() -> None:
    """Close the kept connections of this process (tests; a changed trust store)."""
    if _current is not None and _current.pid == os.getpid():
        _current.reset()


# --- the desk: Django work of a worker process, off the task's thread, in batches --------------------


class Desk:
    """A thread that takes items (fan-outs to write, outcomes to record) from a queue and hands them
    in batches to ``handle``: one batch costs a few queries whatever its size. Made per process."""

    def __init__(self, name: str, handle: Callable[[list[Any]], None], batch: int = 500) -> None:
        self.pid = os.getpid()
        self.items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.handle = handle
        self.batch = batch
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def put(self, item: Any) -> None:
        self.items.put(item)

    def _run(self) -> None:
        while True:
            items = [self.items.get()]
            time.sleep(float(settings.DELIVERY_BATCH_SECONDS))  # let a batch gather
            while len(items) < self.batch:
                try:
                    items.append(self.items.get_nowait())
                except queue.Empty:
                    break
            try:
                connections_mended()
                self.handle(items)  # on the thread's own connection, kept from batch to batch
            except Exception:
                log.exception("deliveries: a batch of %s failed", len(items))


def connections_mended() -> None:
    """Before a batch of a thread that keeps its database connection: a connection that failed and is
    no longer usable (the database restarted, ended or cut it) is closed, so the batch opens a new one.
    A sound connection costs nothing (Django's ``close_old_connections`` would also close it, since
    with the pool ``CONN_MAX_AGE`` is 0, and the next borrow cost a check query per batch)."""
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and connection.errors_occurred and not connection.is_usable():
            connection.close()


def desk_of(holder: dict[str, Desk], name: str, handle: Callable[[list[Any]], None]) -> Desk:
    with _current_lock:
        desk = holder.get(name)
        if desk is None or desk.pid != os.getpid():
            desk = holder[name] = Desk(name, handle)
        return desk
