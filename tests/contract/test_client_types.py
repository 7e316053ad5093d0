"""The web client (client/static, plain ES modules, no build; client/worker, the service worker) is checked
against the schema: every file takes its API types in JSDoc from the declarations openapi-typescript
generates (sdk/typescript/src/schema.ts, which tests/contract/test_sdk.py keeps equal to what the served
schema generates), and ``tsc --noEmit --checkJs --strict`` finds no error: client/tsconfig.json for the
page's modules (DOM), client/tsconfig.worker.json for the service worker (WebWorker). A schema that
drifts from what the client reads fails here: a copy with a renamed field makes tsc fail, in the module
that reads it.

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
PAGES = CLIENT / "tsconfig.json"
WORKER = CLIENT / "tsconfig.worker.json"

pytestmark = pytest.mark.skipif(os.environ.get("MAUMAU_CONTRACT") != "1", reason="run by bin/contract-check")


def _tsc(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TOOLS / "tsc"), "--noEmit", "--checkJs", "--strict", "-p", str(config), *extra],
                          cwd=CLIENT, capture_output=True, text=True, timeout=600)


def _schema() -> dict[str, Any]:
    return dict(APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json())


def _client_files() -> set[Path]:
    return {*(CLIENT / "static").rglob("*.js"), *(CLIENT / "worker").rglob("*.js")}


@pytest.mark.parametrize("config", [PAGES, WORKER], ids=["pages", "service-worker"])
def test_the_client_type_checks_strict_against_the_generated_declarations(config: Path) -> None:
    settings = json.loads(config.read_text())
    options = {**json.loads(PAGES.read_text())["compilerOptions"], **settings["compilerOptions"]}
    assert options["checkJs"] is True and options["strict"] is True
    done = _tsc(config)
    assert done.returncode == 0, done.stdout[-8000:]


def test_every_javascript_file_of_the_client_is_checked() -> None:
    """A module added where no tsconfig looks would pass unchecked."""
    listed: set[Path] = set()
    for config in (PAGES, WORKER):
        done = _tsc(config, "--listFilesOnly")
        assert done.returncode == 0, done.stdout[-4000:]
        listed |= {Path(line).resolve() for line in done.stdout.splitlines() if line.strip()}
    files = {path.resolve() for path in _client_files()}
    assert len(files) >= 12 and files <= listed, sorted(str(path) for path in files - listed)
    for path in files:
        assert path.read_text().startswith("// @ts-check"), path


# A field each of three modules reads, renamed in a copy of the served schema: the type check fails there.
DRIFTS = [
    ("ErrorBody", "message", "static/client/api.js"),
    ("GameView", "legal_actions", "static/client/game.js"),
    ("LeagueRoundOutput", "corrects", "static/client/league.js"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("component", "field", "module"), DRIFTS, ids=[drift[0] for drift in DRIFTS])
def test_a_renamed_field_in_the_schema_fails_the_client_check(tmp_path: Path, component: str, field: str,
                                                              module: str) -> None:
    schema = _schema()
    shape = schema["components"]["schemas"][component]
    shape["properties"][f"{field}_renamed"] = shape["properties"].pop(field)
    shape["required"] = [f"{field}_renamed" if name == field else name for name in shape.get("required", [])]
    (tmp_path / "openapi.json").write_text(json.dumps(schema))
    generated = subprocess.run([str(TOOLS / "openapi-typescript"), "openapi.json", "--default-non-nullable", "false",
                                "-o", "schema.ts"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert generated.returncode == 0, generated.stderr[-4000:]
    config = tmp_path / "tsconfig.json"
    config.write_text(json.dumps({"extends": str(PAGES),
                                  "compilerOptions": {"paths": {"maumau-schema": [str(tmp_path / "schema.ts")]}}}))
    done = _tsc(config)
    assert done.returncode != 0, "the drifted schema passed the client's check"
    assert module in done.stdout and f"'{field}'" in done.stdout, done.stdout[-4000:]
