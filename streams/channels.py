"""Wake-ups for waiting clients: publish on commit, a per-process hub of waiters, three channels.

Topics are ``game:<id>`` (a move was committed) and ``player:<id>`` (a notification was written).
A wake-up carries no data: it only tells a waiter to look again at the database, which is the
truth. So a lost or spurious wake-up costs a query, never a lost or duplicated event.

Channels (``maumau.ops.channel_kind``):

- ``postgres``: ``pg_notify`` on publish (a move issues it inside its own transaction, which
  delivers it at commit); each ASGI process holds one psycopg 3 async connection that LISTENs.
- ``redis``: ``PUBLISH`` on publish; one pub/sub connection per process (``PSUBSCRIBE``).
- ``poll``: needs no server (the embedded SQLite default): one query per tick for all topics that
  have waiters in the process (game versions, last notification ids); it wakes waiters whose value
  changed. It also runs with the other two, rarely, as a backstop.

Publishing also wakes waiters in the publishing process directly, so a single server that serves
moves and streams wakes its streams without a round trip.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import weakref
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import Max

from games.models import Game
from maumau.database_retry import read_once_more
from maumau.ops import channel_kind
from streams.models import Notification
from streams.outbound import connections_mended

log = logging.getLogger(__name__)
T = TypeVar("T")
PG_CHANNEL = "maumau_streams"
REDIS_PREFIX = "maumau:streams:"

# --- the ORM off the event loop -----------------------------------------------------------------

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _db_executor() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=settings.STREAMS_DB_THREADS, thread_name_prefix="streams-db")
        return _executor


def _in_db_thread(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    """Each thread keeps its connection from call to call (one the database ended is replaced first).

    Given back to the pool after every call, a waiting client's read queued for a connection behind
    the requests that serve moves, and at full load a long-poll heard of a move many seconds late
    (docs/benchmarks.md, "Long-polls at full load"). The pool holds these connections beyond the
    requests' own (``maumau.settings``). A kept connection is not checked as a borrowed one is: one
    the database ended fails its next call, which runs once more on a fresh connection (these calls
    read, or resolve a passed deadline, which is idempotent: ``maumau.database_retry``)."""
    connections_mended()
    return read_once_more(fn, *args, **kwargs)


def _on_every_thread(executor: ThreadPoolExecutor, job: Callable[[], None]) -> list[Future[None]]:
    """``job`` once on every streams thread: each run waits at a barrier until all threads hold one,
    so no thread takes two (the executor starts its threads as the runs come)."""
    count = settings.STREAMS_DB_THREADS
    barrier = threading.Barrier(count)

    def held() -> None:
        try:
            job()
        finally:
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=10)

    return [executor.submit(held) for _ in range(count)]


def db_threads_closed() -> None:
    """Close the connections the streams' threads keep and end the threads (the next :func:`db`
    starts new ones). For the end of a test run, whose database cannot be dropped while a
    connection is open; a process that exits needs nothing (its connections end with it)."""
    global _executor
    with _executor_lock:
        executor, _executor = _executor, None
    if executor is None:
        return
    for future in _on_every_thread(executor, connections.close_all):
        future.result()
    executor.shutdown(wait=True)


async def db_threads_connected() -> None:
    """Start every streams thread and let each take its connection now (a worker's start, before it
    serves: ``live.asgi.lifespan``). Taken at a thread's first call instead, under load, the
    connection was waited for behind the requests that serve moves, and the first long-polls of a
    process started under load wrote their watching marks seconds late (docs/benchmarks.md, "Long-polls
    at full load"). A database that cannot be reached raises; the threads then connect at their first call."""

    def connect() -> None:
        connections_mended()
        connection.ensure_connection()

    await asyncio.gather(*(asyncio.wrap_future(future) for future in _on_every_thread(_db_executor(), connect)))


async def db(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run sync ORM code in the streams' own small thread pool.

    Not ``sync_to_async(thread_sensitive=True)``: waiting clients must never queue behind (or
    in front of) the threads that serve moves.
    """
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_db_executor(), functools.partial(_in_db_thread, fn, args, kwargs))


# --- publishing (sync) --------------------------------------------------------------------------

_redis_client: Any = None


def _redis_url() -> str:
    return str(settings.STREAMS_CHANNEL).strip()


def _pg_notify_sql(count: int) -> str:
    return "SELECT " + ", ".join(["pg_notify(%s, %s)"] * count)


def publish_on_commit(*topics: str) -> None:
    """Wake the waiters on these topics once the current transaction commits (at once without one):
    :func:`published_on_commit`, and the ``pg_notify`` it asks for run now."""
    notify = published_on_commit(*topics)
    if notify:
        with connection.cursor() as cursor:
            cursor.execute(_pg_notify_sql(len(notify)), [v for topic in notify for v in (PG_CHANNEL, topic)])


def published_on_commit(*topics: str) -> tuple[str, ...]:
    """Arrange the wake-ups of these topics for the commit; return the topics the caller must
    ``pg_notify`` on :data:`PG_CHANNEL` inside the transaction (none but on the ``postgres`` channel).

    On the ``postgres`` channel the ``pg_notify`` calls run inside the transaction (a writer puts
    them in its own statement): PostgreSQL delivers them at commit and drops them on rollback, so the
    publisher needs no round trip after commit. Waiters of this process and the ``redis`` channel are
    woken by an on-commit hook.
    """
    if not topics:
        return ()
    if channel_kind() == "postgres" and connection.vendor == "postgresql":
        transaction.on_commit(functools.partial(_publish_local, topics))
        return topics
    transaction.on_commit(functools.partial(publish, *topics))
    return ()


def _publish_local(topics: tuple[str, ...]) -> None:
    for hub in list(_hubs.values()):
        hub.fire_threadsafe(topics)


def publish(*topics: str) -> None:
    """Wake every waiter on these topics, in this process and (through the channel) in others.

    Call it after the change committed (or use :func:`publish_on_commit`).
    """
    if not topics:
        return
    _publish_local(topics)
    kind = channel_kind()
    try:
        if kind == "postgres" and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(_pg_notify_sql(len(topics)), [v for topic in topics for v in (PG_CHANNEL, topic)])
        elif kind == "redis":
            global _redis_client
            if _redis_client is None:
                import redis

                _redis_client = redis.Redis.from_url(_redis_url(), socket_timeout=2, socket_connect_timeout=2)
            pipe = _redis_client.pipeline(transaction=False)
            for topic in topics:
                pipe.publish(REDIS_PREFIX + topic, b"")
            pipe.execute()
    except Exception:  # a wake-up is a hint: the poll backstop still finds the change
        log.warning("streams: could not publish %s on %s", topics, kind, exc_info=True)


# --- the hub: waiters of one event loop ----------------------------------------------------------


class Subscription:
    """One waiter on one topic. Subscribe BEFORE reading the database, then wait, then re-read.

    ``seen`` is the topic's value (a game's version, a player's last notification id) as of the
    waiter's last read: the hub's backstop wakes only waiters behind the value it reads, in one
    batched query for all topics, so a missed wake-up costs no read per stream.
    """

    __slots__ = ("hub", "topic", "seen", "_woken", "_future")

    def __init__(self, hub: Hub, topic: str) -> None:
        self.hub, self.topic = hub, topic
        self.seen: int | None = None
        self._woken = False
        self._future: asyncio.Future[bool] | None = None

    def wake(self) -> None:
        self._woken = True
        if self._future is not None and not self._future.done():
            self._future.set_result(True)

    async def wait(self, timeout: float) -> bool:
        """True when woken (then cleared), False when ``timeout`` ran out. One timer, no task:
        cheap enough for every keep-alive of ten thousand streams."""
        if not self._woken:
            future = self._future = self.hub.loop.create_future()
            timer = self.hub.loop.call_later(max(0.0, timeout), _time_out, future)
            try:
                await future
            finally:
                timer.cancel()
                self._future = None
        woken, self._woken = self._woken, False
        return woken

    def close(self) -> None:
        self.hub._unsubscribe(self)


def _time_out(future: asyncio.Future[bool]) -> None:
    if not future.done():
        future.set_result(False)


class Hub:
    """Waiters of one event loop by topic, and the listener tasks that wake them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.kind = channel_kind()
        self.waiters: dict[str, set[Subscription]] = defaultdict(set)
        self.tasks: list[asyncio.Task[None]] = []
        self._poke = asyncio.Event()

    def subscribe(self, topic: str) -> Subscription:
        if not self.tasks:
            self._start()
        sub = Subscription(self, topic)
        self.waiters[topic].add(sub)
        return sub

    @property
    def open_waiters(self) -> int:
        return sum(len(subs) for subs in self.waiters.values())

    def _unsubscribe(self, sub: Subscription) -> None:
        subs = self.waiters.get(sub.topic)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self.waiters[sub.topic]

    def fire(self, topics: tuple[str, ...] | list[str]) -> None:
        for topic in topics:
            for sub in self.waiters.get(topic, ()):
                sub.wake()

    def fire_threadsafe(self, topics: tuple[str, ...] | list[str]) -> None:
        if self.loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            self.loop.call_soon_threadsafe(self.fire, list(topics))

    # -- listeners --

    def _start(self) -> None:
        interval = settings.STREAMS_POLL_INTERVAL
        if self.kind == "postgres":
            self.tasks.append(self.loop.create_task(self._listen_postgres()))
            interval = settings.STREAMS_BACKSTOP_INTERVAL
        elif self.kind == "redis":
            self.tasks.append(self.loop.create_task(self._listen_redis()))
            interval = settings.STREAMS_BACKSTOP_INTERVAL
        self.tasks.append(self.loop.create_task(self._poll(interval)))

    async def _listen_postgres(self) -> None:
        import psycopg
        from django.db import connections

        params = connections["default"].get_connection_params()
        params.pop("cursor_factory", None)
        params.pop("context", None)
        params.pop("prepare_threshold", None)
        params.pop("server_side_binding", None)
        params.pop("pool", None)
        # Outside the pool (it is held for good): the one connection a process adds to the pool's bound.
        params["application_name"] = f"{params.get('application_name') or 'maumau'}-listen"
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(autocommit=True, **params)
                async with conn:
                    await conn.execute(f"LISTEN {PG_CHANNEL}")
                    self._poke.set()  # changes while we were not listening: one batched look
                    async for notify in conn.notifies():
                        self.fire([notify.payload])
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("streams: LISTEN connection lost; reconnecting", exc_info=True)
                await asyncio.sleep(1.0)

    async def _listen_redis(self) -> None:
        import redis.asyncio as aioredis

        while True:
            try:
                client = aioredis.Redis.from_url(_redis_url())
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(REDIS_PREFIX + "*")
                    self._poke.set()
                    async for message in pubsub.listen():
                        if message.get("type") == "pmessage":
                            channel = message["channel"]
                            if isinstance(channel, bytes):
                                channel = channel.decode()
                            self.fire([channel[len(REDIS_PREFIX):]])
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("streams: Redis pub/sub lost; reconnecting", exc_info=True)
                await asyncio.sleep(1.0)

    async def _poll(self, interval: float) -> None:
        """Read every watched topic's value in one batched query; wake the waiters behind it.

        A waiter that has not read yet (``seen`` is None) is about to, so it is left alone; one
        whose read is older than the value is woken, whether or not its wake-up was lost.
        """
        while True:
            # Not ``asyncio.wait_for``: on Python 3.11 it drops a cancellation that comes as the
            # event is set (the listener sets it once it LISTENs), and this loop then never ends.
            # Under WSGI every request's event loop cancels its hub at the end and waits for it: that
            # request hung (a 404 long-poll among them).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(interval):
                    await self._poke.wait()
            self._poke.clear()
            topics = list(self.waiters)
            if not topics:
                continue
            try:
                values = await db(_topic_values, topics)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("streams: poll failed", exc_info=True)
                await asyncio.sleep(interval)
                continue
            for topic in topics:
                value = values.get(topic, 0)
                for sub in self.waiters.get(topic, ()):
                    if sub.seen is not None and value > sub.seen:
                        sub.wake()


#: The backstop's read on PostgreSQL: every watched round's version and every watched player's last
#: notification id, the ids passed as two arrays. Hand-written because the ORM's ``pk__in`` of a few
#: thousand ids cost more CPU than everything else an idle process did (bench.streams_ladder); each
#: player's last id is one backward step of the (player, id) index, not a scan of the player's
#: notifications.
_TOPIC_VALUES_SQL = (
    "SELECT 'game:' || g.id, g.version FROM {game} g WHERE g.id = ANY(%s::bigint[]) "
    "UNION ALL SELECT 'player:' || p.id, (SELECT max(n.id) FROM {notification} n WHERE n.player_id = p.id) "
    "FROM unnest(%s::bigint[]) AS p(id)"
)


def _topic_values(topics: list[str]) -> dict[str, Any]:
    """Game versions (= ledger rows) and last notification id per player, in one statement on
    PostgreSQL (one per kind of topic elsewhere)."""
    games = [int(t[5:]) for t in topics if t.startswith("game:")]
    players = [int(t[7:]) for t in topics if t.startswith("player:")]
    values: dict[str, Any] = {}
    if connection.vendor == "postgresql":
        sql = _TOPIC_VALUES_SQL.format(game=Game._meta.db_table, notification=Notification._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(sql, [games, players])
            return {topic: value for topic, value in cursor.fetchall() if value is not None}
    if games:
        for pk, version in Game.objects.filter(pk__in=games).values_list("pk", "version"):
            values[f"game:{pk}"] = version
    if players:
        rows = Notification.objects.filter(player_id__in=players).values("player_id").annotate(last=Max("id"))
        for row in rows:
            values[f"player:{row['player_id']}"] = row["last"]
    return values


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """The hub of the running event loop (one per ASGI worker process; one per request under WSGI)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub(loop)
    return found


def game_topic(game_id: int) -> str:
    return f"game:{game_id}"


def player_topic(player_id: int) -> str:
    return f"player:{player_id}"
