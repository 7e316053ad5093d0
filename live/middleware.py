"""Under WSGI (and Django's own ASGI handler), serve the waiting endpoints from their route table.

The long-poll shares its URL with the game view, but Django resolves URLs by path only: a request
that :func:`live.routes.waiting_route` chooses gets the waiting endpoints' URLconf
(:mod:`live.urls`); every other request is untouched. The middleware is sync and async capable,
so under ASGI the long-poll runs as a coroutine end to end, and under WSGI it still answers
correctly (holding a thread). ``maumau.asgi`` sends these requests to :mod:`live.asgi` before
Django sees them; this is the path of every other server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse

from live.routes import URLCONF, waiting_route


class WaitingRouteMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        if waiting_route(request.method or "", request.path_info, request.META.get("QUERY_STRING", "")):
            request.urlconf = URLCONF
        return self.get_response(request)
