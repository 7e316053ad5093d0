"""ASGI entry point (uvicorn maumau.asgi:application): moves, streams and long-polls on one server."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
application = get_asgi_application()
