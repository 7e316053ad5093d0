"""Which waiting endpoint a request asks for, from the one route table (:mod:`live.urls`)."""

from __future__ import annotations

import re

from django.urls import Resolver404, ResolverMatch, resolve

URLCONF = "live.urls"
_PREFIX = "/api/v1/"
#: The game view's long-poll: a ``wait`` parameter, with or without a value.
_WAIT = re.compile(r"(?:^|&)wait(?:=|&|$)")


def waiting_route(method: str, path: str, query: str) -> ResolverMatch | None:
    """The waiting endpoint of a ``GET`` (the streams, and the game view with ``wait``), or None."""
    if method != "GET" or not path.startswith(_PREFIX):
        return None
    try:
        match = resolve(path, urlconf=URLCONF)
    except Resolver404:
        return None
    if match.url_name == "game-wait" and not _WAIT.search(query):
        return None
    return match

