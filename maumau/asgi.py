"""ASGI entry point (uvicorn maumau.asgi:application); streams can mount here later."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
application = get_asgi_application()
