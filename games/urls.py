"""Routes of /api/v1/ for players, tables and games."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
