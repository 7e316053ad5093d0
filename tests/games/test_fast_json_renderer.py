"""The hot answers' renderer writes the very bytes of DRF's JSONRenderer."""

from __future__ import annotations

import datetime
import decimal
import uuid

import pytest
from rest_framework.renderers import JSONRenderer

from maumau.renderers import FastJSONRenderer

SAMPLES = [
    {"name": "Jörg \u2028 Zoë \u2029 \x00\x1f\t\n\"\\/ 🂡", "seq": [1, -2, 0], "ok": True, "none": None},
    {"at": datetime.datetime(2026, 12, 3, 12, 0, 1, 123456, tzinfo=datetime.UTC),
     "naive": datetime.datetime(2026, 12, 3, 12, 0, 1), "day": datetime.date(2026, 1, 2),
     "time": datetime.time(13, 5, 0, 500), "id": uuid.UUID(int=7), "price": decimal.Decimal("1.5")},
    {1: "an int key", "nested": {"list": [{"a": []}, (1, 2)], "float": 0.1}},
    {"big": 2 ** 70},
    [],
    "text",
]


@pytest.mark.parametrize("data", SAMPLES)
def test_the_fast_renderer_writes_the_bytes_of_drfs_json_renderer(data: object) -> None:
    assert FastJSONRenderer().render(data, "application/json") == JSONRenderer().render(data, "application/json")


def test_an_indent_asked_for_is_drfs_own() -> None:
    data = {"a": [1, 2]}
    expected = JSONRenderer().render(data, "application/json; indent=2")
    assert FastJSONRenderer().render(data, "application/json; indent=2") == expected
    assert b"\n" in expected


def test_no_data_is_no_body() -> None:
    assert FastJSONRenderer().render(None) == b""
