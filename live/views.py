"""Async views for waiting clients: long-poll of the game view, SSE of the ledger and of notifications.

These are plain Django async views (DRF has no async views): under an ASGI server a waiting
client costs a coroutine, not a thread. Authentication is DRF's token, looked up in the streams'
own DB threads; errors use the error shape of docs/api.md with messages in the caller's language.

Reads go through the games selectors (``game_for_player``, ``move_data``, ``game_view``), so a
stream shows exactly what ``GET /games/{id}/events`` and ``GET /games/{id}`` show: the engine's
``redact_events`` and ``player_view`` are the only redaction.

A stream lives on after the request that opened it was authenticated: every open stream's token is
looked at again every ``STREAMS_TOKEN_RECHECK_SECONDS`` (one query per process for all of them, see
:class:`_TokenWatch`), and a stream whose token is gone (log-out, revocation, a password change,
the account's deletion) ends with ``event: end`` and its reason.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
import weakref
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from accounts import authentication
from accounts.models import AccessToken
from games import presence, selectors
from games.models import Game, Player
from lobby import selectors as chat
from maumau.errors import MESSAGES, DomainError, ValidationFailed, error_body, json_busy
from maumau.params import QUERY_INT_MAX, query_int
from play import clocks
from scoring import selectors as scoring_selectors
from streams import channels
from streams.models import Notification

PAGE = 200
#: How long a stream's or long-poll's mark that its player watches the game outlives its last refresh.
WATCH_GRACE_SECONDS = 10.0
T = TypeVar("T")
ALLOWED_METHODS = "GET, OPTIONS"
log = logging.getLogger(__name__)


class _Unauthenticated(Exception):
    pass


def _error(exc: DomainError) -> JsonResponse:
    return JsonResponse(error_body(exc.code, exc.message, exc.details), status=exc.status)


def _unauthenticated() -> JsonResponse:
    response = JsonResponse(error_body("not_authenticated", MESSAGES["not_authenticated"]), status=401)
    response["WWW-Authenticate"] = "Token"
    return response


def _token_of_player(header: str) -> AccessToken:
    """The caller's token by ``Authorization: Token <key>`` (the same ``authenticate`` as every DRF
    view), its user's Player loaded; a user without one (an admin) is refused."""
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "token":
        raise _Unauthenticated()
    try:
        token = authentication.authenticate(parts[1])
    except authentication.NotAuthenticated as exc:
        raise _Unauthenticated() from exc
    try:
        token.user.player  # noqa: B018  (loaded with the token; raises for a user without one)
    except Player.DoesNotExist as exc:
        raise _Unauthenticated() from exc
    return token


class _Watched:
    """One open stream's token; ``ended`` is the reason once the token is gone; ``game`` the (player,
    game) it marks as watched, if any."""

    __slots__ = ("token_id", "sub", "ended", "game")

    def __init__(self, token_id: int, sub: channels.Subscription, game: tuple[int, int] | None) -> None:
        self.token_id, self.sub, self.game = token_id, sub, game
        self.ended: str | None = None


class _TokenWatch:
    """The open streams of one event loop by token. While there are any, every
    ``STREAMS_TOKEN_RECHECK_SECONDS`` one call of :func:`accounts.authentication.tokens_unusable` finds
    the tokens that no longer authenticate, and their streams are woken to end.

    It also keeps the watching marks of the loop's game streams (``games.presence``): one mark per
    (player, game) however many streams hold it, written when the first opens, renewed for all of them
    in one batch every ``STREAMS_WATCH_RENEW_SECONDS`` and deleted when the last closes. Renewing each
    stream's mark at each of its keep-alives cost ten thousand idle streams most of their CPU."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.streams: dict[int, set[_Watched]] = defaultdict(set)
        self.users: dict[int, int] = {}
        self.task: asyncio.Task[None] | None = None
        self.games: dict[tuple[int, int], int] = {}
        self.marked_at: dict[tuple[int, int], float] = {}
        self.pending: set[asyncio.Task[None]] = set()

    def watch(self, token: AccessToken, sub: channels.Subscription,
              game: tuple[int, int] | None = None) -> _Watched:
        watched = _Watched(token.pk, sub, game)
        self.streams[token.pk].add(watched)
        self.users[token.pk] = token.user_id
        if game is not None:
            self.games[game] = self.games.get(game, 0) + 1
        if self.task is None:
            self.task = self.loop.create_task(self._run())
        return watched

    async def mark(self, watched: _Watched) -> None:
        """The stream's watching mark, written now unless another stream of the loop holds it."""
        if watched.game is not None and watched.game not in self.marked_at:
            self.marked_at[watched.game] = self.loop.time()
            await presence.watching_amark(*watched.game, self.mark_seconds())

    @staticmethod
    def mark_seconds() -> float:
        """A mark outlives its renewal by one tick and the grace."""
        return (float(settings.STREAMS_WATCH_RENEW_SECONDS) + float(settings.STREAMS_TOKEN_RECHECK_SECONDS)
                + WATCH_GRACE_SECONDS)

    def unwatch(self, watched: _Watched) -> None:
        streams = self.streams.get(watched.token_id)
        if streams is not None:
            streams.discard(watched)
            if not streams:
                del self.streams[watched.token_id]
                self.users.pop(watched.token_id, None)
        game = watched.game
        if game is not None and game in self.games:
            self.games[game] -= 1
            if not self.games[game]:  # the last stream of it here: nobody looks from this process
                del self.games[game]
                if self.marked_at.pop(game, None) is not None:
                    task = self.loop.create_task(presence.watching_aunmark(*game))
                    self.pending.add(task)
                    task.add_done_callback(self.pending.discard)

    async def _marks_renewed(self) -> None:
        now = self.loop.time()
        due = [game for game, at in self.marked_at.items()
               if now - at >= float(settings.STREAMS_WATCH_RENEW_SECONDS)]
        if due:
            for game in due:
                self.marked_at[game] = now
            await presence.watching_amark_many(due, self.mark_seconds())

    async def _run(self) -> None:
        try:
            while self.streams:
                await asyncio.sleep(float(settings.STREAMS_TOKEN_RECHECK_SECONDS))
                if not self.streams:
                    break
                await self._marks_renewed()
                try:
                    unusable = await channels.db(authentication.tokens_unusable, dict(self.users))
                except Exception:  # a missed look is made again at the next tick
                    log.warning("streams: could not look at the open streams' tokens", exc_info=True)
                    continue
                for token_id, reason in unusable.items():
                    for watched in list(self.streams.get(token_id, ())):
                        watched.ended = reason
                        watched.sub.wake()
        finally:
            self.task = None


_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _TokenWatch] = weakref.WeakKeyDictionary()


def _token_watch() -> _TokenWatch:
    loop = asyncio.get_running_loop()
    found = _watches.get(loop)
    if found is None:
        found = _watches[loop] = _TokenWatch(loop)
    return found


def _sse(*, data: Any, event: str | None = None, event_id: int | None = None) -> bytes:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if event:
        lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


def _stream_response(body: AsyncIterator[bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass events through at once
    return response


def _not_get(request: HttpRequest) -> HttpResponse | None:
    """Only GET opens a stream or waits: OPTIONS says so (204), any other method is refused (405,
    HEAD included: a stream has no headers to show without opening it)."""
    if request.method == "GET":
        return None
    if request.method == "OPTIONS":
        response = HttpResponse(status=204)
    else:
        response = _error(DomainError("method_not_allowed", status=405, details={"method": request.method}))
    response["Allow"] = ALLOWED_METHODS
    return response


def _authenticated(view: Callable[..., Awaitable[HttpResponse]]) -> Callable[..., Awaitable[HttpResponse]]:
    """What every view here does first and last: only GET passes; an unknown caller (the view's
    :func:`_caller_and`) gets 401 and a DomainError its error, in the error shape of docs/api.md. Exempt from CSRF:
    callers authenticate by token, never by cookie, so a POST meets the 405."""

    @csrf_exempt
    @functools.wraps(view)
    async def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refused = _not_get(request)
        if refused is not None:
            return refused
        try:
            return await view(request, *args, **kwargs)
        except _Unauthenticated:
            return _unauthenticated()
        except DomainError as exc:
            return _error(exc)
        except Exception as exc:
            busy = json_busy(exc)  # no free database connection: 503, under ASGI and WSGI alike
            if busy is None:
                raise
            return busy

    return wrapper


async def _caller_and(request: HttpRequest, read: Callable[..., T] | None,
                      *args: Any) -> tuple[AccessToken, T | None]:
    """The caller's token, its player loaded (else :class:`_Unauthenticated`), and ``read(*args,
    player)``, in one call to the DB threads: one borrowed connection and one thread hop, where two
    calls took two of each. A waiting phone opens its long-poll again every minute: most of what an
    idle process does."""
    return await channels.db(_player_and_read, request.headers.get("Authorization", ""), read, args)


def _player_and_read(header: str, read: Callable[..., T] | None,
                     args: tuple[Any, ...]) -> tuple[AccessToken, T | None]:
    token = _token_of_player(header)
    return token, (read(*args, token.user.player) if read is not None else None)


# --- long-poll: GET /api/v1/games/{id}?wait=<s>&after=<version> -----------------------------------


def _game_open(game_id: int, invite_code: str | None,
               player: Player) -> tuple[int, int, str, int | None, datetime | None]:
    """Permission check (404/403); returns the version of the caller's view (a spectator's is delayed),
    the round's version, the caller's ETag, a spectator's delay (None for a seat) and the round's next
    deadline (None without one). A passed deadline found here is resolved first; only then, since
    resolving takes the round's lock and a long-poll is opened again every minute by every waiting phone."""
    game, _seats, viewer = selectors.game_for_watcher(game_id=game_id, player=player, invite_code=invite_code)
    if clocks.deadline_passed(game):
        clocks.clocks_resolve_due(game_id=game_id)
        game, _seats, viewer = selectors.game_for_watcher(game_id=game_id, player=player, invite_code=invite_code)
    delay = None if viewer is not None else getattr(game, "spectator_delay", 0)
    etag = selectors.game_etag(game=game, viewer=viewer, player=player)
    return selectors.visible_version(game, viewer), game.version, etag, delay, _next_deadline(game)


def _next_deadline(game: Game) -> datetime | None:
    due = [d for d in (game.deadline, game.hermann_deadline) if d is not None] if game.status == "active" else []
    return min(due, default=None)


def _game_version(game_id: int, delay: int | None) -> tuple[int, int]:
    """The version of the caller's view and the round's, read cheaply: a spectator's (``delay`` not
    None) stays ``delay`` moves behind while the round runs, so a move they cannot see yet does not
    answer them."""
    row = Game.objects.filter(pk=game_id).values_list("version", "status").first()
    if row is None:
        return 0, 0
    version, status = row
    return (version if delay is None or status != "active" else max(0, version - delay)), version


def _game_answer(game_id: int, player: Player, invite_code: str | None) -> tuple[dict[str, Any], str]:
    game, seats, viewer = selectors.game_for_watcher(game_id=game_id, player=player, invite_code=invite_code)
    etag = selectors.game_etag(game=game, viewer=viewer, player=player)
    view = selectors.game_view_for_player(game=game, seats=seats, viewer=viewer)
    return scoring_selectors.view_with_rating_changes(view), etag


def _version_from_etag(value: str) -> int | None:
    """Our ETags are "g<game>-v<version>-p<player>" (a spectator's ends "-s<version they see>"): a
    client may send one instead of ``after``; a spectator's names the version of their view."""
    for tag in value.split(","):
        found = None
        for part in tag.strip().strip('"').split("-"):
            if part[:1] in ("v", "s") and part[1:].isdigit() and int(part[1:]) <= QUERY_INT_MAX:
                found = int(part[1:])
        if found is not None:
            return found
    return None


def _wait_seconds(request: HttpRequest) -> float:
    """``wait``: seconds, a longer wait cut to STREAMS_LONGPOLL_MAX_SECONDS."""
    try:
        wait = float(request.GET.get("wait", "0"))  # an empty ``wait=`` is no number (400), as the schema says
    except ValueError as exc:
        raise ValidationFailed(details={"field": "wait", "reason": "seconds, at most 60"}) from exc
    if not wait >= 0:  # also refuses NaN
        raise ValidationFailed(details={"field": "wait", "reason": "seconds, at most 60"})
    return min(wait, float(settings.STREAMS_LONGPOLL_MAX_SECONDS))


def _wait_params(request: HttpRequest) -> tuple[float, int | None, str | None]:
    """``wait`` (seconds, capped), ``after`` (or the version in If-None-Match; None: the next move)
    and a spectator's ``invite_code``."""
    wait = _wait_seconds(request)
    after = query_int(request.GET.get("after"), "after")
    if after is None:
        after = _version_from_etag(request.headers.get("If-None-Match", ""))
    code = request.GET.get("invite_code")
    if code is not None and len(code) > 32:
        raise ValidationFailed(details={"field": "invite_code", "reason": "at most 32 characters"})
    return wait, after, code


def _parsed(parse: Callable[[HttpRequest], T], request: HttpRequest) -> tuple[T | None, ValidationFailed | None]:
    """What ``parse`` makes of the request, or its refusal, to be raised once the caller is known:
    401 before 400, and 400 before 404 (a bad parameter costs no read)."""
    try:
        return parse(request), None
    except ValidationFailed as exc:
        return None, exc


@_authenticated
async def game_wait(request: HttpRequest, game_id: int) -> HttpResponse:
    """The caller's game view, as soon as its version is past ``after``; 304 when ``wait`` runs out.

    ``after`` is the ``version`` of a view the caller has: for a spectator the delayed one, so they
    are answered when a move makes a new position visible to them, not by every move."""
    params, refused = _parsed(_wait_params, request)
    code = params[2] if params is not None else None
    sub = channels.hub().subscribe(channels.game_topic(game_id))  # before the first read: no move slips by
    try:
        token, opened = await _caller_and(request, None if refused else _game_open, game_id, code)
        if refused is not None:
            raise refused
        assert params is not None and opened is not None
        # The caller looks at the board while it waits (and a moment after): no your_turn push for them.
        await presence.watching_amark(token.user.player.pk, game_id, params[0] + WATCH_GRACE_SECONDS)
        return await _game_waited(token.user.player, game_id, sub, params[0], params[1], code, *opened)
    finally:
        sub.close()


async def _game_waited(player: Player, game_id: int, sub: channels.Subscription, wait: float, after: int | None,
                       code: str | None, version: int, current: int, etag: str, delay: int | None,
                       due: datetime | None) -> HttpResponse:
    """The wait itself, once the caller, the versions, ETag, delay and next deadline are known."""
    etag_current = current
    if after is None:
        after = version  # no reference: wait for the next move
    deadline = time.monotonic() + wait
    while version <= after:
        sub.seen = current  # the backstop compares the round's version, not a spectator's delayed one
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not await sub.wait(remaining):
            if current != etag_current or (due is not None and due <= timezone.now()):
                # a move came that did not pass ``after``, or the clock ran out meanwhile (resolve it)
                version, current, etag, delay, due = await channels.db(_game_open, game_id, code, player)
                if version > after:
                    break
            # Else nothing is read: not woken means no move (a lost wake-up is found by the hub's
            # backstop within seconds; one found later is answered at once by the next long-poll).
            response = HttpResponse(status=304)
            response["ETag"] = etag
            return response
        version, current = await channels.db(_game_version, game_id, delay)
    view, etag = await channels.db(_game_answer, game_id, player, code)
    response = JsonResponse(view)
    response["ETag"] = etag
    return response


# --- SSE of a game's ledger: GET /api/v1/games/{id}/stream -------------------------------------------


def _ledger_open(game_id: int, player: Player, invite_code: str | None = None) -> tuple[int | None, int, int]:
    """The caller's seat (None: a spectator), the version they may see, and a spectator's delay."""
    game, _seats, viewer = selectors.game_for_watcher(game_id=game_id, player=player, invite_code=invite_code)
    delay = getattr(game, "spectator_delay", 0)
    return viewer, selectors.spectator_version(game) if viewer is None else game.version, delay


def _ledger_after(game_id: int, viewer: int | None, after: int,
                  delay: int = 0) -> tuple[list[dict[str, Any]], str, int]:
    """The caller's redacted ledger rows after ``after``, the status and the version; status and
    version read before the rows, so a round seen finished has all its rows in this page or the next.
    A spectator's stop ``delay`` rows short of the head while the round runs."""
    game = Game.objects.only("status", "version").get(pk=game_id)
    reveal = game.status == "finished" and viewer is not None
    query = game.moves.filter(seq__gt=after)
    if viewer is None and game.status == "active":
        query = query.filter(seq__lte=game.version - delay)
    moves = list(query.order_by("seq")[:PAGE])
    return [selectors.move_data(m, viewer, reveal) for m in moves], game.status, game.version


def _last_event_id(request: HttpRequest) -> int | None:
    header = request.headers.get("Last-Event-ID")
    if header is not None and header.strip():
        return query_int(header.strip(), "Last-Event-ID")
    return query_int(request.GET.get("after"), "after")


@_authenticated
async def game_stream(request: HttpRequest, game_id: int) -> HttpResponse:
    """``id:`` = ledger seq, so ``Last-Event-ID`` (or ``?after=``) resumes without loss or repeat."""
    params, refused = _parsed(_stream_params, request)
    code = request.GET.get("invite_code")
    token, opened = await _caller_and(request, None if refused else _stream_open, game_id,
                                      code[:64] if code else None, params[1] if params else None)
    if refused is not None:
        raise refused
    assert params is not None and opened is not None
    viewer, version, delay, messages_after = opened
    after = params[0]
    return _stream_response(_game_events(game_id, viewer, version if after is None else after, delay,
                                         messages_after, token=token))


def _stream_params(request: HttpRequest) -> tuple[int | None, int | None]:
    return _last_event_id(request), query_int(request.GET.get("messages_after"), "messages_after")


def _stream_open(game_id: int, invite_code: str | None, messages_after: int | None,
                 player: Player) -> tuple[int | None, int, int, int]:
    """:func:`_ledger_open` and where the chat resumes (by default after its last message)."""
    viewer, version, delay = _ledger_open(game_id, player, invite_code)
    return viewer, version, delay, chat.last_message_id(game_id) if messages_after is None else messages_after


def _game_events(game_id: int, viewer: int | None, after: int, delay: int = 0,
                 messages_after: int = 0, *, token: AccessToken) -> AsyncIterator[bytes]:
    """Ledger rows as ``event: move`` (``id:`` = seq) and the table's chat as ``event: message`` (no
    ``id:``, so ``Last-Event-ID`` stays the ledger's; ``?messages_after=`` resumes the chat). Ends with
    ``event: end`` when the round is over, or when ``token`` is gone (``reason``)."""
    position = {"after": after, "messages_after": messages_after}

    async def page() -> _Page:
        rows, status, version = await channels.db(_ledger_after, game_id, viewer, position["after"], delay)
        frames = []
        for row in rows:
            frames.append(_sse(data=row, event="move", event_id=row["seq"]))
            position["after"] = row["seq"]
        for message in await channels.db(chat.messages_for_stream, game_id, viewer is None,
                                         position["messages_after"]):
            frames.append(_sse(data=message, event="message"))
            position["messages_after"] = message["id"]
        end = {"game": game_id, "status": status, "version": position["after"]} if status == "finished" else None
        return _Page(frames=frames, full=len(rows) == PAGE, seen=version, end=end)

    player_id = token.user.player.pk

    return _events(channels.game_topic(game_id), f"game {game_id} after {after}", {"game": game_id}, page,
                   token=token, watching=(player_id, game_id))


@dataclass
class _Page:
    """One read of a stream: its events, whether the page was full (the next is read at once), what the
    hub's backstop compares (``Subscription.seen``) and the ``end`` event's data once the stream is over."""

    frames: list[bytes]
    full: bool
    seen: int
    end: dict[str, Any] | None = None


async def _events(topic: str, opening: str, named: dict[str, Any], page: Callable[[], Awaitable[_Page]], *,
                  token: AccessToken,
                  watching: tuple[int, int] | None = None) -> AsyncIterator[bytes]:
    """The loop of every stream: read a ``page``, send its events, read on while pages are full, then wait
    for a wake-up on ``topic`` with keep-alives (which read nothing). Ends with the page's ``end``, or
    when ``token`` is gone: ``event: end`` with ``named`` and the ``reason``. ``watching`` (player, game)
    is marked as watched while the stream is open (:class:`_TokenWatch` keeps the marks)."""
    sub = channels.hub().subscribe(topic)
    watch = _token_watch()
    watched = watch.watch(token, sub, watching)
    keepalive = float(settings.STREAMS_KEEPALIVE_SECONDS)
    try:
        yield f"retry: 2000\n: {opening}\n\n".encode()
        while True:
            if watched.ended is not None:
                yield _sse(data={**named, "reason": watched.ended}, event="end")
                return
            read = await page()
            sub.seen = read.seen
            for frame in read.frames:
                yield frame
            if read.full:
                continue
            if read.end is not None:
                yield _sse(data=read.end, event="end")
                return
            await watch.mark(watched)
            while not await sub.wait(keepalive) and watched.ended is None:  # a keep-alive reads nothing
                yield b": keep-alive\n\n"
    finally:
        watch.unwatch(watched)
        sub.close()


# --- SSE of the caller's notifications: GET /api/v1/me/stream ------------------------------------------


def _last_notification(player: Player) -> int:
    last = Notification.objects.filter(player=player).order_by("-id").values_list("id", flat=True).first()
    return last or 0


def _notifications_after(player_id: int, after: int) -> list[dict[str, Any]]:
    rows = Notification.objects.filter(player_id=player_id, id__gt=after).order_by("id")[:PAGE]
    return [n.payload() for n in rows]


@_authenticated
async def me_stream(request: HttpRequest) -> HttpResponse:
    """``id:`` = notification id; without Last-Event-ID / ``after`` only new notifications come."""
    after, refused = _parsed(_last_event_id, request)
    token, last = await _caller_and(request, _last_notification if after is None and refused is None else None)
    if refused is not None:
        raise refused
    if after is None:
        assert last is not None
        after = last
    return _stream_response(_me_events(token.user.player.pk, after, token=token))


def _me_events(player_id: int, after: int, *, token: AccessToken) -> AsyncIterator[bytes]:
    """Notifications as events named by their kind (``id:`` = notification id); ``event: end`` with a
    ``reason`` when ``token`` is gone."""
    position = {"after": after}

    async def page() -> _Page:
        rows = await channels.db(_notifications_after, player_id, position["after"])
        if rows:
            position["after"] = rows[-1]["id"]
        return _Page(frames=[_sse(data=row, event=row["kind"], event_id=row["id"]) for row in rows],
                     full=len(rows) == PAGE, seen=position["after"])

    return _events(channels.player_topic(player_id), f"player {player_id} after {after}", {}, page, token=token)


# --- long-poll of the caller's notifications: GET /api/v1/me/inbox?after=<id>&wait=<s> ----------------


def _inbox_params(request: HttpRequest) -> tuple[float, int | None]:
    return _wait_seconds(request), query_int(request.GET.get("after"), "after")


@_authenticated
async def me_inbox(request: HttpRequest) -> HttpResponse:
    """The long-poll twin of ``/me/stream``, for a client whose platform or network lets no server-sent
    events through: the caller's notifications after ``after`` (oldest first, a page of at most PAGE)
    as soon as there is one, or an empty page when ``wait`` runs out. ``after`` in the answer is what
    to send next, so a client that follows it sees every notification once, as the stream's
    ``Last-Event-ID`` does; without ``after`` only new notifications come, as on the stream. Nothing is
    marked as watched: a notification is not a look at a table."""
    params, refused = _parsed(_inbox_params, request)
    new_only = params is not None and params[1] is None
    token, last = await _caller_and(request, _last_notification if new_only else None)
    if refused is not None:
        raise refused
    assert params is not None
    wait, after = params
    if after is None:
        assert last is not None
        after = last
    player_id = token.user.player.pk
    sub = channels.hub().subscribe(channels.player_topic(player_id))  # before the read: nothing slips by
    try:
        deadline = time.monotonic() + wait
        while True:
            rows = await channels.db(_notifications_after, player_id, after)
            remaining = deadline - time.monotonic()
            if rows or remaining <= 0:
                break
            sub.seen = after
            if not await sub.wait(remaining):
                break  # not woken: nothing came (the hub's backstop catches a lost wake-up)
    finally:
        sub.close()
    response = JsonResponse({"notifications": rows, "after": rows[-1]["id"] if rows else after})
    response["Cache-Control"] = "no-store"
    return response
