"""ASGI entry point (uvicorn maumau.asgi:application): moves, streams and long-polls on one server.

A small router: the waiting clients (``GET /api/v1/games/{id}/stream``, ``/api/v1/me/stream``, ``/api/v1/me/inbox`` and
``/api/v1/games/{id}?wait=``) go to the streams' pure async app, so that an open stream costs a
coroutine and no thread (``live.asgi`` says why Django's handler would give each one a thread);
every other request goes through Django as before.
"""

import gc
import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
django_application = get_asgi_application()

from live import asgi as live_asgi  # noqa: E402  (after Django is set up)

# The garbage collector, for a process holding thousands of open connections (each a few hundred
# objects that live for hours): CPython's full collection walks every one of them, and with the default
# thresholds it runs again and again while the waiting clients' objects age into the oldest generation.
# Freezing what start-up made (modules, settings, URLconfs: objects that live as long as the process)
# takes them out of every collection, and a full collection after 100 collections of the middle
# generation instead of 10 makes them rare (``python -m bench.streams_ladder`` measures it). Garbage
# without cycles is freed at once as ever; cyclic garbage that reached the oldest generation waits longer.
gc.freeze()
gc.set_threshold(700, 10, 100)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":  # Django's handler serves none: the streams' threads connect here
        await live_asgi.lifespan(scope, receive, send)
    elif live_asgi.route(scope) is not None:
        await live_asgi.app(scope, receive, send)
    else:
        await django_application(scope, receive, send)
