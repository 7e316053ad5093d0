"""ASGI entry point (uvicorn maumau.asgi:application): moves, streams and long-polls on one server.

A small router: the waiting clients (``GET /api/v1/games/{id}/stream``, ``/api/v1/me/stream`` and
``/api/v1/games/{id}?wait=``) go to the streams' pure async app, so that an open stream costs a
coroutine and no thread (``streams.asgi`` says why Django's handler would give each one a thread);
every other request goes through Django as before.
"""

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
django_application = get_asgi_application()

from streams import asgi as streams_asgi  # noqa: E402  (after Django is set up)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if streams_asgi.route(scope) is not None:
        await streams_asgi.app(scope, receive, send)
    else:
        await django_application(scope, receive, send)
