"""The app starts without the network and without the browser's HTTP cache: the service worker has every
module (tests/site/test_the_offline_shell_holds_every_module.py checks the list), and the lobby shows
the last known "your games", the leagues and a league's standings, marked as of when; an action that
needs the server says so."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client.browser_helpers import PHONE, Api, look

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

TIMEOUT_MS = 15_000


def test_offline_with_a_cleared_http_cache_the_lobby_shows_the_last_games_leagues_and_standings(
        browser: Any, server: str) -> None:
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        uta = Api.guest(server, "Uta")
        table = uta.call("POST", "tables", {"rules": "classic", "max_players": 2, "options": {"turn_seconds": 0}})["id"]
        uta.call("POST", f"tables/{table}/bots", {"level": "basic"})
        uta.call("POST", f"tables/{table}/rounds", {})
        league = uta.call("POST", "leagues", {"name": "Stammtisch", "rules": "classic"})["id"]
        page.goto(server + "/")
        page.evaluate(f"localStorage.setItem('maumau.token', '{uta.token}')")
        page.goto(server + "/#/lobby")
        expect(page.locator("#my-games li", has_text=f"Table {table}")).to_be_visible()
        page.evaluate("navigator.serviceWorker.ready")
        page.goto(server + "/#/leagues")
        expect(page.locator("main")).to_contain_text("Stammtisch")
        page.goto(f"{server}/#/league/{league}")
        expect(page.locator("main")).to_contain_text("Stammtisch")
        page.goto(server + "/#/lobby")
        expect(page.locator("#my-games li", has_text=f"Table {table}")).to_be_visible()
        assert page.evaluate("navigator.serviceWorker.controller !== null")

        cdp = context.new_cdp_session(page)
        cdp.send("Network.clearBrowserCache")  # only the service worker's cache is left
        cdp.detach()  # a DevTools session left open keeps the page's navigator.onLine true
        context.set_offline(True)
        page.reload()
        expect(page.locator("#offline")).to_be_visible()
        expect(page.locator("#offline")).to_contain_text("Offline: showing what was saved at")
        expect(page.locator("#my-games li", has_text=f"Table {table}")).to_be_visible()
        expect(page.locator("#saved-at")).to_contain_text("As of ")
        look(page, "offline-lobby")
        page.locator("#quick-play button.play").first.click()
        expect(page.locator("#toast")).to_have_text("The server cannot be reached.")
        page.get_by_role("link", name="Leagues").click()
        expect(page.locator("main")).to_contain_text("Stammtisch")
        page.locator("main li", has_text="Stammtisch").get_by_role("link", name="Open").click()
        expect(page.locator("main h1")).to_contain_text("Stammtisch")
        look(page, "offline-league")
    finally:
        context.set_offline(False)
        context.close()
    assert not errors, errors
