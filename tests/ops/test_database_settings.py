"""The PostgreSQL connection settings: a bounded pool by default, its bounds from the environment."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from maumau import settings

URL = "postgres://postgres@127.0.0.1:5432/maumau"


def test_postgres_connections_come_from_a_bounded_pool_and_never_persist_per_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.setenv("CONN_MAX_AGE", "600")  # ignored with the pool: the pool keeps the connections
    monkeypatch.setattr(settings, "MAUMAU_DB_POOL_MIN_SIZE", 3)
    monkeypatch.setattr(settings, "MAUMAU_DB_POOL_MAX_SIZE", 7)
    monkeypatch.setattr(settings, "MAUMAU_DB_POOL_TIMEOUT", 4.5)
    monkeypatch.setattr(settings, "STREAMS_DB_THREADS", 2)
    config = settings.database_config()
    assert config["ENGINE"] == "maumau.postgresql" and config["CONN_MAX_AGE"] == 0
    # the requests' 7, and the 2 the streams' threads keep
    assert config["OPTIONS"]["pool"] == {"min_size": 3, "max_size": 9, "timeout": 4.5, "name": "maumau"}
    assert config["OPTIONS"]["prepare_threshold"] == 5  # the hot path's statements stay prepared


def test_without_the_pool_persistent_connections_are_checked_before_reuse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.setenv("CONN_MAX_AGE", "60")
    monkeypatch.setattr(settings, "MAUMAU_DB_POOL", False)
    config = settings.database_config()
    assert config["ENGINE"] == "django.db.backends.postgresql" and "pool" not in config["OPTIONS"]
    assert config["CONN_MAX_AGE"] == 60 and config["CONN_HEALTH_CHECKS"] is True


@pytest.mark.parametrize(("low", "high", "timeout"), [(5, 4, 10.0), (-1, 4, 10.0), (0, 0, 10.0), (1, 4, 0.0),
                                                     (1, 4, 1e9)])
def test_pool_bounds_out_of_range_stop_the_start(monkeypatch: pytest.MonkeyPatch, low: int, high: int,
                                                 timeout: float) -> None:
    monkeypatch.setenv("DATABASE_URL", URL)
    monkeypatch.setattr(settings, "MAUMAU_DB_POOL_MIN_SIZE", low)
    monkeypatch.setattr(settings, "MAUMAU_DB_POOL_MAX_SIZE", high)
    monkeypatch.setattr(settings, "MAUMAU_DB_POOL_TIMEOUT", timeout)
    with pytest.raises(ImproperlyConfigured, match="MAUMAU_DB_POOL"):
        settings.database_config()
