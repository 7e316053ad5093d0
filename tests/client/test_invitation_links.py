"""Invitation by link, in two browsers: a host opens a table of two "by link"; a person who is not signed
in opens the link, signs up from it (the link is kept), sees the table, its host and seats and one "Take a
seat" button, takes the seat; the host sees them arrive at once; both play a round to its end. A wrong
code and a used-up link are said in words.

The browser runs in this module only (module-scoped), as in test_playing_in_the_browser.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.client.browser_helpers import Api, look, setup_for

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

SKAT = [rank + suit for suit in "CSHD" for rank in ["7", "8", "9", "10", "J", "Q", "K", "A"]]


def test_an_invitee_signs_up_from_the_link_takes_the_seat_and_both_play_a_round(server: str, new_page: Any) -> None:
    hana = new_page()
    hana.goto(server + "/")
    hana.get_by_label("Your name").fill("Hana")
    hana.get_by_role("button", name="Play as guest").click()
    hana.evaluate("localStorage.setItem('maumau.pace', '0')")
    hana.locator("#invite-link").click()
    hana.wait_for_url(re.compile(r"#/table/\d+$"))
    table = int(hana.url.rsplit("/", 1)[1])
    expect(hana.locator("#table-state")).to_have_text(
        "Waiting for players: send them the invitation link, or add bots.")
    link = hana.locator("#invite").input_value()
    assert re.fullmatch(rf"{re.escape(server)}/#/join/{table}/[\w-]+", link), link

    ivo = new_page()
    ivo.goto(link)
    expect(ivo.locator("#invited")).to_contain_text(f"You are invited to table {table}")
    look(ivo, "invite-signed-out")
    signup = ivo.locator("section", has=ivo.get_by_role("heading", name="Create an account"))
    signup.get_by_label("Username").fill(f"ivo{table}")
    signup.get_by_label("Password").fill("a long and good password 7")
    signup.get_by_role("button", name="Sign up").click()
    expect(ivo).to_have_url(re.compile(rf"#/join/{table}/"))  # signing up kept the link
    panel = ivo.locator("section", has=ivo.get_by_role("heading", name="Invitation"))
    expect(panel).to_contain_text("Hana invites you to a table: Classic.")
    expect(panel.locator("#invite-seats li")).to_have_count(2)
    expect(panel.locator("#invite-seats li").first).to_contain_text("Hana")
    expect(panel.locator("#invite-seats li").nth(1)).to_have_text("free seat")
    assert ivo.locator("main button").count() == 1, "one action: take the seat"
    expect(ivo.get_by_role("button", name="Take a seat")).to_be_visible()
    look(ivo, "invite-link-page")
    ivo.evaluate("localStorage.setItem('maumau.pace', '0')")
    ivo.get_by_role("button", name="Take a seat").click()
    expect(ivo).to_have_url(re.compile(rf"#/table/{table}$"))
    expect(hana.locator(".list li", has_text=f"ivo{table}")).to_be_visible()  # the host sees them arrive
    expect(hana.get_by_role("button", name="Start round")).to_be_visible()

    # Hana: KH, then QC (Mau-Mau); Ivo: QH between. Classic says the calls for them.
    setup = setup_for(SKAT, [["KH", "QC"], ["QH", "7D", "8D", "9D", "AD"]], "10H", [])
    setup["first"] = 0
    token = str(hana.evaluate("localStorage.getItem('maumau.token')"))
    Api(server, token).call("POST", f"tables/{table}/rounds", {"setup": setup})
    for page in (hana, ivo):
        page.wait_for_url(re.compile(r"#/game/\d+$"))
    for page, card in ((hana, "KH"), (ivo, "QH"), (hana, "QC")):
        expect(page.locator("#turn.yours")).to_be_visible()
        page.locator(f".hand-card[data-card='{card}']").click()
        expect(page.locator(f".hand-card[data-card='{card}']")).to_have_count(0)
    for page in (hana, ivo):
        expect(page.locator("#game")).to_have_attribute("data-status", "finished")
        expect(page.locator(".winner")).to_have_text("Hana wins")


def test_a_wrong_code_and_a_used_up_link_are_said_in_words(server: str, new_page: Any) -> None:
    host, guest = Api.guest(server, "Hana"), Api.guest(server, "Ivo")
    table = host.call("POST", "tables", {"rules": "classic", "max_players": 2, "visibility": "private"})
    code = table["invite_code"]
    outsider = new_page()
    outsider.goto(server + "/")
    outsider.evaluate(f"localStorage.setItem('maumau.token', '{Api.guest(server, 'Olga').token}')")
    outsider.goto(f"{server}/#/join/{table['id']}/not-the-code")
    expect(outsider.locator("#invite-state")).to_have_text(
        "This invitation link does not work: its code is wrong, or the table no longer exists. "
        "Ask whoever sent it for a new link.")
    look(outsider, "invite-wrong-code")
    guest.call("POST", f"tables/{table['id']}/join", {"invite_code": code})
    outsider.goto(f"{server}/#/join/{table['id']}/{code}")
    expect(outsider.locator("#invite-state")).to_have_text(
        "Every seat at this table is taken: this invitation is used up.")
    assert outsider.get_by_role("button", name="Take a seat").count() == 0
    look(outsider, "invite-used-up")
