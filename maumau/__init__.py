"""The Mau-Mau service project. The Celery app is imported so shared_task binds to it."""

from maumau.celery import app as celery_app

__all__ = ["celery_app"]
