"""The web client's game screen: time to interactive and bytes shipped, on the run command's server.

Starts what ``bin/serve`` starts for the web (migrate, collectstatic, uvicorn ``maumau.asgi`` with
the Procfile's two workers) on the embedded defaults (an SQLite file in a temporary folder), makes a
guest with a tavern round against a bot, then opens ``/#/game/<id>`` in Debian's chromium (Playwright)
``--runs`` times, each in a fresh browser context (an empty cache, as a first visit):

- time to interactive: from the navigation's start to the client's ``maumau:game-interactive``
  performance mark (the view is drawn, its legal actions can be chosen, the event stream is open);
- bytes shipped: the transfer sizes (compressed, headers included) of the page, its scripts and
  styles, and separately of the API answers it read (the open event stream is not counted).

Then the motion: at 1366x900, a guest and three basic bots at a classic table, the guest plays its
turns (``--turns``) at the client's own pace while a ``requestAnimationFrame`` loop records every frame
(the Performance API's clock): the frames drawn while rows were played out, the dropped ones (a gap
of more than one 60 Hz frame counts the frames it skipped) and the longest gap.

Prints JSON: the median and every run. Goals: under 1 s, under 200 kB, no dropped frames at 60 fps.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from bench import harness

MEASURE = """() => {
  const [navigation] = performance.getEntriesByType("navigation");
  const mark = performance.getEntriesByName("maumau:game-interactive")[0];
  const resources = performance.getEntriesByType("resource");
  const api = resources.filter((r) => new URL(r.name).pathname.startsWith("/api/"));
  const files = resources.filter((r) => !new URL(r.name).pathname.startsWith("/api/"));
  const sum = (list, key) => list.reduce((total, r) => total + (r[key] || 0), 0);
  return {
    interactive_ms: mark ? mark.startTime - navigation.startTime : null,
    files: files.length + 1,
    file_bytes: navigation.transferSize + sum(files, "transferSize"),
    file_bytes_uncompressed: navigation.decodedBodySize + sum(files, "decodedBodySize"),
    api_requests: api.length,
    api_bytes: sum(api, "transferSize"),
  };
}"""


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update({"DJANGO_SETTINGS_MODULE": "maumau.settings", "MAUMAU_VAR_DIR": str(tmp),
                "PYTHONPATH": str(harness.ROOT)})
    return env


def _game(base: str) -> tuple[str, int]:
    """A guest's running tavern round against the basic bot: its token and the game's id."""
    guest = httpx.post(f"{base}/api/v1/players", json={"name": "Tess"}, timeout=10).json()
    headers = {"Authorization": f"Token {guest['token']}"}
    with httpx.Client(base_url=f"{base}/api/v1/", headers=headers, timeout=10) as api:
        table = api.post("tables", json={"rules": "tavern", "options": {"turn_seconds": 0}}).json()["id"]
        api.post(f"tables/{table}/bots", json={"level": "basic"}).raise_for_status()
        game = api.post(f"tables/{table}/rounds", json={}).json()["id"]
    return guest["token"], game


def measure(base: str, runs: int, chromium: str) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    token, game = _game(base)
    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for _ in range(runs):
            context = browser.new_context(viewport={"width": 390, "height": 844})
            page = context.new_page()
            page.goto(f"{base}/api/")  # same origin, to store the token before the measured visit
            page.evaluate("token => localStorage.setItem('maumau.token', token)", token)
            context.clear_cookies()
            page.goto(f"{base}/#/game/{game}", wait_until="commit")
            page.locator("#stream-state[data-state=open]").wait_for(timeout=30_000)
            results.append(page.evaluate(MEASURE))
            context.close()
        browser.close()
    return results


FRAMES_START = """() => {
  window.frameTimes = [];
  window.recording = true;
  const loop = (now) => { if (window.recording) { window.frameTimes.push(now); requestAnimationFrame(loop); } };
  requestAnimationFrame(loop);
}"""

FRAMES_STOP = """() => {
  window.recording = false;
  const times = window.frameTimes;
  const frame = 1000 / 60;
  let dropped = 0, longest = 0;
  for (let i = 1; i < times.length; i += 1) {
    const gap = times[i] - times[i - 1];
    longest = Math.max(longest, gap);
    dropped += Math.max(0, Math.round(gap / frame) - 1);
  }
  const span = times.length > 1 ? times[times.length - 1] - times[0] : 0;
  return { frames: times.length, dropped, longest_gap_ms: Math.round(longest * 10) / 10,
           fps: span ? Math.round((times.length - 1) / span * 10000) / 10 : null,
           flights: Number(document.getElementById("game").dataset.animations || 0) };
}"""


YOUR_TURN_OR_OVER = """() => {
  const game = document.getElementById("game");
  const over = game.dataset.status === "finished";
  return game.dataset.settled === "true" && (over || !!document.querySelector("#turn.yours"));
}"""


def _table_of_four(base: str) -> tuple[str, int]:
    guest = httpx.post(f"{base}/api/v1/players", json={"name": "Fay"}, timeout=10).json()
    headers = {"Authorization": f"Token {guest['token']}"}
    with httpx.Client(base_url=f"{base}/api/v1/", headers=headers, timeout=10) as api:
        body = {"rules": "classic", "max_players": 4, "options": {"turn_seconds": 0}}
        table = api.post("tables", json=body).json()["id"]
        for _ in range(3):
            api.post(f"tables/{table}/bots", json={"level": "basic"}).raise_for_status()
        game = api.post(f"tables/{table}/rounds", json={}).json()["id"]
    return guest["token"], game


def frames(base: str, turns: int, chromium: str) -> dict[str, Any]:
    """Frames while the guest's turns and the bots' answers are played out at 1366x900."""
    from playwright.sync_api import sync_playwright

    token, game = _table_of_four(base)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1366, "height": 900})
        page = context.new_page()
        page.goto(f"{base}/api/")
        page.evaluate("token => localStorage.setItem('maumau.token', token)", token)
        page.goto(f"{base}/#/game/{game}")
        page.locator("#game[data-settled=true]").wait_for(timeout=30_000)
        page.evaluate(FRAMES_START)
        for _ in range(turns):
            page.wait_for_function(YOUR_TURN_OR_OVER, timeout=60_000)
            if page.locator("#game").get_attribute("data-status") == "finished":
                break
            version = page.locator("#game").get_attribute("data-version")
            playable = page.locator(".hand-card.playable")
            if playable.count():
                playable.first.click()
                chooser = page.locator("dialog.chooser .suit-button, dialog.chooser .rank-button, "
                                       "dialog.chooser button.primary")
                if chooser.count():
                    chooser.first.click()
            elif page.locator("#pass").count():
                page.locator("#pass").click()
            else:
                page.locator("#draw").click()
            page.wait_for_function(f"() => document.getElementById('game').dataset.version !== '{version}'",
                                   timeout=60_000)
        result = page.evaluate(FRAMES_STOP)
        browser.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=4, help="the guest's turns played for the frame count")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        env = _env(tmp)
        harness.migrate(env)
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=harness.ROOT,
                       env=env, check=True)
        port = harness.free_port()
        server = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / "uvicorn.log",
                                 options=["--workers", "2", "--timeout-keep-alive", "75"])
        try:
            server.wait_for_http(port)
            runs = measure(f"http://127.0.0.1:{port}", args.runs, args.chromium)
            motion = frames(f"http://127.0.0.1:{port}", args.turns, args.chromium)
        finally:
            server.stop()
    times = [run["interactive_ms"] for run in runs if run["interactive_ms"] is not None]
    print(json.dumps({
        "runs": len(runs),
        "interactive_ms_median": round(statistics.median(times), 1) if times else None,
        "file_bytes_median": statistics.median(run["file_bytes"] for run in runs),
        "file_bytes_uncompressed_median": statistics.median(run["file_bytes_uncompressed"] for run in runs),
        "api_bytes_median": statistics.median(run["api_bytes"] for run in runs),
        "motion_1366x900_4_players": motion,
        "each": runs,
    }, indent=2))


if __name__ == "__main__":
    main()
