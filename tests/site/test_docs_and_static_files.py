"""The documentation pages and the admin load everything from this server, and the server serves it.

Swagger UI, ReDoc and the admin must work without internet: every script, style sheet and icon
they reference is a local static file, and WhiteNoise serves each one, to WSGI and ASGI alike
(uvicorn runs the service, gunicorn may).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync, iscoroutinefunction
from django.contrib.auth.models import User
from django.core.management import call_command
from django.http import HttpRequest, HttpResponse
from django.test import AsyncClient, Client, override_settings

from maumau.staticfiles import StaticFilesMiddleware

pytestmark = pytest.mark.django_db

REFERENCE = re.compile(r"""<(?:script|link)\b[^>]*?\b(?:src|href)=["']([^"']+)["']""", re.IGNORECASE)


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What `manage.py collectstatic` writes for the run command, in a directory of the tests' own."""
    root = tmp_path_factory.mktemp("static")
    with override_settings(STATIC_ROOT=root):
        call_command("collectstatic", "--noinput", verbosity=0)
    return root


@pytest.fixture
def static_root(collected: Path, settings: Any) -> Iterator[Path]:
    settings.STATIC_ROOT = collected
    yield collected


def references(page: str) -> list[str]:
    return REFERENCE.findall(page)


def admin_client() -> Client:
    User.objects.create_superuser("root", "root@example.invalid", "pw")
    client = Client()
    assert client.login(username="root", password="pw")
    return client


@pytest.mark.parametrize("url", ["/", "/api/docs/", "/api/redoc/", "/admin/login/"])
def test_docs_and_admin_pages_reference_only_static_files_of_this_server(url: str) -> None:
    page = Client().get(url).content.decode()
    found = references(page)
    assert any("/static/" in ref for ref in found), found
    for ref in found:
        assert ref.startswith("/"), f"{url} loads {ref} from elsewhere"
        assert "//" not in ref, f"{url} loads {ref} from elsewhere"
    assert "https://" not in page and "http://" not in page.replace("http://www.w3.org", "")


@pytest.mark.parametrize("url", ["/", "/api/docs/", "/api/redoc/", "/admin/login/", "/admin/"])
def test_every_file_a_page_references_is_served(url: str, static_root: Path) -> None:
    client = admin_client() if url == "/admin/" else Client()
    page = client.get(url)
    assert page.status_code == 200
    static = [ref for ref in references(page.content.decode()) if ref.startswith("/static/")]
    assert static
    for ref in static:
        response = Client().get(ref)
        assert response.status_code == 200, ref
        assert b"".join(response.streaming_content), ref


def test_static_files_are_served_compressed_to_clients_that_accept_it(static_root: Path) -> None:
    response = Client().get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
                            HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"


def test_static_files_are_served_to_the_asgi_server_too(static_root: Path) -> None:
    async def fetch() -> tuple[int, bytes]:
        response = await AsyncClient().get("/static/drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js")
        return response.status_code, b"".join([part async for part in response.streaming_content])

    status, body = async_to_sync(fetch)()
    assert status == 200 and b"Redoc" in body


def test_static_files_keep_the_asgi_stack_async_for_waiting_clients() -> None:
    """A sync-only middleware would put every long-poll and stream on a thread of its own."""

    async def view(request: HttpRequest) -> HttpResponse:
        return HttpResponse()

    assert iscoroutinefunction(StaticFilesMiddleware(view))
    assert not iscoroutinefunction(StaticFilesMiddleware(lambda request: HttpResponse()))


def test_an_unknown_static_path_is_a_json_404(static_root: Path) -> None:
    response = Client().get("/static/nothing-here.js")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
