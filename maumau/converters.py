"""``<id:...>`` in URLs: a row id as the database can hold it.

Django's ``<int:...>`` takes any number of digits, and a 30-digit id reached the database, where it
does not fit a bigint (a 500 on SQLite and PostgreSQL alike). Ids here are at most 18 digits
(below 2**63), so a longer one matches no route and is the usual 404.
"""

from __future__ import annotations

from django.urls import register_converter
from django.urls.converters import IntConverter


class IdConverter(IntConverter):
    regex = "[0-9]{1,18}"


register_converter(IdConverter, "id")
