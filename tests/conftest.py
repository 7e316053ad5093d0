"""Shared fixtures: API clients for fresh players (each with a token)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from tests.clocks.clock_helpers import T0


@pytest.fixture(scope="session", autouse=True)
def _static_files_of_the_tests_own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The tests never read the run command's ``var/static``: after ``bin/serve`` collected the static
    files there (hashed names, a manifest), the pages would link other names than before it. An empty
    folder of the session's own: a test that needs collected files collects them itself."""
    with override_settings(STATIC_ROOT=tmp_path_factory.mktemp("static-root")):
        yield


@pytest.fixture(scope="session", autouse=True)
def _streams_threads_let_go(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """The streams' threads keep their connections (``streams.channels``): they are closed before the
    test database is dropped, which an open connection would refuse. Asking for ``django_db_setup``
    makes this fixture end before it."""
    yield
    from streams import channels

    with django_db_blocker.unblock():
        channels.db_threads_closed()


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Throttle counters live in the cache: each test starts with none."""
    cache.clear()


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def make_player(db: None) -> Callable[..., APIClient]:
    """Sign up a player through the API; returns a client authenticated as them (.player_id, .token)."""

    def make(name: str = "Ada") -> APIClient:
        client = APIClient()
        response = client.post("/api/v1/players", {"name": name}, format="json")
        assert response.status_code == 201, response.content
        body = response.json()
        client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
        client.player_id = body["id"]  # type: ignore[attr-defined]
        client.token = body["token"]  # type: ignore[attr-defined]
        return client

    return make


@pytest.fixture
def eager_celery(settings: Any) -> None:
    """Queued tasks run at once (a retry's ETA too), so a test sees every attempt. Set through the
    Django setting Celery reads (``CELERY_`` names): Celery 5.6 ignores a later change of
    ``app.conf.task_always_eager`` while that setting exists."""
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def clock(time_machine: Any) -> Any:
    """Frozen time at ``T0``; ``clock.shift(seconds)`` moves it."""
    time_machine.move_to(T0, tick=False)
    return time_machine
