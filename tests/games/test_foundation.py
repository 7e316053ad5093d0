"""The project answers like an API even where no view matches, and serves its schema."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_unknown_api_path_answers_404_in_the_error_shape() -> None:
    response = APIClient().get("/api/v1/no-such-thing")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_openapi_schema_is_served() -> None:
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert response.json()["openapi"].startswith("3.")


def test_sqlite_default_is_set_up_for_concurrent_writers(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from maumau import settings

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setattr(settings, "VAR_DIR", tmp_path)
    config = settings.database_config()
    assert config["ENGINE"] == "django.db.backends.sqlite3" and config["NAME"].endswith("db.sqlite3")
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE" and config["OPTIONS"]["timeout"] >= 5
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]
    assert "busy_timeout" in config["OPTIONS"]["init_command"]


def test_a_database_url_gets_its_own_test_database_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from maumau import settings

    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau")
    monkeypatch.setenv("MAUMAU_TEST_DB_SUFFIX", "42")
    config = settings.database_config()
    assert config["ENGINE"] == "maumau.postgresql" and config["NAME"] == "maumau"  # pooled (MAUMAU_DB_POOL)
    assert config["TEST"]["NAME"] == "test_maumau_42"


@pytest.mark.django_db
def test_the_models_and_their_migrations_agree() -> None:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # exits non-zero on a missing migration
    assert "No changes detected" in out.getvalue()
