"""The benchmarks' shared figures (the process helpers are exercised by the stream and clock-worker tests)."""

from __future__ import annotations

from bench.harness import database_url_named, percentile


def test_percentile_is_the_nearest_rank() -> None:
    values = [float(n) for n in range(10, 0, -1)]  # unsorted on purpose
    assert percentile(values, 0.5) == 5.0
    assert percentile(values, 0.95) == 10.0
    assert percentile(values, 0.01) == 1.0
    assert percentile([7.0], 0.99) == 7.0


def test_percentile_of_no_values_is_none_not_zero() -> None:
    assert percentile([], 0.5) is None


def test_database_url_named_keeps_the_server_and_the_options() -> None:
    url = "postgres://postgres:secret@db.example:5433/maumau?sslmode=disable"
    assert database_url_named(url, "maumau_other") == "postgres://postgres:secret@db.example:5433/maumau_other?sslmode=disable"
