"""The web client as an installable app, in Debian's chromium against a live server: the service
worker registers with scope /, the manifest is valid and installable (icons 192 and 512, a maskable
one), a push delivered through the DevTools protocol (ServiceWorker.deliverPushMessage) shows a
notification whose click opens the game, the app shell (the lobby) opens offline and says so, and the
settings screen lists and removes devices.

The browser runs in this module only (module-scoped), as in test_playing_in_the_browser.py.
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.client.browser_helpers import PHONE, Api

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

TIMEOUT_MS = 15_000


@pytest.fixture
def context(browser: Any, server: str) -> Iterator[Any]:
    made = browser.new_context(viewport=PHONE, locale="en-GB")
    made.set_default_timeout(TIMEOUT_MS)
    made.grant_permissions(["notifications"], origin=server)
    yield made
    made.close()


#: Kept in the page: each message the toast showed (it hides them after 4 s), for a failure to report.
KEEP_TOASTS = """
document.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("toast");
  if (box) new MutationObserver(() => (window.keptToasts = window.keptToasts || []).push(box.textContent))
    .observe(box, {childList: true, characterData: true, subtree: true});
});
"""


def _signed_up(context: Any, server: str) -> tuple[Any, Api]:
    page = context.new_page()
    page.goto(server + "/")
    page.get_by_label("Your name").fill("Pia")
    page.get_by_role("button", name="Play as guest").click()
    expect(page.locator("#my-games")).to_be_visible()
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == server + "/"
    api = Api(server, str(page.evaluate("localStorage.getItem('maumau.token')")))
    return page, api


def _poll(page: Any, read: Any, deadline: float = 20.0) -> Any:
    """read() until it gives something, waiting through Playwright (its events arrive only then)."""
    end = time.monotonic() + deadline
    while True:
        value = read()
        if value or time.monotonic() > end:
            return value
        page.wait_for_timeout(100)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_is_valid_and_the_app_installable(context: Any, server: str) -> None:
    page, _api = _signed_up(context, server)
    manifest = httpx.get(server + "/manifest.webmanifest").json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/#/lobby" and manifest["scope"] == "/"
    assert manifest["name"] == "Mau-Mau" and manifest["theme_color"] == "#0b5d1e"
    sizes = {}
    for icon in manifest["icons"]:
        answer = httpx.get(server + icon["src"])
        assert answer.status_code == 200 and answer.headers["content-type"] == "image/png"
        assert "immutable" in answer.headers["cache-control"], "hashed static files are cached for long"
        sizes[(icon["purpose"], icon["sizes"])] = _png_size(answer.content)
    assert sizes == {("any", "192x192"): (192, 192), ("any", "512x512"): (512, 512),
                     ("maskable", "512x512"): (512, 512)}
    cdp = context.new_cdp_session(page)
    parsed = cdp.send("Page.getAppManifest")
    assert parsed["errors"] == [], parsed["errors"]
    # Playwright's contexts are incognito profiles, which chromium never installs from: nothing else may block it.
    def blockers() -> list[str]:
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        return [e["errorId"] for e in errors if e["errorId"] != "in-incognito"]

    assert _poll(page, lambda: blockers() == []), blockers()
    worker = httpx.get(server + "/sw.js")
    assert worker.headers["cache-control"] == "no-cache" and "javascript" in worker.headers["content-type"]


def test_a_pushed_message_shows_a_notification_whose_click_opens_the_game(context: Any, server: str) -> None:
    page, api = _signed_up(context, server)
    table = api.call("POST", "tables", {"rules": "classic", "max_players": 2})["id"]
    api.call("POST", f"tables/{table}/bots", {"level": "basic"})
    game = api.call("POST", f"tables/{table}/rounds", {})["id"]
    cdp = context.new_cdp_session(page)
    registrations: list[str] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda event: registrations.extend(r["registrationId"] for r in event["registrations"]))
    cdp.send("ServiceWorker.enable")
    assert _poll(page, lambda: registrations)
    payload = {"kind": "your_turn", "game": game, "table": table, "turn": 0, "deadline": None,
               "title": "Your turn", "body": f"Table {table}: it is your turn.",
               "url": f"{server}/#/game/{game}", "tag": f"yourturn-{game}"}
    assert page.evaluate("navigator.serviceWorker.ready.then((r) => Boolean(r.active))")
    shown: list[Any] = []
    # A push that reaches a worker still starting is dropped by the browser: delivered again (same tag,
    # so one notification) until it shows, on a loaded machine too.
    for _attempt in range(4):
        cdp.send("ServiceWorker.deliverPushMessage", {"origin": server, "registrationId": registrations[-1],
                                                       "data": json.dumps(payload)})
        shown = _poll(page, lambda: page.evaluate(
            "navigator.serviceWorker.ready.then((r) => r.getNotifications())"
            ".then((ns) => ns.map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url})))"),
            deadline=8.0)
        if shown:
            break
    assert shown == [{"title": "Your turn", "body": f"Table {table}: it is your turn.", "tag": f"yourturn-{game}",
                      "url": f"{server}/#/game/{game}"}]
    assert page.evaluate("location.hash") == "#/lobby"
    [worker] = [w for w in context.service_workers if w.url.endswith("/sw.js")]
    # No DevTools command clicks a notification: the worker gets the click event the browser would send.
    worker.evaluate("self.registration.getNotifications().then(([n]) => "
                    "{ try { self.dispatchEvent(new NotificationEvent('notificationclick', {notification: n})); }"
                    " catch (e) {} })")
    expect(page.locator("#game")).to_have_attribute("data-game", str(game))
    assert page.evaluate("location.hash") == f"#/game/{game}"


def test_the_lobby_opens_offline_and_says_so(context: Any, server: str) -> None:
    page, _api = _signed_up(context, server)
    page.reload()
    _poll(page, lambda: page.evaluate("navigator.serviceWorker.controller !== null"))
    page.add_init_script(KEEP_TOASTS)
    context.set_offline(True)
    try:
        page.reload()
        expect(page.locator("#offline")).to_be_visible()
        expect(page.locator("#offline")).to_contain_text("Offline")
        try:
            expect(page.locator("#my-games")).to_be_attached()
        except AssertionError as exc:  # seen once in CI, never since: say what the page met
            state = page.evaluate("({toasts: window.keptToasts || [], online: navigator.onLine,"
                                  " keys: Object.keys(localStorage), hash: location.hash})")
            raise AssertionError(f"the lobby did not open offline; the page: {state}") from exc
        assert page.evaluate("navigator.serviceWorker.controller !== null"), "the worker served the shell"
    finally:
        context.set_offline(False)
    expect(page.locator("#offline")).to_be_hidden()


def test_the_settings_screen_shows_kinds_and_removes_a_device(context: Any, server: str) -> None:
    page, api = _signed_up(context, server)
    api.call("POST", "me/devices", {"platform": "fcm", "token": "fcm-token-for-the-test", "name": "Old phone"})
    page.get_by_role("link", name="Settings").click()
    expect(page.locator("#kinds")).to_contain_text("Your turn")
    expect(page.locator("#devices")).to_contain_text("Old phone")
    page.get_by_label("Your turn: E-mail").check()
    _poll(page, lambda: api.call("GET", "me/notifications")["kinds"]["your_turn"]["email"])
    assert api.call("GET", "me/notifications")["kinds"]["your_turn"]["email"] is True
    page.locator("#devices").get_by_role("button", name="Remove").click()
    expect(page.locator("#devices")).to_contain_text("No devices.")
    assert api.call("GET", "me/devices") == []


def _bob_watching_adas_round(context: Any, server: str) -> tuple[Any, Api, int]:
    """Bob's page on a rigged classic round, live at version 0, Ada (who plays first) to move: the page,
    Ada's API and the game."""
    from tests.streams.streams_helpers import rigged_setup

    ada, bob = Api.guest(server, "Ada"), Api.guest(server, "Bob")
    table = ada.call("POST", "tables", {"rules": "classic", "max_players": 2})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    setup = rigged_setup([["KH", "10H", "10S", "QC", "KC"], ["QH", "9D", "KS", "QD", "10D"]], "9H", ["QS"])
    game = ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]
    page = context.new_page()
    page.goto(server + "/")
    page.evaluate(f"localStorage.setItem('maumau.token', '{bob.token}')")
    page.goto(f"{server}/#/game/{game}")
    expect(page.locator("#game")).to_have_attribute("data-version", "0")
    expect(page.locator("#stream-state")).to_have_attribute("data-state", "open")
    return page, ada, game


def test_the_games_stream_closes_when_the_browser_says_it_is_offline_and_resumes_when_back(
        context: Any, server: str) -> None:
    """The browser's word is enough: a connection the network dropped may look alive until its stall
    timer, so an ``offline`` event closes the stream at once, with the network still up here (the
    emulated offline of the test above may leave a connection open, and then a move got through)."""
    page, ada, game = _bob_watching_adas_round(context, server)
    page.evaluate("window.dispatchEvent(new Event('offline'))")
    expect(page.locator("#stream-state")).to_have_attribute("data-state", "lost")
    ada.call("POST", f"games/{game}/actions", {"type": "play", "cards": ["KH"]})
    page.wait_for_timeout(1500)
    assert page.locator("#game").get_attribute("data-version") == "0", "the stream was closed"
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    expect(page.locator("#stream-state")).to_have_attribute("data-state", "open")
    expect(page.locator("#turn")).to_have_text("Your turn")


def test_the_game_is_read_again_when_the_browser_is_back_online(context: Any, server: str) -> None:
    page, ada, game = _bob_watching_adas_round(context, server)
    context.set_offline(True)
    try:
        expect(page.locator("#stream-state")).to_have_attribute("data-state", "lost")
        expect(page.locator("#offline")).to_be_visible()
        ada.call("POST", f"games/{game}/actions", {"type": "play", "cards": ["KH"]})
        page.wait_for_timeout(1500)
        assert page.locator("#game").get_attribute("data-version") == "0", "offline, nothing arrives"
    finally:
        context.set_offline(False)
    expect(page.locator("#game")).to_have_attribute("data-version", "1")
    expect(page.locator("#turn")).to_have_text("Your turn")
    expect(page.locator("#offline")).to_be_hidden()
