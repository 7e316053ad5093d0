"""The web client (client/static, plain ES modules, no build) is checked against the schema: its files
with ``// @ts-check`` take their types in JSDoc from the declarations openapi-typescript generates
(sdk/typescript/src/schema.ts, which tests/contract/test_sdk.py keeps equal to what the served schema
generates), and ``tsc --noEmit --checkJs --strict`` (client/tsconfig.json) finds no error. A schema
that drifts from what the client reads fails here: a copy with a renamed field makes tsc fail.

Run by ``bin/contract-check`` (``MAUMAU_CONTRACT=1``: the pinned tsc and openapi-typescript).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from bench import harness

ROOT = harness.ROOT
TOOLS = ROOT / "contract" / "node_modules" / ".bin"
CLIENT = ROOT / "client"

pytestmark = pytest.mark.skipif(os.environ.get("MAUMAU_CONTRACT") != "1", reason="run by bin/contract-check")


def _tsc(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TOOLS / "tsc"), "--noEmit", "--strict", "-p", str(config)], cwd=CLIENT,
                          capture_output=True, text=True, timeout=600)


def _schema() -> dict[str, Any]:
    return dict(APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json())


def test_the_client_type_checks_strict_against_the_generated_declarations() -> None:
    done = _tsc(CLIENT / "tsconfig.json")
    assert done.returncode == 0, done.stdout[-8000:]
    assert "// @ts-check" in (CLIENT / "static" / "client" / "api.js").read_text()


@pytest.mark.django_db
def test_a_renamed_field_in_the_schema_fails_the_client_check(tmp_path: Path) -> None:
    schema = _schema()
    error = schema["components"]["schemas"]["ErrorBody"]
    error["properties"]["text"] = error["properties"].pop("message")
    error["required"] = ["text" if name == "message" else name for name in error["required"]]
    (tmp_path / "openapi.json").write_text(json.dumps(schema))
    generated = subprocess.run([str(TOOLS / "openapi-typescript"), "openapi.json", "--default-non-nullable", "false",
                                "-o", "schema.ts"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert generated.returncode == 0, generated.stderr[-4000:]
    config = tmp_path / "tsconfig.json"
    config.write_text(json.dumps({"extends": str(CLIENT / "tsconfig.json"),
                                  "compilerOptions": {"paths": {"maumau-schema": [str(tmp_path / "schema.ts")]}}}))
    done = _tsc(config)
    assert done.returncode != 0, "the drifted schema passed the client's check"
    assert "static/client/api.js" in done.stdout and "'message'" in done.stdout, done.stdout[-4000:]
