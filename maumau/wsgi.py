"""WSGI entry point (gunicorn maumau.wsgi:application)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
application = get_wsgi_application()
