"""Static files (the web client, the admin's styles, Swagger UI, ReDoc) served by WhiteNoise under uvicorn and
gunicorn alike, with hashed names and long cache lifetimes (WhiteNoise's manifest storage).

WhiteNoise's middleware is sync-only; in an ASGI stack a sync-only middleware would run every
request after it, the waiting clients of ``live.views`` included, on a thread. This one is
also async-capable: under ASGI it answers static paths itself and hands everything else on
as a coroutine.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpRequest, HttpResponseBase
from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Hashed names (``app.3f2a....js``), served by WhiteNoise as immutable for a year; the client's ES
    module imports (``from "./api.js";``) are rewritten to the hashed names too, so a new deploy never
    mixes old and new modules. Before ``collectstatic`` (the tests, a first start) a file that is not
    collected keeps its plain name instead of failing the page."""

    support_js_module_import_aggregation = True
    manifest_strict = False

    def hashed_name(self, name: str, content: Any = None, filename: str | None = None) -> str:
        if content is None and not self.exists(filename or name):
            return name
        return super().hashed_name(name, content, filename)


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        super().__init__(get_response)
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self.serve_async(request)
        return super().__call__(request)

    async def serve_async(self, request: HttpRequest) -> HttpResponseBase:
        path = request.path_info
        static_file = self.find_file(path) if self.autorefresh else self.files.get(path)
        if static_file is None:
            next_response: Awaitable[HttpResponseBase] = self.get_response(request)
            return await next_response
        response = self.serve(static_file, request)
        if response.streaming and not response.is_async:
            # A file is read synchronously: read it on a thread, as Django's ASGIStaticFilesHandler does.
            content = response.streaming_content

            async def read_in_thread() -> AsyncIterator[bytes]:
                for part in await sync_to_async(list)(content):
                    yield part

            response.streaming_content = read_in_thread()
        return response
