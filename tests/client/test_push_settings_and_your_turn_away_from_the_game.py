"""Push set-up as one honest switch per device, and "your turn" reaching a player who left the game page,
in Debian's chromium against a live server that pushes to a Web Push service of the test's own
(bench.push_service, on 127.0.0.1).

Chromium's own push service is Google's, out of reach here (a persistent profile waits on it without an
answer; a Playwright context refuses at once): the page's PushManager is pointed at the test's service
instead (an init script answers subscribe/getSubscription with a subscription the service made), so
everything after the browser's part is real: the server stores the subscription, encrypts and signs the
push, and the service checks and decrypts it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bench.push_service import PushService, vapid_key_pem
from tests.client.browser_helpers import PHONE, Api, live_server, look, setup_for

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

TIMEOUT_MS = 15_000
SKAT = [rank + suit for suit in "CSHD" for rank in ["7", "8", "9", "10", "J", "Q", "K", "A"]]
#: The page's PushManager, answered with a subscription of the test's push service (see the module's text).
FAKE_PUSH_MANAGER = """
(() => {
  if (typeof PushManager === "undefined") return;
  const sub = %s;
  const make = () => ({ endpoint: sub.endpoint, expirationTime: null, options: { userVisibleOnly: true },
    toJSON: () => sub, getKey: () => null,
    unsubscribe: async () => { localStorage.removeItem("test.push.subscribed"); return true; } });
  PushManager.prototype.subscribe = async function () {
    localStorage.setItem("test.push.subscribed", "1");
    return make();
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem("test.push.subscribed") ? make() : null;
  };
})();
"""


@pytest.fixture(scope="module")
def pushing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, PushService]]:
    """A live server that sends Web Push (a VAPID key, loopback endpoints allowed, the notify task run in
    the web process) and the push service it sends to."""
    settings = {"VAPID_PRIVATE_KEY": vapid_key_pem(), "PUSH_ALLOW_LOOPBACK": "true", "CELERY_TASK_ALWAYS_EAGER": "true"}
    with live_server(tmp_path_factory.mktemp("push-server"), **settings) as url:
        key = httpx.get(f"{url}/api/v1/push/vapid-public-key").json()["public_key"]
        service = PushService(server_key=key).start()
        try:
            yield url, service
        finally:
            service.close()


@pytest.fixture
def contexts(browser: Any) -> Iterator[Any]:
    made: list[Any] = []
    errors: list[str] = []

    def make(*, grant: bool, push_to: Any = None) -> Any:
        context = browser.new_context(viewport=PHONE, locale="en-GB")
        context.set_default_timeout(TIMEOUT_MS)
        if push_to is not None:
            context.add_init_script(FAKE_PUSH_MANAGER % json.dumps(push_to.browser_json()))
        made.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return context, page

    yield make
    for context in made:
        context.close()
    assert not errors, errors


def _signed_in(page: Any, server: str, name: str) -> Api:
    api = Api.guest(server, name)
    page.goto(server + "/")
    page.evaluate(f"localStorage.setItem('maumau.token', '{api.token}'); localStorage.setItem('maumau.pace', '0')")
    page.goto(server + "/#/lobby")
    expect(page.locator("#my-games")).to_be_visible()
    page.evaluate("navigator.serviceWorker.ready")
    return api


def _one_action(page: Any) -> list[str]:
    return page.locator("#push button").evaluate_all("(buttons) => buttons.map((b) => b.textContent)")


def test_a_refused_permission_is_explained_and_the_blocked_state_offers_one_action(
        pushing: tuple[str, PushService], contexts: Any) -> None:
    server, _service = pushing
    _context, page = contexts(grant=False)
    api = _signed_in(page, server, "Pia")
    page.get_by_role("link", name="Settings").click()
    expect(page.locator("#push")).to_have_attribute("data-state", "ask")
    assert _one_action(page) == ["Turn on notifications"]
    look(page, "push-ask")
    page.get_by_role("button", name="Turn on notifications").click()  # the browser says no (a test context)
    # Chromium blocks the site after a refusal in a test context ("denied"); a browser that only closed
    # its question leaves "ask" with the words for that.
    expect(page.locator("#push[data-state='denied'], #push-trouble").first).to_be_visible()
    said = page.locator("#push").text_content() or ""
    assert "Error" not in said and "Registration failed" not in said and "permission denied" not in said, said
    assert page.locator("#toast.shown").count() == 0, "no toast with the browser's raw error"
    assert len(_one_action(page)) == 1
    if page.locator("#push").get_attribute("data-state") == "denied":
        assert _one_action(page) == ["Check again"]
        expect(page.locator("#push-state")).to_contain_text("blocked for this site in this browser. To allow them")
        assert page.locator("#push-trouble").count() == 0, "said once"
    else:
        expect(page.locator("#push-trouble")).to_contain_text("The browser's question was closed without an answer.")
    look(page, "push-refused")
    assert api.call("GET", "me/push-subscriptions") == []
    expect(page.locator("#devices")).to_have_text("No devices.")


def test_turning_on_registers_this_browser_by_name_and_turning_off_ends_it_here_and_on_the_server(
        pushing: tuple[str, PushService], contexts: Any) -> None:
    server, service = pushing
    subscription = service.subscribe("settings-device")
    context, page = contexts(grant=True, push_to=subscription)
    context.grant_permissions(["notifications"], origin=server)
    api = _signed_in(page, server, "Ola")
    page.get_by_role("link", name="Settings").click()
    expect(page.locator("#push")).to_have_attribute("data-state", "off")
    assert _one_action(page) == ["Turn on notifications"]
    look(page, "push-allowed-off")
    page.get_by_role("button", name="Turn on notifications").click()
    expect(page.locator("#push")).to_have_attribute("data-state", "on")
    assert _one_action(page) == ["Turn off on this device"]
    expect(page.locator("#push-state")).to_have_text("This device gets notifications.")
    [listed] = api.call("GET", "me/push-subscriptions")
    assert listed["endpoint_origin"] == service.origin and listed["name"] == "Chrome (Linux)"
    here = page.locator("#devices li[data-here='true']")
    expect(here).to_contain_text("Chrome (Linux)")
    expect(here).to_contain_text("this device")
    look(page, "push-on")
    page.get_by_role("button", name="Turn off on this device").click()
    expect(page.locator("#push")).to_have_attribute("data-state", "off")
    assert _one_action(page) == ["Turn on notifications"]
    assert api.call("GET", "me/push-subscriptions") == []
    assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.pushManager.getSubscription())") is None
    expect(page.locator("#devices")).to_have_text("No devices.")
    look(page, "push-turned-off")


def test_your_turn_is_pushed_and_shown_on_another_page_soon_after_the_game_page_is_left(
        pushing: tuple[str, PushService], contexts: Any) -> None:
    server, service = pushing
    subscription = service.subscribe("leaver")
    context, page = contexts(grant=True, push_to=subscription)
    context.grant_permissions(["notifications"], origin=server)
    bob = _signed_in(page, server, "Bob")
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("button", name="Turn on notifications").click()
    expect(page.locator("#push")).to_have_attribute("data-state", "on")

    ada = Api.guest(server, "Ada")
    table = ada.call("POST", "tables", {"rules": "classic", "max_players": 2, "options": {"turn_seconds": 0}})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    # Ada: KH, then 10S; Bob: QH, then 10D (each plays twice).
    setup = setup_for(SKAT, [["KH", "10H", "10S", "QC", "KC"], ["QH", "9D", "KS", "QD", "10D"]], "9H", [])
    setup["first"] = 0
    game = ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]
    page.goto(f"{server}/#/game/{game}")
    expect(page.locator("#stream-state")).to_have_attribute("data-state", "open")
    expect(page.locator("#turn")).to_have_text("Ada's turn")
    page.get_by_role("link", name="Lobby").first.click()  # Bob leaves the game page
    expect(page.locator("#my-games")).to_be_visible()
    expect(page).to_have_title("Mau-Mau")

    ada.call("POST", f"games/{game}/actions", {"type": "play", "cards": ["KH"]})
    moved = time.monotonic()
    expect(page).to_have_title(re.compile(r"^\(1\) Your turn"), timeout=5_000)
    expect(page.locator("#turn-banner")).to_contain_text(f"Your turn at table {table}")
    while not service.for_("leaver") and time.monotonic() - moved < 5:
        page.wait_for_timeout(100)
    [pushed] = service.for_("leaver")
    assert pushed.payload["kind"] == "your_turn" and pushed.payload["game"] == game
    look(page, "your-turn-banner")

    # Back at the table Bob plays; then his page is hidden (another app in front) and Ada answers at once.
    page.locator("#turn-banner").get_by_role("link", name="Play").click()
    expect(page.locator("#turn.yours")).to_be_visible()
    expect(page.locator("#turn-banner")).to_be_hidden()
    page.locator(".hand-card[data-card='QH']").click()
    expect(page.locator("#turn")).to_have_text("Ada's turn")
    expect(page).to_have_title("Mau-Mau")
    page.evaluate("Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => 'hidden'});"
                  "document.dispatchEvent(new Event('visibilitychange'))")
    expect(page.locator("#stream-state")).not_to_have_attribute("data-state", "lost")
    ada.call("POST", f"games/{game}/actions", {"type": "play", "cards": ["10H"]})
    moved = time.monotonic()
    while len(service.for_("leaver")) < 2 and time.monotonic() - moved < 5:
        page.wait_for_timeout(100)
    assert len(service.for_("leaver")) == 2, "the hidden page's player was pushed"
    expect(page).to_have_title(re.compile(r"^\(1\) Your turn"), timeout=5_000)
