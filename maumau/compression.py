"""Compressed answers: the API's JSON (and the client page) gzip-compressed when the caller accepts it.

Django's ``GZipMiddleware`` also compresses streaming answers, which would hold back the event streams'
frames in the compressor until it fills a block: a stream's events and keep-alives must leave at once, so
streaming answers pass untouched (under uvicorn the streams and long-polls do not reach Django's middleware
at all, see ``live.asgi``). Static files are WhiteNoise's, compressed ahead of time by ``collectstatic``.
Brotli is left out: no pinned, maintained Django middleware does it, and gzip already takes most of a JSON
answer's size. A token in an answer is no cookie a page of another site could make the browser send, so
compression gives BREACH nothing to guess; Django's middleware pads each answer besides.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware


class CompressedAnswersMiddleware(GZipMiddleware):
    """Under ASGI the compression runs in the request's coroutine (``MiddlewareMixin`` would hop to the
    one thread of sync code for it): a JSON answer compresses in well under a millisecond."""

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        response = await self.get_response(request)
        return self.process_response(request, response)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        # An answer with its own ETag (the round view) stays as it is: compressing it would weaken the ETag
        # (W/"..."), which would then differ from the long-poll's for the same version.
        if response.streaming or response.has_header("ETag"):
            return response
        return super().process_response(request, response)
