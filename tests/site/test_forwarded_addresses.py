"""The sign-up limit keys on the client's address; a forwarded address is believed only from as many
proxies as the operator configured (``MAUMAU_NUM_PROXIES``, default none)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from bench import harness

pytestmark = pytest.mark.django_db


def sign_up(client: APIClient, n: int, forwarded: str | None) -> int:
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return client.post("/api/v1/players", {"name": f"P{n}"}, format="json", **extra).status_code


@override_settings(MAUMAU_SIGNUP_RATE="2/min")
def test_a_forged_forwarded_for_does_not_escape_the_sign_up_limit() -> None:
    client = APIClient()
    codes = [sign_up(client, n, f"203.0.113.{n}") for n in range(4)]
    assert codes == [201, 201, 429, 429]


def test_behind_one_trusted_proxy_the_address_it_saw_is_the_client(settings) -> None:  # type: ignore[no-untyped-def]
    # One way of overriding per test: pytest-django's fixture restores what it saw on entry, and inside
    # an @override_settings that was the override, which it then left in place for every later test.
    settings.MAUMAU_SIGNUP_RATE = "2/min"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = APIClient()
    # The proxy appends the address it saw; what the client wrote before it is not believed.
    assert [sign_up(client, n, f"198.51.100.{n}, 203.0.113.7") for n in range(3)] == [201, 201, 429]
    assert sign_up(client, 9, "203.0.113.8") == 201


def test_the_number_of_trusted_proxies_comes_from_the_environment() -> None:
    code = "import django, os; django.setup(); from rest_framework.settings import api_settings; " \
           "print(api_settings.NUM_PROXIES)"
    env = {"DJANGO_SETTINGS_MODULE": "maumau.settings"}
    base = {k: v for k, v in os.environ.items() if k != "MAUMAU_NUM_PROXIES"}
    default = subprocess.run([sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True)
    two = subprocess.run([sys.executable, "-c", code], env={**base, **env, "MAUMAU_NUM_PROXIES": "2"},
                         capture_output=True, text=True)
    assert (default.stdout.strip(), two.stdout.strip()) == ("0", "2"), (default.stderr, two.stderr)


def procfile_command(name: str) -> str:
    """The command of one process type of the Procfile, as honcho runs it (a shell line)."""
    for line in (harness.ROOT / "Procfile").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {name} process in the Procfile")


def test_a_forged_forwarded_for_does_not_escape_the_sign_up_limit_under_the_run_commands_uvicorn(
        tmp_path: Path) -> None:
    # uvicorn believes X-Forwarded-For from 127.0.0.1 by default, before the app's NUM_PROXIES is asked:
    # a client on loopback would then be whatever address it wrote.
    database_url = None
    if harness.postgres_url():
        database_url = harness.database_url_named(harness.postgres_url() or "", f"maumau_fwd_{os.getpid()}")
        harness.database_create(database_url, fresh=True)
    env = harness.server_env(tmp_path, database_url, MAUMAU_SIGNUP_RATE="2/min")
    env.pop("MAUMAU_NUM_PROXIES", None)
    env.pop("FORWARDED_ALLOW_IPS", None)
    harness.migrate(env)
    port = harness.free_port()
    env.update({"PORT": str(port), "HOST": "127.0.0.1", "WEB_CONCURRENCY": "1",
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"})
    log = (tmp_path / "web.log").open("wb")
    web = subprocess.Popen(["bash", "-c", f"exec {procfile_command('web')}"], cwd=harness.ROOT, env=env,
                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        end = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert web.poll() is None and time.monotonic() < end, (tmp_path / "web.log").read_text()[-2000:]
            time.sleep(0.2)
        codes = [httpx.post(f"http://127.0.0.1:{port}/api/v1/players", json={"name": f"P{n}"},
                            headers={"X-Forwarded-For": f"203.0.113.{n}"}, timeout=10).status_code
                 for n in range(4)]
        assert codes == [201, 201, 429, 429]
    finally:
        os.killpg(web.pid, signal.SIGTERM)
        web.wait(timeout=15)
        log.close()
        if database_url:
            harness.database_drop(database_url)
