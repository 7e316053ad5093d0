"""The waiting clients' own ASGI app: ``/games/{id}/stream``, ``/me/stream`` and ``/games/{id}?wait=``.

Why not Django's ASGI handler for these: it enters a ``ThreadSensitiveContext`` per request and
runs the sync parts of the request (the ``request_started`` / ``request_finished`` receivers that
close database connections, every ``MiddlewareMixin`` middleware) through ``sync_to_async``, which
gives the request a thread of its own for as long as the response lasts: an OS thread per open
stream. Making every middleware async would not help, the signals' receivers stay sync. So
``maumau.asgi`` sends these three paths here and everything else to Django.

This app builds a real ``ASGIRequest`` (pure Python, no thread) and calls the same async views as
Django would (:mod:`live.views`), in the caller's language; the views reach the database only
through the streams' small thread pool (``channels.db``). What the skipped middleware would add
to these answers: none of them reads a session, a cookie, a CSRF token or a template. A client
that goes away (``http.disconnect``) ends its stream at once, not at its next keep-alive, and its
long-poll at once, not when its ``wait`` runs out.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import time
from collections.abc import Awaitable, Callable
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import translation

from live.routes import waiting_route
from maumau import observability
from streams import channels

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: The status a request left by its client is counted under (nginx's "client closed request"); never sent.
CLIENT_GONE = 499


def route(scope: Scope) -> tuple[str, Callable[..., Awaitable[HttpResponse]], dict[str, Any]] | None:
    """The waiting endpoint a request asks for (route name, view, its arguments), or None: Django's."""
    if scope.get("type") != "http":
        return None
    match = waiting_route(scope.get("method", ""), scope.get("path", ""),
                          scope.get("query_string", b"").decode("latin-1"))
    if match is None:
        return None
    return match.url_name, match.func, match.kwargs


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """Serve one waiting client (``route(scope)`` must have chosen it)."""
    found = route(scope)
    assert found is not None
    name, view, kwargs = found
    request = ASGIRequest(scope, io.BytesIO())
    request_id = observability.request_id_from(request.headers.get(observability.REQUEST_ID_HEADER))
    token = observability.current_request_id.set(request_id)
    started = time.perf_counter()
    try:
        with observability.open_stream(name):  # a long-poll counts while it waits, a stream while it lasts
            with translation.override(translation.get_language_from_request(request)):
                response = await _call_while_connected(view, request, kwargs, receive)
            if response is None:  # the client left while its long-poll waited: nobody to answer
                observability.request_observed(name, "GET", CLIENT_GONE, time.perf_counter() - started)
                return
            response[observability.REQUEST_ID_HEADER] = request_id
            observability.request_observed(name, "GET", response.status_code, time.perf_counter() - started)
            if isinstance(response, StreamingHttpResponse):
                await _send_stream(response, receive, send)
            else:
                await _send_start(response, send)
                await send({"type": "http.response.body", "body": response.content})
    finally:
        observability.current_request_id.reset(token)


async def lifespan(scope: Scope, receive: Receive, send: Send) -> None:
    """The ASGI lifespan of a worker process, which uvicorn runs after the worker starts and before it
    serves: :func:`streams.channels.db_threads_connected` (its failure is logged and costs no start)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            try:
                await channels.db_threads_connected()
            except Exception:
                observability.log_exception("streams: the database threads could not connect at startup")
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _call_while_connected(view: Callable[..., Awaitable[HttpResponse]], request: HttpRequest,
                                kwargs: dict[str, int], receive: Receive) -> HttpResponse | None:
    """The view's answer, or None when the client disconnects first: then the view is cancelled at
    once (a long-poll gives back its waiter and its timer instead of waiting out its ``wait``).

    A stream's view answers at once (its waiting happens in the body, which :func:`_send_stream`
    ends on a disconnect), so this matters to long-polls; it watches every view alike."""
    answer = asyncio.ensure_future(_call(view, request, kwargs))
    gone = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({answer, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not answer.done():
            answer.cancel()
        for task in (gone, answer):
            with contextlib.suppress(asyncio.CancelledError):
                await task
    return None if answer.cancelled() else answer.result()


async def _call(view: Callable[..., Awaitable[HttpResponse]], request: HttpRequest,
                kwargs: dict[str, int]) -> HttpResponse:
    try:
        return await view(request, **kwargs)
    except Exception as exc:
        from maumau.errors import json_500, json_busy

        busy = json_busy(exc)  # no free database connection: 503, come back
        if busy is not None:
            return busy
        observability.log_exception("streams: a waiting endpoint failed")
        return json_500(request)


async def _send_start(response: HttpResponse, send: Send) -> None:
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.items()]
    headers += [(b"set-cookie", c.output(header="").strip().encode("latin-1")) for c in response.cookies.values()]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})


async def _send_stream(response: StreamingHttpResponse, receive: Receive, send: Send) -> None:
    """Send the events until the stream ends or the client goes (then the generator is closed)."""
    await _send_start(response, send)
    pump = asyncio.ensure_future(_pump(response, send))
    gone = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({pump, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (pump, gone):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump
        with contextlib.suppress(asyncio.CancelledError):
            await gone
    if pump.done() and not pump.cancelled() and pump.exception() is None:
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _pump(response: StreamingHttpResponse, send: Send) -> None:
    body = response.streaming_content
    try:
        async for chunk in body:  # type: ignore[union-attr]
            await send({"type": "http.response.body", "body": bytes(chunk), "more_body": True})
    finally:
        close = getattr(body, "aclose", None)
        if close is not None:
            await close()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
