"""The TypeScript SDK (sdk/typescript) against a live server: its types are the ones the served schema
generates today, its version is the API's, it compiles with ``tsc --strict``, and its tests (node's
test runner, sdk/typescript/test) pass against a server this test starts: a round of each rule set,
a typed version conflict, a move retried after a cut connection applied once, and a game stream that
survives a restart of the server and resumes without a lost or repeated event.

Run by ``bin/contract-check`` (``MAUMAU_CONTRACT=1``, after ``npm ci`` in sdk/typescript). The restart
is asked for by the node tests: ``POST /restart`` on a small control server here stops the server and
starts it again on the same port and database. ``MAUMAU_SDK_PORTS`` (``first-last``) keeps the
listening ports in a range.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from bench import harness

ROOT = harness.ROOT
SDK = ROOT / "sdk" / "typescript"
BIN = SDK / "node_modules" / ".bin"
SCHEMA_HEADERS = {"Accept": "application/vnd.oai.openapi+json"}

pytestmark = pytest.mark.skipif(os.environ.get("MAUMAU_CONTRACT") != "1", reason="run by bin/contract-check")


def _ports() -> Iterator[int]:
    if span := os.environ.get("MAUMAU_SDK_PORTS"):
        first, last = (int(part) for part in span.split("-"))
        yield from range(first, last + 1)
    while True:
        yield harness.free_port()


class Server:
    """A uvicorn on a fixed port and an SQLite file, which :meth:`restart` stops and starts again."""

    def __init__(self, tmp: Path, port: int) -> None:
        self.env = harness.server_env(tmp, None, **harness.UNTHROTTLED)
        harness.migrate(self.env)
        self.tmp, self.port, self.restarts = tmp, port, 0
        self.process = self._start()

    def _start(self) -> harness.Process:
        process = harness.uvicorn("maumau.asgi:application", self.port, env=self.env,
                                  log=self.tmp / f"uvicorn-{self.restarts}.log")
        process.wait_for_http(self.port)
        return process

    def restart(self) -> None:
        self.process.stop(timeout=10)
        self.restarts += 1
        self.process = self._start()


@pytest.fixture(scope="module")
def sdk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    ports = _ports()
    server = Server(tmp_path_factory.mktemp("sdk-server"), next(ports))

    class Control(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            server.restart()
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

    control = ThreadingHTTPServer(("127.0.0.1", next(ports)), Control)
    thread = threading.Thread(target=control.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"http://127.0.0.1:{control.server_address[1]}"
    finally:
        control.shutdown()
        server.process.stop(timeout=10)


def _run(*command: str | Path, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    done = subprocess.run([str(part) for part in command], cwd=SDK, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-8000:]
    return output


def test_the_checked_in_types_are_the_ones_the_served_schema_generates(sdk_server: tuple[Server, str],
                                                                       tmp_path: Path) -> None:
    schema = tmp_path / "openapi.json"
    schema.write_bytes(httpx.get(f"http://127.0.0.1:{sdk_server[0].port}/api/schema/", headers=SCHEMA_HEADERS,
                                 timeout=60).content)
    _run(BIN / "openapi-typescript", schema, "--default-non-nullable", "false", "-o", tmp_path / "schema.ts")
    assert (tmp_path / "schema.ts").read_text() == (SDK / "src" / "schema.ts").read_text(), (
        "sdk/typescript/src/schema.ts is stale: regenerate it (docs/clients.md, The TypeScript SDK)")
    version = json.loads(schema.read_text())["info"]["version"]
    assert json.loads((SDK / "package.json").read_text())["version"] == version
    assert f'export const API_VERSION = "{version}";' in (SDK / "src" / "index.ts").read_text()


def test_the_sdk_compiles_strict_and_its_tests_pass_against_a_live_server(sdk_server: tuple[Server, str]) -> None:
    server, control = sdk_server
    _run(BIN / "tsc", "--strict", "-p", "tsconfig.json")
    _run(BIN / "tsc", "--strict", "-p", "tsconfig.test.json")
    proxy_port = next(port for port in _ports() if port not in (server.port, int(control.rsplit(":", 1)[1])))
    output = _run("node", "--test", "--test-concurrency=1", "--test-timeout=300000", "build/test/", env={
        "MAUMAU_BASE_URL": f"http://127.0.0.1:{server.port}", "MAUMAU_CONTROL_URL": control,
        "MAUMAU_PROXY_PORT": str(proxy_port)})
    assert "# fail 0" in output and "# pass 8" in output, output[-8000:]
    assert server.restarts == 1, output[-4000:]


def test_the_sdk_size(tmp_path: Path) -> None:
    """Not a limit: the figure (min+gzip, openapi-fetch included) printed for the notes."""
    bundle = tmp_path / "sdk.min.js"
    _run(ROOT / "contract" / "node_modules" / ".bin" / "esbuild", "src/index.ts", "--bundle", "--minify",
         "--format=esm", f"--outfile={bundle}")
    print(json.dumps({"sdk_min_bytes": bundle.stat().st_size,
                      "sdk_min_gzip_bytes": len(gzip.compress(bundle.read_bytes(), compresslevel=9))}))
