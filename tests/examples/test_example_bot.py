"""The bot kit works as its authors will run it: the example bot signs up, seeks a game, follows
``/me/stream`` and plays a whole round against a server bot on a live server (uvicorn, as ``bin/serve``
runs the web process), with nothing but ``examples/bot.py`` and ``examples/maumau_client.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import harness

EXAMPLES = harness.ROOT / "examples"
#: what the lobby's beat sweep does every few seconds: seats whose wait for people is over get bots
FILL_SEEKS = "from lobby import services; services.seeks_fill_due()"


@pytest.fixture
def kit_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    database_url = None
    base = harness.postgres_url()
    if base:
        database_url = harness.database_url_named(base, f"maumau_examples_{os.getpid()}")
        harness.database_create(database_url, fresh=True)
    env = harness.server_env(tmp_path, database_url)
    harness.migrate(env)
    port = harness.free_port()
    server = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp_path / "uvicorn.log")
    try:
        server.wait_for_http(port)
        yield f"http://127.0.0.1:{port}", env
    finally:
        server.stop(timeout=10)
        if database_url:
            harness.database_drop(database_url)


def test_the_example_bot_plays_a_whole_round_against_a_server_bot(kit_server: tuple[str, dict[str, str]]) -> None:
    url, env = kit_server
    bot = subprocess.Popen([sys.executable, str(EXAMPLES / "bot.py"), "--url", url, "--name", "Example bot",
                            "--seek", "classic", "--fill-with-bots-after", "1", "--rounds", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while bot.poll() is None and time.monotonic() < deadline:
            time.sleep(1)
            subprocess.run([sys.executable, "manage.py", "shell", "-c", FILL_SEEKS], cwd=harness.ROOT, env=env,
                           check=True, capture_output=True, timeout=60)
        if bot.poll() is None:
            bot.kill()
        out, err = bot.communicate(timeout=30)
    finally:
        if bot.poll() is None:
            bot.kill()
    assert bot.returncode == 0, err[-3000:]
    signed_up, *_, finished = [json.loads(line) for line in out.splitlines()]
    assert signed_up["token"] and signed_up["player"]
    assert finished["status"] == "finished"
    seats = finished["players"]
    mine = seats[finished["seat"]]
    assert mine["player"] == signed_up["player"] and mine["bot"] and not mine["bot_controlled"]
    assert [seat["bot_controlled"] for seat in seats].count(True) == 1  # the server bot the seek was filled with
    assert finished["result"]["reason"] in ("mau_mau", "stalemate", "max_turns")
