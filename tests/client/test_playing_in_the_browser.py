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
from typing import Any

import pytest

from tests.client.browser_helpers import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    Api,
    DroppingProxy,
    deck_of_house,
    setup_for,
)

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

TIMEOUT_MS = 10_000


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
    page.get_by_role("button", name="Add bot: medium bot").click()
    expect(page.locator(".list li", has_text="Bot 1")).to_be_visible()
    page.get_by_role("button", name="Add bot: medium bot").click()  # a round with a random bot is not rated
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

    def play(page: Any, card: str, *, words: tuple[str, ...] = (), choice: str | None = None,
             untold: str | None = None) -> None:
        expect(page.locator("#turn.yours")).to_be_visible()  # the page has the move before this one
        version = game_version(page)
        for word in words:
            page.locator(f".call[data-word='{word}']").click()
            expect(page.locator(f".call[data-word='{word}']")).to_have_attribute("aria-pressed", "true")
        page.locator(f".hand-card[data-card='{card}']").click()
        if untold:  # the first play that asks for a call not armed explains it once, before it costs a card
            expect(page.locator("dialog.chooser")).to_contain_text(untold)
            page.locator("#hint-skip").click()
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
    play(bob, "5D", untold="Say “Mau”")
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
    for page in (ada, bob):  # each saw the other's cards fly in
        assert int(page.locator("#game").get_attribute("data-animations") or 0) > 0
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
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= 2 * PHONE["height"], height
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


WIDE = {"width": 1366, "height": 900}
CLASSIC_DECK = [rank + suit for suit in "CSHD" for rank in ["7", "8", "9", "10", "J", "Q", "K", "A"]]


def open_as(page: Any, base: str, token: str, hash_: str, *, pace: str | None = "0") -> None:
    page.goto(base + "/")
    page.evaluate(f"localStorage.setItem('maumau.token', '{token}')")
    if pace is not None:
        page.evaluate(f"localStorage.setItem('maumau.pace', '{pace}')")
    page.goto(f"{base}/{hash_}")


def round_against_three_bots(server: str) -> tuple[Api, int]:
    """Gina and three basic bots at a classic table without a clock; Gina opens with 10S on 9S."""
    gina = Api.guest(server, "Gina")
    table = gina.call("POST", "tables", {"rules": "classic", "max_players": 4, "options": {"turn_seconds": 0}})["id"]
    for _ in range(3):
        gina.call("POST", f"tables/{table}/bots", {"level": "basic"})
    hands = [["10S", "KH", "QC", "8D", "AH"], ["7C", "9C", "10C", "KC", "AC"],
             ["7D", "9D", "10D", "KD", "AD"], ["7H", "8H", "10H", "QH", "9H"]]
    setup = setup_for(CLASSIC_DECK, hands, "9S", [])
    setup["first"] = 0
    return gina, gina.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]


RECORD_STEPS = """() => {
  window.steps = [];
  const game = document.getElementById("game");
  new MutationObserver(() => {
    const top = document.getElementById("top-card");
    window.steps.push({shown: Number(game.dataset.shown), settled: game.dataset.settled,
                       top: top ? top.dataset.card : null});
  }).observe(game, {attributes: true, attributeFilter: ["data-shown"]});
}"""


def test_bot_replies_are_shown_one_by_one_with_cards_flying(server: str, new_page: Any) -> None:
    gina, game = round_against_three_bots(server)
    page = new_page(WIDE)
    open_as(page, server, gina.token, f"#/game/{game}", pace="150")
    expect(page.locator("#turn")).to_have_text("Your turn")
    expect(page.locator("#seats .seat")).to_have_count(4)
    screenshot(page, "table-desktop")
    page.evaluate(RECORD_STEPS)
    page.locator(".hand-card[data-card='10S']").click()
    # Gina's card and the three bots' answers: four rows, each shown on its own before the next.
    expect(page.locator("#game")).to_have_attribute("data-version", "4", timeout=20_000)
    expect(page.locator("#turn")).to_have_text("Your turn")
    steps = page.evaluate("window.steps")
    shown = [step["shown"] for step in steps if step["settled"] == "false"]
    assert sorted(set(shown)) == [1, 2, 3, 4], steps
    tops = [step["top"] for step in steps if step["settled"] == "false"]
    assert tops[0] == "10S" and len(set(tops)) >= 2, steps  # the pile changed from one step to the next
    assert int(page.locator("#game").get_attribute("data-animations") or 0) >= 4
    expect(page.locator("#top-card")).to_have_class(re.compile(r"\blast\b"))


def test_reduced_motion_shows_the_rows_without_any_animation(server: str, browser: Any) -> None:
    gina, game = round_against_three_bots(server)
    context = browser.new_context(viewport=PHONE, reduced_motion="reduce")
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        open_as(page, server, gina.token, f"#/game/{game}", pace=None)
        expect(page.locator("#turn")).to_have_text("Your turn")
        screenshot(page, "table-phone")
        page.evaluate(RECORD_STEPS)
        page.evaluate("window.animationsSeen = 0;"
                      "document.addEventListener('animationstart', () => window.animationsSeen++);"
                      "document.addEventListener('transitionstart', () => window.animationsSeen++)")
        page.locator(".hand-card[data-card='10S']").click()
        expect(page.locator("#game")).to_have_attribute("data-version", "4", timeout=20_000)
        assert len({step["shown"] for step in page.evaluate("window.steps")}) >= 4  # still one row at a time
        assert page.locator("#game").get_attribute("data-animations") == "0"
        assert page.evaluate("document.getAnimations().length") == 0
        assert page.evaluate("window.animationsSeen") == 0
    finally:
        context.close()


def test_a_queen_of_hearts_swaps_hands_with_the_seat_tapped(server: str, new_page: Any) -> None:
    ada, bob = Api.guest(server, "Ada"), Api.guest(server, "Bob")
    table = ada.call("POST", "tables", {"rules": "house", "max_players": 2, "options": {"turn_seconds": 0}})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    setup = setup_for(deck_of_house(), [["QH", "7C"], ["5H", "8D", "9D"]], "3H", [])
    setup["first"] = 0
    game = ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]
    ada_page, bob_page = new_page(PHONE), new_page(WIDE)
    open_as(ada_page, server, ada.token, f"#/game/{game}")
    open_as(bob_page, server, bob.token, f"#/game/{game}")
    expect(ada_page.locator("#turn")).to_have_text("Your turn")
    ada_page.locator(".hand-card[data-card='QH']").click()
    expect(ada_page.locator(".seat.target")).to_have_count(1)
    screenshot(ada_page, "chooser-target-phone")
    ada_page.get_by_role("button", name="Swap hands with Bob").click()
    expect(bob_page.locator("#top-card")).to_have_attribute("data-card", "QH")
    expect(bob_page.locator("#hand .hand-card")).to_have_count(1)
    expect(bob_page.locator(".hand-card[data-card='7C']")).to_have_count(1)
    expect(ada_page.locator("#hand .hand-card")).to_have_count(3)
    expect(bob_page.locator("#moves")).to_contain_text("Ada and Bob swap hands")
    assert int(bob_page.locator("#game").get_attribute("data-animations") or 0) > 0


def test_the_wish_is_four_suit_buttons(server: str, new_page: Any) -> None:
    ada, bob = Api.guest(server, "Ada"), Api.guest(server, "Bob")
    table = ada.call("POST", "tables", {"rules": "classic", "max_players": 2, "options": {"turn_seconds": 0}})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    setup = setup_for(CLASSIC_DECK, [["JC", "7C", "8C"], ["KS", "QS", "QH"]], "9C", [])
    setup["first"] = 0
    game = ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]
    for viewport, name in ((PHONE, "phone"), (WIDE, "desktop")):
        page = new_page(viewport)
        open_as(page, server, ada.token, f"#/game/{game}")
        expect(page.locator("#turn")).to_have_text("Your turn")
        page.locator(".hand-card[data-card='JC']").click()
        expect(page.locator("dialog.chooser .suit-button")).to_have_count(4)
        screenshot(page, f"chooser-wish-{name}")
        if name == "desktop":
            page.locator("dialog.chooser .suit-button[data-suit='H']").click()
            expect(page.locator("#wish")).to_contain_text("hearts")
        else:
            page.get_by_role("button", name="Cancel").click()


def finished_classic_round(server: str) -> tuple[Api, int]:
    """Bob opens with KS on 9S, Ada answers KH, Bob QH, Ada goes out with 9H (each call said as it falls due)."""
    ada, bob = Api.guest(server, "Ada"), Api.guest(server, "Bob")
    table = ada.call("POST", "tables", {"rules": "classic", "options": {"turn_seconds": 0}})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    setup = setup_for(CLASSIC_DECK, [["KH", "9H"], ["KS", "QH", "7C"]], "9S", [])
    setup["first"] = 1
    game = ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]
    for player, card in ((bob, "KS"), (ada, "KH"), (bob, "QH"), (ada, "9H")):
        view = player.call("GET", f"games/{game}")
        action = next(a for a in view["legal_actions"] if a["type"] == "play" and a["cards"] == [card])
        body = {key: value for key, value in action.items() if key != "as_choices"}
        player.call("POST", f"games/{game}/actions", body)
    assert ada.call("GET", f"games/{game}")["status"] == "finished"
    return ada, game


def test_a_replay_steps_through_a_finished_round_with_every_hand_shown(server: str, new_page: Any) -> None:
    ada, game = finished_classic_round(server)
    page = new_page(PHONE)
    open_as(page, server, ada.token, "#/history")
    page.locator(f"a[href='#/replay/{game}']").first.click()
    expect(page.locator("#replay-step")).to_have_text(re.compile(r"^Move 0 of \d+$"))
    expect(page.locator("#replay")).to_have_attribute("data-revealed", "true")
    expect(page.locator(".replay-seat[data-seat='1'] .card[data-card='7C']")).to_have_count(1)  # Bob's hand, shown
    expect(page.locator("#replay-top")).to_have_attribute("data-card", "9S")
    page.locator("#replay-next").click()
    expect(page.locator("#replay-step")).to_have_text(re.compile(r"^Move 1 of"))
    expect(page.locator("#replay-top")).to_have_attribute("data-card", "KS")
    expect(page.locator("#replay-text")).to_contain_text("Bob plays King of spades")
    page.locator("#replay-next").click()
    expect(page.locator("#replay-top")).to_have_attribute("data-card", "KH")
    page.locator("#replay-last").click()
    expect(page.locator("#replay-top")).to_have_attribute("data-card", "9H")
    expect(page.locator(".replay-seat[data-seat='0'] .card")).to_have_count(0)  # Ada went out
    screenshot(page, "replay-phone")
    page.set_viewport_size(WIDE)
    page.locator("#replay-prev").click()
    expect(page.locator("#replay-top")).to_have_attribute("data-card", "QH")
    screenshot(page, "replay-desktop")
    page.set_viewport_size(PHONE)
    page.goto(f"{server}/#/game/{game}")
    expect(page.locator("#place")).to_have_text("You placed 1st of 2")
    expect(page.locator("#replay-link")).to_be_visible()
    screenshot(page, "result-phone")
    page.set_viewport_size(WIDE)
    screenshot(page, "result-desktop")


def test_a_league_created_in_the_client_shows_its_standings_and_race(server: str, new_page: Any) -> None:
    page = new_page(WIDE)
    sign_up_as_guest(page, server, "Lena")
    page.goto(f"{server}/#/leagues")
    page.get_by_label("Name").fill("Friday night")
    page.get_by_role("button", name="Create league").click()
    page.wait_for_url(re.compile(r"#/league/\d+$"))
    league = int(page.url.rsplit("/", 1)[1])
    expect(page.locator("#league-invite")).to_have_value(re.compile(rf"#/league/{league}"))
    # Two rounds at a league table against a bot, played over the API; the page draws the race.
    lena = Api(server, token_of(page))
    table = lena.call("POST", "tables", {"rules": "house", "league": league, "max_players": 2,
                                         "options": {"turn_seconds": 0}})["id"]
    lena.call("POST", f"tables/{table}/bots", {"level": "basic"})
    for _ in range(2):
        game = lena.call("POST", f"tables/{table}/rounds", {})["id"]
        for _turn in range(400):
            view = lena.call("GET", f"games/{game}")
            if view["status"] == "finished":
                break
            if view["turn"] != view["seat"]:
                continue
            action = next((a for a in view["legal_actions"] if a["type"] == "play"), None) or next(
                a for a in view["legal_actions"] if a["type"] in ("draw", "pass"))
            body = {key: value for key, value in action.items() if key != "as_choices"}
            if isinstance(body.get("as"), dict):
                body["as"] = {k: v[0] if isinstance(v, list) else v for k, v in body["as"].items()}
            body["say"] = action.get("say", [])
            if not body["say"]:
                body.pop("say")
            lena.http.post(f"games/{game}/actions", json=body)
        assert lena.call("GET", f"games/{game}")["status"] == "finished"
    page.reload()
    expect(page.locator("#race polyline.runner")).to_have_count(2)
    expect(page.locator("#race-limit")).to_have_count(1)
    expect(page.locator(".scores tbody tr")).to_have_count(2)
    screenshot(page, "league-desktop")
    page.set_viewport_size(PHONE)
    page.reload()  # the chart is drawn at the width it is shown
    expect(page.locator("#race polyline.runner")).to_have_count(2)
    screenshot(page, "league-phone")


def test_a_pub_league_keeps_its_scoresheet_in_the_browser_and_the_other_player_confirms_it(
        server: str, new_page: Any) -> None:
    owner = new_page(WIDE)
    sign_up_as_guest(owner, server, "Mara")
    owner.goto(f"{server}/#/leagues")
    owner.get_by_label("Name").fill("The Crown, Tuesdays")
    owner.get_by_label("Who sees it").select_option("private")
    owner.get_by_label("Next season").select_option("owner")
    owner.get_by_role("button", name="Create league").click()
    owner.wait_for_url(re.compile(r"#/league/\d+$"))
    league = int(owner.url.rsplit("/", 1)[1])
    expect(owner.locator("#league-facts")).to_contain_text("season 1")
    expect(owner.locator("#league-facts")).to_contain_text("private")
    expect(owner.get_by_text("send the invitation link first")).to_be_visible()
    link = owner.locator("#league-invite").input_value()
    assert re.search(rf"#/league/{league}/join/[\w-]+$", link), link  # token_urlsafe: letters, digits, _ and -

    # The second player joins by the invitation link, in a browser of their own.
    guest = new_page(PHONE)
    sign_up_as_guest(guest, server, "Jonas")
    guest.goto(link)
    expect(guest.locator("#members li")).to_have_count(2)
    expect(guest.locator("#sheet")).to_have_count(0)  # a member, not a scorekeeper

    # The owner records a round: Mara wins with one extra jack, Jonas holds 23 points.
    owner.reload()
    expect(owner.locator("#members li")).to_have_count(2)
    expect(owner.locator("#sheet-seat-0")).to_have_value(str(Api(server, token_of(owner)).call("GET", "me")["id"]))
    owner.get_by_role("button", name="Record the round").click()  # no points for Jonas: the server's message
    expect(owner.locator("#toast")).to_contain_text("one of the two")
    expect(owner.locator("#league-rounds")).to_have_count(0)
    points = owner.get_by_label(re.compile(r"^Jonas: points in hand \(0 to 514\)"))
    expect(points).to_have_attribute("max", "514")
    points.fill("23")
    owner.get_by_label("Extra jacks on the last card").fill("1")
    owner.get_by_role("button", name="Record the round").click()
    answer = owner.locator("#sheet-answer")
    expect(answer).to_contain_text("pending")
    expect(answer).to_contain_text("Jonas")
    expect(answer).to_contain_text("46 points")
    expect(answer).to_contain_text("×2")
    row = owner.locator("#league-rounds li.round")
    expect(row).to_have_attribute("data-status", "pending")
    expect(row).to_contain_text("recorded on the sheet")
    expect(row.get_by_role("button", name="Confirm")).to_have_count(0)  # not the recorder's own entry
    screenshot(owner, "league-sheet-recorded-desktop")

    # Jonas confirms it on his phone; it counts in the standings and the race.
    guest.reload()
    guest_row = guest.locator("#league-rounds li.round")
    expect(guest_row).to_have_attribute("data-status", "pending")
    guest_row.get_by_role("button", name="Confirm").click()
    expect(guest.locator("#league-rounds li.round")).to_have_attribute("data-status", "counted")
    expect(guest.locator("#league-rounds li.round button")).to_have_count(0)
    expect(guest.locator(".scores tbody tr")).to_have_count(2)
    expect(guest.locator(".scores tbody tr", has_text="Jonas")).to_contain_text("46")
    expect(guest.locator("#race polyline.runner")).to_have_count(2)

    # The owner's open page follows without a reload: the answer box, the row and the standings.
    expect(owner.locator("#sheet-answer")).to_have_attribute("data-status", "counted", timeout=15_000)
    expect(owner.locator("#sheet-answer")).to_contain_text("counted")
    expect(owner.locator("#league-rounds li.round")).to_have_attribute("data-status", "counted")
    expect(owner.locator(".scores tbody tr", has_text="Jonas")).to_contain_text("46")
    owner.reload()
    expect(owner.locator("#league-rounds li.round")).to_have_attribute("data-status", "counted")
    expect(owner.locator(".scores tbody tr", has_text="Jonas")).to_contain_text("46")
    expect(owner.locator("#race polyline.runner")).to_have_count(2)
    expect(owner.locator("#seasons li")).to_have_count(1)
    # The owner makes Jonas scorekeeper.
    owner.get_by_role("button", name="Make Jonas scorekeeper").click()
    expect(owner.locator("#members li", has_text="Jonas")).to_contain_text("scorekeeper")
    guest.reload()
    expect(guest.locator("#sheet")).to_be_visible()
    screenshot(owner, "league-sheet-desktop")
    owner.set_viewport_size(PHONE)
    owner.reload()  # the chart is drawn at the width it is shown
    expect(owner.locator("#race polyline.runner")).to_have_count(2)
    screenshot(owner, "league-sheet-phone")

    # A hand of the whole deck but the card on the pile (the cheapest, a 2) takes Jonas past the limit: the season
    # waits for the owner, who starts the next;
    # the past season keeps its loser, standings and race.
    mara, jonas = Api(server, token_of(owner)), Api(server, token_of(guest))
    mara_id = mara.call("GET", "me")["id"]
    jonas_id = jonas.call("GET", "me")["id"]
    big = mara.call("POST", f"leagues/{league}/rounds", {"players": [{"player": mara_id, "cards": []},
                                                                     {"player": jonas_id, "points": 512}],
                                                         "winner": mara_id, "extra_jacks": 0})
    jonas.call("POST", f"leagues/{league}/rounds/{big['id']}/confirm", {})
    owner.set_viewport_size(WIDE)
    owner.reload()
    expect(owner.locator("#league-facts")).to_contain_text("waiting for the owner")
    expect(owner.locator("#sheet")).to_have_count(0)
    owner.get_by_role("button", name="Start season 2").click()
    expect(owner.locator("#league-facts")).to_contain_text("season 2")
    expect(owner.locator("#seasons li")).to_have_count(2)
    expect(owner.locator("#seasons li", has_text="season 1")).to_contain_text("Jonas lost")
    expect(owner.locator("#race")).to_have_count(0)  # a fresh season
    owner.get_by_role("button", name="Show season 1").click()
    expect(owner.locator("#season-shown")).to_contain_text("season 1")
    expect(owner.get_by_role("heading", name="Standings of season 1")).to_be_visible()
    expect(owner.locator(".scores tbody tr", has_text="Jonas")).to_contain_text("558")
    expect(owner.locator("#race polyline.runner")).to_have_count(2)
    expect(owner.locator("#league-rounds li.round")).to_have_count(2)


def test_a_scorekeeper_corrects_a_counted_round_on_the_sheet_and_the_confirmed_correction_replaces_it(
        server: str, new_page: Any) -> None:
    mara, jonas = Api.guest(server, "Mara"), Api.guest(server, "Jonas")
    league = mara.call("POST", "leagues", {"name": "The Anchor, Thursdays", "rules": "house", "visibility": "private"})
    jonas.call("POST", f"leagues/{league['id']}/join", {"code": league["invite_code"]})
    wrong = mara.call("POST", f"leagues/{league['id']}/rounds", {
        "players": [{"player": mara.player_id, "cards": []}, {"player": jonas.player_id, "points": 23}],
        "winner": mara.player_id, "extra_jacks": 1})
    jonas.call("POST", f"leagues/{league['id']}/rounds/{wrong['id']}/confirm", {})
    page = new_page(WIDE)
    open_as(page, server, mara.token, f"#/league/{league['id']}")
    jonas_row = page.locator(".scores tbody tr", has_text="Jonas")
    expect(jonas_row).to_contain_text("46")
    expect(page.get_by_role("button", name="Correct round 1")).to_have_count(1)

    # The sheet opens on the entry as it was recorded, and the heading takes the focus.
    page.get_by_role("button", name="Correct round 1").click()
    expect(page.locator("#sheet-title")).to_have_text("Correct round 1")
    expect(page.locator("#sheet-title")).to_be_focused()
    expect(page.locator("#sheet-seat-0")).to_have_value(str(mara.player_id))
    expect(page.locator("#sheet-seat-1")).to_have_value(str(jonas.player_id))
    expect(page.locator(f"#sheet-points-{jonas.player_id}")).to_have_value("23")
    expect(page.locator("#sheet-jacks")).to_have_value("1")
    # The server's refusal shows as every other one does; nothing is recorded.
    page.locator(f"#sheet-cards-{jonas.player_id}").fill("QH ZZ")
    page.get_by_role("button", name="Record the correction").click()
    expect(page.locator("#toast")).to_contain_text("not in the league's deck")
    expect(page.locator("#league-rounds li.round")).to_have_count(1)

    page.locator(f"#sheet-cards-{jonas.player_id}").fill("")
    page.locator(f"#sheet-points-{jonas.player_id}").fill("30")
    page.locator("#sheet-jacks").fill("0")
    page.get_by_role("button", name="Record the correction").click()
    answer = page.locator("#sheet-answer")
    expect(answer).to_have_attribute("data-status", "pending")
    expect(answer).to_contain_text("corrects round 1")
    expect(answer).to_contain_text("30 points")
    expect(answer).to_be_focused()
    expect(page.locator("#sheet-title")).to_have_text("Record a round")
    rows = page.locator("#league-rounds li.round")
    expect(rows).to_have_count(2)
    # A correction is not a round of its own: it carries the number of the round it corrects.
    expect(rows.nth(1)).to_contain_text("Correction of round 1")
    expect(jonas_row).to_contain_text("46")  # until the correction counts

    # Jonas confirms it elsewhere: Mara's open page shows the correction counted and round 1 corrected.
    correction = jonas.call("GET", f"leagues/{league['id']}/rounds")["results"][-1]
    assert correction["corrects"] == wrong["id"]
    jonas.call("POST", f"leagues/{league['id']}/rounds/{correction['id']}/confirm", {})
    expect(answer).to_have_attribute("data-status", "counted", timeout=15_000)
    expect(rows.nth(0)).to_have_attribute("data-status", "corrected")
    expect(rows.nth(1)).to_have_attribute("data-status", "counted")
    expect(jonas_row).to_contain_text("30")
    expect(rows.nth(0).get_by_role("button", name="Correct round 1")).to_have_count(0)  # it no longer stands
    expect(rows.nth(1).get_by_role("button", name="Correct round 1")).to_have_count(1)  # the correction does
    expect(page.locator("#seasons")).to_contain_text("rounds: 1 · corrections: 1")
    expect(page.locator("#counts-help")).to_be_visible()
    screenshot(page, "league-sheet-corrected-desktop")
    page.set_viewport_size(PHONE)
    page.reload()
    expect(rows.nth(0)).to_have_attribute("data-status", "corrected")
    screenshot(page, "league-sheet-corrected-phone")
    rows.nth(1).get_by_role("button", name="Correct round 1").click()
    expect(page.locator("#sheet-title")).to_be_focused()
    screenshot(page, "league-sheet-correcting-phone")
    page.get_by_role("button", name="Cancel the correction").click()
    expect(rows.nth(1).get_by_role("button", name="Correct round 1")).to_be_focused()
    expect(page.locator("#sheet-title")).to_have_text("Record a round")
