"""The one route table of the waiting endpoints, read by both servers: the ASGI app
(:mod:`live.asgi`) and, under WSGI, :class:`live.middleware.WaitingRouteMiddleware`, each through
:func:`live.routes.waiting_route`.

The long-poll shares its URL with the game view (``GET /games/{id}`` with ``wait``); Django
resolves by path only, so the root URLconf lists the game view first and this table serves the
long-poll only when :func:`~live.routes.waiting_route` chose it.
"""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from live import views
from live.schema import GameStreamDoc, MeInboxDoc, MeStreamDoc, documented

urlpatterns = [
    path("api/v1/games/<id:game_id>/stream", documented(views.game_stream, GameStreamDoc), name="game-stream"),
    path("api/v1/me/stream", documented(views.me_stream, MeStreamDoc), name="me-stream"),
    path("api/v1/me/inbox", documented(views.me_inbox, MeInboxDoc), name="me-inbox"),
    path("api/v1/games/<id:game_id>", views.game_wait, name="game-wait"),
]

handler400 = "maumau.errors.json_400"
handler403 = "maumau.errors.json_403"
handler404 = "maumau.errors.json_404"
handler500 = "maumau.errors.json_500"
