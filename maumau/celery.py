"""The Celery app. Broker from CELERY_BROKER_URL; the default filesystem transport needs no server."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")

app = Celery("maumau")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
