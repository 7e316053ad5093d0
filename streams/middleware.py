"""Route ``GET /api/v1/games/{id}?wait=...`` to the async long-poll view.

The long-poll shares its URL with the game view (API.md), but Django resolves URLs by path
only. This middleware gives such a request its own URLconf (:mod:`streams.longpoll_urls`);
every other request is untouched. It is sync and async capable, so under ASGI the long-poll
runs as a coroutine end to end, and under WSGI it still answers correctly (holding a thread).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse

GAME_VIEW = re.compile(r"^/api/v1/games/\d+$")


def _route(request: HttpRequest) -> None:
    if request.method == "GET" and "wait" in request.GET and GAME_VIEW.match(request.path_info):
        request.urlconf = "streams.longpoll_urls"


class LongPollRouteMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        _route(request)
        return self.get_response(request)
