"""What the browser tests share: Debian's chromium, a live server for it, a proxy that can drop
connections, and the API called directly for the other side of a game.

The server is a real uvicorn process (streams need one) on a database of its own: an SQLite file
in a temporary folder, or a fresh PostgreSQL database when DATABASE_URL points at PostgreSQL.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench import harness
from bench.harness import DroppingProxy  # noqa: F401  (the browser tests take it from here)

SCREENSHOTS = harness.ROOT / "var" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
#: The sizes a screen is looked at in (`look`): a small phone, a common phone, a laptop.
LOOKS = [{"width": 360, "height": 740}, {"width": 390, "height": 844}, {"width": 1366, "height": 900}]


def chromium_path() -> str | None:
    """Debian's chromium (Playwright downloads no browser here): MAUMAU_CHROMIUM, else the one on PATH."""
    configured = os.environ.get("MAUMAU_CHROMIUM")
    if configured:
        return configured if Path(configured).exists() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    """In CI a missing browser fails the run (.ci/run installs it); elsewhere the browser tests skip."""
    path = chromium_path()
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is missing: the browser tests must run in CI (apt-get install -y chromium)")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return path


@contextmanager
def live_server(tmp: Path, **extra: str) -> Iterator[str]:
    """uvicorn serving the whole app (client page, static files, API, streams) on a free port; ``extra``
    settings (environment variables) on top of the browser tests' own."""
    database_url = None
    base = harness.postgres_url()
    if base:
        database_url = harness.database_url_named(base, f"maumau_client_{os.getpid()}")
        harness.database_create(database_url, fresh=True)
    # A rating is on the leaderboard from its first round here: the browser rounds show the board, not the
    # provisional rule (tests/scoring/test_rating_farms_fail.py holds that).
    env = harness.server_env(tmp, database_url, **harness.UNTHROTTLED, STREAMS_KEEPALIVE_SECONDS="2",
                             MAUMAU_LEADERBOARD_MIN_ROUNDS="1", **extra)
    harness.migrate(env)
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=harness.ROOT,
                   env=env, check=True)
    port = harness.free_port()
    process = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / "uvicorn.log")
    try:
        process.wait_for_http(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.stop(timeout=10)
        if database_url:
            harness.database_drop(database_url)


class Api:
    """A player on the API directly (the other side of a game, or set-up the test needs)."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.http = httpx.Client(base_url=f"{base}/api/v1/", timeout=10)
        if token:
            self.http.headers["Authorization"] = f"Token {token}"

    @classmethod
    def guest(cls, base: str, name: str) -> Api:
        answer = httpx.post(f"{base}/api/v1/players", json={"name": name}, timeout=10)
        answer.raise_for_status()
        api = cls(base, answer.json()["token"])
        api.player_id = answer.json()["id"]
        api.token = answer.json()["token"]
        return api

    def call(self, method: str, path: str, body: Any = None) -> Any:
        answer = self.http.request(method, path, json=body)
        assert answer.status_code < 300, answer.text
        return answer.json() if answer.content else None


def deck_of_house() -> list[str]:
    """The house deck: 52 French cards and three jokers."""
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    return [rank + suit for suit in "CSHD" for rank in ranks] + ["X1", "X2", "X3"]


def setup_for(deck: list[str], hands: list[list[str]], starter: str, stock_top: list[str]) -> dict[str, Any]:
    """A fixed deal: the hands, the starter, the stock's first cards, then the rest of the deck."""
    used = [card for hand in hands for card in hand] + [starter] + stock_top
    assert len(set(used)) == len(used)
    rest = [card for card in deck if card not in used]
    return {"hands": hands, "starter": starter, "stock": stock_top + rest}


def axe_script() -> str | None:
    """axe-core's ``axe.min.js`` (npm ``axe-core``, pinned in contract/package.json) when MAUMAU_AXE_JS names
    it: the browser tests then check every screen they `look` at for accessibility violations. CI sets it
    (.ci/run), and there a missing file fails rather than checking nothing."""
    path = os.environ.get("MAUMAU_AXE_JS")
    if path and Path(path).exists():
        return Path(path).read_text()
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"axe-core is missing in CI (MAUMAU_AXE_JS={path!r}): the screens must be checked there")
    return None


def look(page: Any, name: str) -> None:
    """The screen at each size of LOOKS: a full-page screenshot (MAUMAU_SCREENSHOTS, else var/screenshots, for a
    person to look at) and, with axe-core at hand, no accessibility violation (WCAG 2 A and AA rules)."""
    folder = Path(os.environ.get("MAUMAU_SCREENSHOTS") or SCREENSHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    axe = axe_script()
    original = page.viewport_size
    try:
        for size in LOOKS:
            page.set_viewport_size(size)
            page.wait_for_timeout(150)  # the layout after the resize (not an assertion)
            page.screenshot(path=str(folder / f"{name}-{size['width']}x{size['height']}.png"), full_page=True)
            if axe:
                if not page.evaluate("typeof window.axe !== 'undefined'"):
                    page.evaluate(axe)  # evaluated, not a <script>: the page's CSP allows only its own scripts
                found = page.evaluate("axe.run(document, {resultTypes: ['violations']}).then((r) => "
                                      "r.violations.map((v) => ({id: v.id, nodes: v.nodes.map((n) => n.target)})))")
                assert found == [], f"{name} at {size}: {found}"
    finally:
        page.set_viewport_size(original)
