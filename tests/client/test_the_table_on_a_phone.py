"""The card table and the league page on a phone, in a real browser (Debian's chromium under Playwright)
against a live server: four and six seats at 360x740 without overlapping seat boxes, piles that stay
where they are when a wish appears, the jack chooser as four suit buttons with the extra jacks as a
control of their own, the house rules' "how to play" and the call explained before it costs a card,
the rating change on a rated round's result card and the player's own line on the leaderboard, and a
scoresheet that keeps its line-up for the next round. Screenshots go to ``var/screenshots``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client.browser_helpers import SCREENSHOTS, Api, deck_of_house, setup_for

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

TIMEOUT_MS = 10_000  # Playwright's default timeout for this module's pages (conftest.new_page)
SMALL_PHONE = {"width": 360, "height": 740}
PHONE = {"width": 390, "height": 844}
VIEWPORT = SMALL_PHONE  # this module's pages, unless a test asks for another size
CLASSIC_DECK = [rank + suit for suit in "CSHD" for rank in ["7", "8", "9", "10", "J", "Q", "K", "A"]]


def open_as(page: Any, base: str, token: str, hash_: str) -> None:
    page.goto(base + "/")
    page.evaluate(f"localStorage.setItem('maumau.token', '{token}'); localStorage.setItem('maumau.pace', '0')")
    page.goto(f"{base}/{hash_}")


def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    """The boxes of `selector`'s elements, read in one frame once every one of them is drawn: the table
    redraws its seats as the players' presence comes in, and boxes read one by one could straddle a
    redraw (a seat read between two draws measured 0 x 0)."""
    drawn = page.wait_for_function(
        "selector => { const boxes = [...document.querySelectorAll(selector)].map((n) => { "
        "const r = n.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; }); "
        "return boxes.length > 0 && boxes.every((b) => b.w > 0 && b.h > 0) && boxes; }", arg=selector)
    return drawn.json_value()


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    side_by_side = a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"]
    one_above_the_other = a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]
    return not (side_by_side or one_above_the_other)


def table_with_bots(server: str, host: Api, seats: int, rules: str = "house") -> int:
    table = host.call("POST", "tables", {"rules": rules, "max_players": seats, "options": {"turn_seconds": 0}})["id"]
    for _ in range(seats - 1):
        host.call("POST", f"tables/{table}/bots", {"level": "basic"})
    return table


@pytest.mark.parametrize("seats", [4, 6])
def test_four_and_six_seats_on_a_small_phone_do_not_overlap_and_keep_the_names(server: str, new_page: Any,
                                                                                seats: int) -> None:
    ada = Api.guest(server, "Adelheid Kunigunde")
    table = table_with_bots(server, ada, seats)
    # A fixed deal, Ada first: nothing moves before the boxes are measured (a fair six-seat house deal
    # leaves six cards to draw, and the bots may end the round by running out of them).
    hands = [[f"{rank}{suit}" for rank in ("4", "5", "6")] for suit in "CSHD"]
    hands += [["8C", "8S", "8H"], ["9C", "9S", "9H"]]
    setup = setup_for(deck_of_house(), hands[:seats], "3D", [])
    setup["first"] = 0
    game = ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]
    page = new_page(SMALL_PHONE)
    open_as(page, server, ada.token, f"#/game/{game}")
    expect(page.locator("#seats .seat")).to_have_count(seats)
    expect(page.locator("#turn")).to_have_text("Your turn")
    expect(page.locator("#game")).to_have_attribute("data-settled", "true")
    found = boxes(page, "#seats .seat")
    felt = boxes(page, "#felt")[0]
    screenshot(page, f"table-{seats}-seats-360")
    for index, box in enumerate(found):
        assert box["w"] > 60 and box["h"] > 30, box
        assert felt["x"] <= box["x"] and box["x"] + box["w"] <= felt["x"] + felt["w"], (box, felt)
        for other in found[index + 1:]:
            assert not overlap(box, other), (box, other)
    piles = boxes(page, "#felt .middle")[0]
    assert not any(overlap(box, piles) for box in found)
    # A long name is shortened with care on the seat; the full one is its accessible name and tooltip.
    seat = page.locator(".seat[data-seat='1'] .name")
    expect(seat).to_have_attribute("title", "Bot 1 (medium)")
    expect(seat.locator("[aria-hidden='true']")).to_have_text("Bot 1")
    expect(seat.locator(".sr-only").first).to_have_text("Bot 1 (medium)")
    screenshot(page, f"table-{seats}-seats-360")


def test_the_piles_stay_put_when_a_wish_appears(server: str, new_page: Any) -> None:
    ada, bob = Api.guest(server, "Ada"), Api.guest(server, "Bob")
    table = ada.call("POST", "tables", {"rules": "classic", "max_players": 2, "options": {"turn_seconds": 0}})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    setup = setup_for(CLASSIC_DECK, [["JC", "7C", "8C"], ["KS", "QS", "QH"]], "9C", [])
    setup["first"] = 0
    game = ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]
    page = new_page(PHONE)
    open_as(page, server, ada.token, f"#/game/{game}")
    expect(page.locator("#turn")).to_have_text("Your turn")
    # Both measured with the stream open: the header's "Live" (or "Connection lost, ...") changes its
    # height at this width, which is not the wish's doing.
    live = page.locator("#stream-state")
    expect(live).to_have_attribute("data-state", "open")
    expect(page.locator("#game")).to_have_attribute("data-settled", "true")
    before = boxes(page, "#stock-pile, #top-card, #seats .seat")
    page.locator(".hand-card[data-card='JC']").click()
    expect(page.locator("dialog.chooser .suit-button")).to_have_count(4)
    page.locator("dialog.chooser .suit-button[data-suit='H']").click()
    expect(page.locator("#wish")).to_contain_text("hearts")
    expect(live).to_have_attribute("data-state", "open")
    expect(page.locator("#game")).to_have_attribute("data-settled", "true")
    after = boxes(page, "#stock-pile, #top-card, #seats .seat")
    assert after == before


def test_the_jack_chooser_is_four_suits_and_a_count_of_extra_jacks(server: str, new_page: Any) -> None:
    ada, bob = Api.guest(server, "Ada"), Api.guest(server, "Bob")
    table = ada.call("POST", "tables", {"rules": "house", "max_players": 2, "options": {"turn_seconds": 0}})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    setup = setup_for(deck_of_house(), [["JC", "JH"], ["4D", "5D", "6D"]], "3C", [])
    setup["first"] = 0
    game = ada.call("POST", f"tables/{table}/rounds", {"setup": setup})["id"]
    page = new_page(SMALL_PHONE)
    open_as(page, server, ada.token, f"#/game/{game}")
    expect(page.locator("#turn")).to_have_text("Your turn")
    # How to play, from the table: the house calls among the rules.
    page.locator("#help-open").click()
    expect(page.locator("dialog#help")).to_contain_text("“Pik” when you play a spade")
    screenshot(page, "help-house-360")
    page.locator("dialog#help").get_by_role("button", name="Close").click()
    expect(page.locator("dialog#help")).to_have_count(0)

    page.locator(".hand-card[data-card='JC']").click()
    chooser = page.locator("dialog.chooser")
    expect(chooser.locator(".suit-button")).to_have_count(4)
    expect(chooser.locator(".suit-button")).to_have_text(["♣clubs", "♠spades", "♥hearts", "♦diamonds"])
    extra = chooser.get_by_role("group", name="Extra jacks on top")
    expect(extra.get_by_role("button")).to_have_text(["Go out with Jack of hearts on top (points ×2)"])
    screenshot(page, "chooser-jacks-360")
    extra.get_by_role("button").click()
    # Her last cards ask for "Mau-Mau": the call is explained once, before it costs her the win.
    hint = page.locator("dialog.chooser")
    expect(hint).to_contain_text("Mau-Mau")
    hint.locator("#hint-say").click()
    expect(page.locator("#game")).to_have_attribute("data-status", "finished")
    expect(page.locator("#multiplier")).to_contain_text("2")
    expect(page.locator(".winner")).to_have_text("Ada wins")


def fair_round_played_out(server: str, ada: Api, bob: Api) -> int:
    """A fair classic round between two people, played to its end over the API, that was rated.

    Each plays the first card they may, else draws or passes. Now and then a deal lets one of them win
    before the other has played a card at all; such a round is not rated (a seat that only drew is the
    sock's pattern, scoring.ratings), so the next round at the table is played, at most three in all
    (the same two are rated three times a day)."""
    table = ada.call("POST", "tables", {"rules": "classic", "max_players": 2, "options": {"turn_seconds": 0}})["id"]
    bob.call("POST", f"tables/{table}/join", {})
    for _ in range(3):
        game = ada.call("POST", f"tables/{table}/rounds", {})["id"]
        players = {0: ada, 1: bob}
        played_a_card = set()
        for _ in range(500):
            view = ada.call("GET", f"games/{game}")
            if view["status"] != "active":
                break
            player = players[view["turn"]]
            legal = player.call("GET", f"games/{game}")["legal_actions"]
            action = next((a for a in legal if a["type"] == "play"), None) or next(
                a for a in legal if a["type"] in ("draw", "pass"))
            player.call("POST", f"games/{game}/actions", {k: v for k, v in action.items() if k != "as_choices"})
            if action["type"] == "play":
                played_a_card.add(view["turn"])
        view = ada.call("GET", f"games/{game}")
        assert view["status"] == "finished"
        if all(line["rating"] for line in view["result"]["players"]):
            return game
        assert played_a_card != {0, 1}, "a round in which both played a card was not rated"
    raise AssertionError("three rounds in a row were won before the loser had played a card")


def test_a_rated_rounds_result_card_shows_the_rating_change_and_the_leaderboard_your_line(
        server: str, new_page: Any) -> None:
    ada, bob = Api.guest(server, "Ada"), Api.guest(server, "Bob")
    game = fair_round_played_out(server, ada, bob)
    mine = next(line for line in ada.call("GET", f"games/{game}")["result"]["players"]
                if line["player"] == ada.player_id)
    assert mine["rating"]["before"] == 1500
    page = new_page(PHONE)
    open_as(page, server, ada.token, f"#/game/{game}")
    change = page.locator("#rating-change")
    expect(change).to_contain_text(f"Your rating: 1500 → {mine['rating']['after']}")
    expect(change.locator(".badge")).to_have_text("provisional")
    expect(page.locator("#result thead")).to_contain_text("Rating")
    screenshot(page, "result-rating-390")

    page.goto(f"{server}/#/ratings/classic")
    expect(page.locator("#my-rating")).to_contain_text(str(mine["rating"]["after"]))
    expect(page.locator("#my-rating")).to_contain_text("Provisional: fewer than 10 rated rounds")
    expect(page.locator("#leaderboard tr.yours")).to_contain_text("Ada")
    screenshot(page, "ratings-390")


def test_the_scoresheet_keeps_its_line_up_for_the_next_round(server: str, new_page: Any) -> None:
    mara, jonas, kim = Api.guest(server, "Mara"), Api.guest(server, "Jonas"), Api.guest(server, "Kim")
    league = mara.call("POST", "leagues", {"name": "The Anchor", "rules": "house", "scorekeeper_alone": True})
    for member in (jonas, kim):
        member.call("POST", f"leagues/{league['id']}/join", {"code": league["invite_code"]})
    page = new_page(PHONE)
    open_as(page, server, mara.token, f"#/league/{league['id']}")
    page.locator("#sheet-seat-0").select_option(str(kim.player_id))
    page.locator("#sheet-seat-1").select_option(str(mara.player_id))
    page.locator("#sheet-seat-2").select_option(str(jonas.player_id))
    for points in ("12", "7"):
        page.locator(f"#sheet-points-{mara.player_id}").fill(points)
        page.locator(f"#sheet-points-{jonas.player_id}").fill("30")
        page.get_by_role("button", name="Record the round").click()
        expect(page.locator("#sheet-answer")).to_be_focused()
        for seat, player in enumerate((kim, mara, jonas)):
            expect(page.locator(f"#sheet-seat-{seat}")).to_have_value(str(player.player_id))
    expect(page.locator("#league-rounds li.round")).to_have_count(2)
    expect(page.locator("#seasons")).to_contain_text("rounds: 2")
    screenshot(page, "league-sheet-two-rounds-390")
