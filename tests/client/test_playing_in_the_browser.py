"""The web client at ``/`` in a real browser (Debian's chromium driven by Playwright) against a live
server: a guest plays a tavern round against bots to its end; two browsers play a house round
with a wish, a Mau call and a forgotten call's penalty; a dropped event stream resumes without
losing a move. Screenshots of the lobby and the game screen at phone and desktop size go to
``var/screenshots`` (git-ignored) for a person to look at.

The browser runs in this module only (module-scoped): Playwright's sync API keeps an event loop on
the main thread while it lives, which Django's ORM in other test modules would take for async code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.client.browser_helpers import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    Api,
    DroppingProxy,
    deck_of_house,
    live_server,
    require_chromium,
    setup_for,
)

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(tmp_path_factory.mktemp("client-server")) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = require_chromium()
    with playwright_sync.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Pages in browser contexts of their own (separate storage: separate players), English unless asked."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(viewport: dict[str, int] = PHONE, locale: str = "en-GB") -> Any:
        context = browser.new_context(viewport=viewport, locale=locale)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, errors


def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def sign_up_as_guest(page: Any, base: str, name: str) -> None:
    page.goto(base + "/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Play as guest").click()
    expect(page.locator("#my-games li").first).to_be_visible()  # the lobby has loaded
    expect(page.locator("#quick-play")).to_be_visible()
    quick(page)


def quick(page: Any) -> None:
    """Rows of the ledger shown without a pause (the pacing has a test of its own)."""
    page.evaluate("localStorage.setItem('maumau.pace', '0')")


def create_table(page: Any, rules: str, seats: int) -> int:
    page.locator("#more summary").click()
    page.locator("#create-table select[name=rules]").select_option(rules)
    page.locator("#create-table input[name=max_players]").fill(str(seats))
    page.locator("#create-table select[name=turn_seconds]").select_option("0")
    page.locator("#create-table button").click()
    page.wait_for_url(re.compile(r"#/table/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def token_of(page: Any) -> str:
    return str(page.evaluate("localStorage.getItem('maumau.token')"))


def game_version(page: Any) -> int:
    return int(page.locator("#game").get_attribute("data-version") or -1)


def wait_for_version_past(page: Any, version: int) -> None:
    expect(page.locator("#game")).not_to_have_attribute("data-version", str(version))


def choose_any(page: Any) -> None:
    """Whatever chooser a card opened: a joker's rank, a wish, a seat to swap with, a line of a list."""
    chooser = page.locator("dialog.chooser")
    if page.locator(".seat.target").count():
        page.locator(".seat.target button").first.click()
    elif chooser.count() and chooser.is_visible():
        for option in (".rank-button", ".suit-button", "button.primary"):
            if chooser.locator(option).count():
                chooser.locator(option).first.click()
                break


def test_a_guest_plays_a_whole_tavern_round_against_bots_to_its_end_and_is_on_the_leaderboard(
        server: str, new_page: Any) -> None:
    page = new_page(DESKTOP)
    sign_up_as_guest(page, server, "Gina")
    screenshot(page, "lobby-desktop")
    create_table(page, "tavern", 3)
    page.get_by_role("button", name="Add bot: basic bot").click()
    expect(page.locator(".list li", has_text="Bot 1")).to_be_visible()
    page.get_by_role("button", name="Add bot: basic bot").click()  # a round with a random bot is not rated
    expect(page.locator(".list li", has_text="Bot 2")).to_be_visible()
    page.get_by_role("button", name="Start round").click()
    expect(page.locator("#hand")).to_be_visible()
    screenshot(page, "game-desktop")

    for _ in range(400):
        if page.locator("#game").get_attribute("data-status") == "finished":
            break
        version = game_version(page)
        expect(page.locator("#turn")).to_have_text("Your turn")
        playable = page.locator(".hand-card.playable")
        if playable.count():
            playable.first.click()
            choose_any(page)
        elif page.locator("#pass").count():
            page.locator("#pass").click()
        else:
            page.locator("#draw").click()
        wait_for_version_past(page, version)
    assert page.locator("#game").get_attribute("data-status") == "finished"
    expect(page.locator("#result tbody tr")).to_have_count(3)
    expect(page.get_by_text("Round over").first).to_be_visible()
    expect(page.locator("#moves li").first).to_contain_text("Round over")

    # The rated round puts the three of them on the leaderboard; one page holds them, so no "more".
    page.goto(server + "/#/ratings/tavern")
    people_only = page.get_by_label("People only")
    expect(page.locator("#leaderboard tbody tr")).to_have_count(1 if people_only.is_checked() else 3)
    people_only.set_checked(False)
    expect(page.locator("#leaderboard tbody tr")).to_have_count(3)
    expect(page.locator("#leaderboard tbody tr", has_text="Gina")).to_have_count(1)
    expect(page.get_by_role("button", name="…")).to_be_hidden()
    people_only.set_checked(True)
    expect(page.locator("#leaderboard tbody tr")).to_have_count(1)
    screenshot(page, "ratings-desktop")


def test_two_browsers_play_a_house_round_with_a_wish_a_mau_call_and_a_forgotten_calls_penalty(
        server: str, new_page: Any) -> None:
    ada = new_page(PHONE, "de-DE")
    bob = new_page(PHONE, "en-GB")
    sign_up_as_guest(bob, server, "Bob")
    ada.goto(server + "/")
    ada.get_by_label("Dein Name").fill("Ada")
    ada.get_by_role("button", name="Als Gast spielen").click()
    expect(ada.locator("#quick-play")).to_be_visible()
    quick(ada)
    table = create_table(ada, "house", 2)
    bob.reload()
    bob.locator("#open-tables li", has_text=f"Table {table}").get_by_role("button", name="Join").click()
    bob.wait_for_url(re.compile(rf"#/table/{table}$"))
    expect(ada.locator(".list li", has_text="Bob")).to_be_visible()

    # Ada: JC (wish diamonds), 4D (with "Mau"), draws 2H, KC (with "Mau"); Bob: 6D, 5D (no "Mau":
    # a penalty card, the 5C), 5C (with "Mau"), 3C (with "Mau-Mau": he wins).
    setup = setup_for(deck_of_house(), [["JC", "4D", "KC"], ["6D", "5D", "3C"]], "3H", ["5C", "2H"])
    Api(server, token_of(ada)).call("POST", f"tables/{table}/rounds", {"setup": setup})
    for page in (ada, bob):
        page.wait_for_url(re.compile(r"#/game/\d+$"))
        expect(page.locator("#hand .hand-card")).to_have_count(3)

    def play(page: Any, card: str, *, words: tuple[str, ...] = (), choice: str | None = None) -> None:
        expect(page.locator("#turn.yours")).to_be_visible()  # the page has the move before this one
        version = game_version(page)
        for word in words:
            page.locator(f".call[data-word='{word}']").click()
            expect(page.locator(f".call[data-word='{word}']")).to_have_attribute("aria-pressed", "true")
        page.locator(f".hand-card[data-card='{card}']").click()
        if choice:
            page.locator(f"dialog.chooser .suit-button[data-suit='{choice}']").click()
        wait_for_version_past(page, version)

    expect(bob.locator(".hand-card[data-card='6D']")).to_have_attribute("aria-disabled", "true")
    play(ada, "JC", choice="D")
    expect(bob.locator("#wish")).to_contain_text("diamonds")
    expect(bob.locator("#turn")).to_have_text("Your turn")
    expect(bob.locator(".hand-card[data-card='3C']")).to_have_attribute("aria-disabled", "true")
    play(bob, "6D")
    play(ada, "4D", words=("mau",))
    expect(bob.locator("#moves")).to_contain_text("Ada says “Mau!”")
    play(bob, "5D")
    expect(ada.locator("#seats [data-seat='1'] .count")).to_have_text("1 Karte")
    expect(ada.locator("#turn.yours")).to_be_visible()
    version = game_version(ada)
    ada.locator("#draw").click()
    wait_for_version_past(ada, version)
    expect(bob.locator("#moves")).to_contain_text("Bob draws 5 of clubs (forgot “Mau”)")
    expect(ada.locator("#seats [data-seat='1'] .count")).to_have_text("2 Karten")
    expect(ada.locator("#moves")).to_contain_text("Ada zieht Herz 2 · Ada passt")  # it does not fit: the turn passes
    play(bob, "5C", words=("mau",))
    play(ada, "KC", words=("mau",))
    play(bob, "3C", words=("maumau",))
    for page in (ada, bob):
        expect(page.locator("#game")).to_have_attribute("data-status", "finished")
    expect(bob.locator(".winner")).to_have_text("Bob wins")
    expect(ada.locator(".winner")).to_have_text("Bob gewinnt")
    screenshot(ada, "game-phone-finished")


def classic_round_bob_first(server: str) -> tuple[Api, Api, int]:
    """Ada and Bob at a classic table without a clock, dealt so that Bob opens with KS on 9S and Ada
    can answer with KH."""
    ada, bob = Api.guest(server, "Ada"), Api.guest(server, "Bob")
    table = ada.call("POST", "tables", {"rules": "classic", "options": {"turn_seconds": 0}})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    deck = [rank + suit for suit in "CSHD" for rank in ["7", "8", "9", "10", "J", "Q", "K", "A"]]
    setup = setup_for(deck, [["KH", "QC", "10C"], ["KS", "QS", "QH"]], "9S", [])
    setup["first"] = 1
    return ada, bob, ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]


def test_a_dropped_event_stream_resumes_without_losing_a_move(server: str, new_page: Any) -> None:
    ada, bob, game = classic_round_bob_first(server)

    port = int(server.rsplit(":", 1)[1])
    proxy = DroppingProxy(port)
    try:
        base = f"http://127.0.0.1:{proxy.port}"
        page = new_page(PHONE)
        page.goto(base + "/")
        page.evaluate(f"localStorage.setItem('maumau.token', '{ada.token}')")
        quick(page)
        page.goto(f"{base}/#/game/{game}")
        expect(page.locator("#stream-state")).to_have_attribute("data-state", "open")
        screenshot(page, "game-phone")

        proxy.drop()
        bob.call("POST", f"games/{game}/actions", {"type": "play", "cards": ["KS"]})
        expect(page.locator("#stream-state")).to_have_attribute("data-state", "lost")
        expect(page.locator("#moves")).not_to_contain_text("Bob plays")
        proxy.restore()

        expect(page.locator("#stream-state")).to_have_attribute("data-state", "open")
        expect(page.locator("#moves")).to_contain_text("Bob plays King of spades")
        expect(page.locator("#turn")).to_have_text("Your turn")
        seqs = [int(s) for s in page.locator("#moves li").evaluate_all("items => items.map(i => i.dataset.seq)")]
        assert sorted(seqs) == list(range(len(seqs))), seqs  # the deal, then every row once
        page.locator(".hand-card[data-card='KH']").click()
        expect(page.locator("#moves")).to_contain_text("Ada plays King of hearts")
    finally:
        proxy.close()


def test_a_failed_read_of_the_round_does_not_stop_later_reads(server: str, new_page: Any) -> None:
    """One read of the round cut by the network (a phone between two cells) must not leave the
    board behind the moves shown in the log: the next move reads the round again."""
    ada, bob, game = classic_round_bob_first(server)

    page = new_page(PHONE)
    page.goto(server + "/")
    page.evaluate(f"localStorage.setItem('maumau.token', '{ada.token}')")
    quick(page)
    page.goto(f"{server}/#/game/{game}")
    expect(page.locator("#stream-state")).to_have_attribute("data-state", "open")
    expect(page.locator(".hand-card[data-card='KH']")).to_have_count(1)

    cut: list[str] = []

    def cut_the_first_read(route: Any) -> None:
        if cut:
            route.continue_()
        else:
            cut.append(route.request.url)
            route.abort("internetdisconnected")

    page.route(re.compile(rf"/api/v1/games/{game}$"), cut_the_first_read)
    bob.call("POST", f"games/{game}/actions", {"type": "play", "cards": ["KS"]})
    expect(page.locator("#moves")).to_contain_text("Bob plays King of spades")
    expect(page.locator("#toast")).to_have_class(re.compile(r"\bshown\b"))  # the cut read failed
    ada.call("POST", f"games/{game}/actions", {"type": "play", "cards": ["KH"]})
    expect(page.locator("#moves")).to_contain_text("Ada plays King of hearts")
    expect(page.locator(".hand-card[data-card='KH']")).to_have_count(0)
    expect(page.locator("#turn")).to_have_text("Bob's turn")
    assert len(cut) == 1, cut


def test_the_lobby_fits_a_phone_screen(server: str, new_page: Any) -> None:
    page = new_page(PHONE)
    sign_up_as_guest(page, server, "Phil")
    screenshot(page, "lobby-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width


def test_play_now_and_a_challenge_take_a_browser_into_their_rounds(server: str, new_page: Any) -> None:
    page = new_page(PHONE)
    sign_up_as_guest(page, server, "Quinn")
    quick_play = page.locator("#quick-play")
    expect(quick_play.locator("#clock input:checked")).to_have_value("60")  # a person's default: never 5 s
    quick_play.get_by_label("Bots fill empty seats after 20 s").set_checked(False)
    quick_play.locator("button.play[data-rules='classic']").click()
    expect(page.locator("#seeks")).to_contain_text("Looking for players")

    rita = Api.guest(server, "Rita")
    seek = rita.call("POST", "seeks", {"rules": "classic", "players": 2, "turn_seconds": 60})
    assert seek["status"] == "matched", seek
    page.wait_for_url(re.compile(rf"#/game/{seek['game']}$"))
    expect(page.locator("#seats")).to_contain_text("Rita")
    expect(page.locator("#deadline")).to_contain_text(re.compile(r"\d+ s left|\d:\d\d min left"))

    me = int(page.evaluate("fetch('/api/v1/me', {headers: {Authorization: 'Token ' + localStorage.getItem("
                           "'maumau.token')}}).then(r => r.json()).then(b => b.id)"))
    page.goto(f"{server}/#/lobby")
    rita.call("POST", "challenges", {"to": [me], "rules": "tavern"})
    challenge = page.locator("#challenges li", has_text="from Rita")
    challenge.get_by_role("button", name="Accept").click()
    page.wait_for_url(re.compile(r"#/game/\d+$"))
    expect(page.locator("#game")).to_contain_text("Rita")

    # A challenge by username.
    answer = Api(server).call("POST", "accounts", {"username": "sam_the_dealer", "password": "a long pass phrase 1",
                                                   "device": "test"})
    assert answer["token"]
    page.goto(f"{server}/#/lobby")
    page.get_by_label("Username").fill("Sam_The_Dealer")
    page.locator("#challenge").get_by_role("button", name="Challenge").click()
    expect(page.locator("#challenges")).to_contain_text("sam_the_dealer", ignore_case=True)
