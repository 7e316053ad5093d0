"""`/` is the web client, and `/api/` says where the API, its schema and its docs are."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_root_is_the_web_client_page_loading_only_files_of_this_server() -> None:
    response = Client().get("/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert '<script type="module" src="/static/client/app.js">' in page
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert "http://" not in page and "https://" not in page


def test_the_root_refuses_writes_in_the_error_shape() -> None:
    response = Client().put("/")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_the_api_index_points_to_the_api_the_schema_and_the_docs_without_a_token() -> None:
    response = Client().get("/api/")
    assert response.status_code == 200
    index = response.json()
    assert index["api"] == "http://testserver/api/v1/"
    for name, url in (("schema", "/api/schema/"), ("docs", "/api/docs/"), ("redoc", "/api/redoc/"),
                      ("signup", "/api/v1/players")):
        assert index[name] == f"http://testserver{url}"
    for name in ("schema", "docs", "redoc"):
        assert Client().get(index[name]).status_code == 200, name


def test_the_api_index_refuses_writes_in_the_error_shape() -> None:
    response = Client().post("/api/")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_the_tests_read_no_static_files_the_run_command_collected() -> None:
    """`bin/serve` collects the static files (hashed names, a manifest) into var/static; `bin/test` after
    it must see the same pages as on a fresh checkout, so the tests keep a static folder of their own."""
    from django.conf import settings

    from bench.harness import ROOT

    assert Path(settings.STATIC_ROOT).resolve() != (ROOT / "var" / "static").resolve()
    assert not (Path(settings.STATIC_ROOT) / "staticfiles.json").exists()
