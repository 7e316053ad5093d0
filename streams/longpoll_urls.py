"""URLconf of long-poll requests only (chosen per request by LongPollRouteMiddleware)."""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from streams import views

urlpatterns = [path("api/v1/games/<id:game_id>", views.game_wait, name="game-wait")]

handler400 = "maumau.errors.json_400"
handler403 = "maumau.errors.json_403"
handler404 = "maumau.errors.json_404"
handler500 = "maumau.errors.json_500"
