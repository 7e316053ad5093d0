"""The `tavern` rule text's worked example ("Beispiel"), replayed exactly over HTTP."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.games.api_helpers import act, setup_for, view

pytestmark = pytest.mark.django_db

YOU = ["KH", "7S", "7C", "8C", "JS", "4D", "2H"]
KALLE = ["KS", "7D", "4S", "QH", "10C", "3S", "5H"]  # the rest: no 7, no diamond, no jack
SIX = ["2C", "3C", "5C", "6C", "9C", "10S"]  # the six penalty cards Kalle draws
MISS = "QC"  # Kalle's one draw that does not fit the wished diamonds
STOCK_TOP = [*SIX, MISS, "4H"]  # then seat 0 draws 4H and plays it at once


def test_seed_001_worked_example_to_mau_mau(two_people) -> None:  # type: ignore[no-untyped-def]
    setup = setup_for("tavern", [YOU, KALLE], "9H", STOCK_TOP)
    # The practice setup deals 7 cards each; a setup fixes the hands whatever the hand_size option says.
    _table, you, kalle, game = two_people("tavern", setup=setup)
    gid = game["id"]
    assert game["hand"] == YOU and game["top_card"] == "9H" and game["turn"] == 0

    def step(client, action, **expect):  # type: ignore[no-untyped-def]
        response = act(client, gid, action)
        assert response.status_code == 200, (action, response.json())
        body = response.json()
        for key, value in expect.items():
            assert body[key] == value, (action, key, body[key])
        return body

    step(you, {"type": "play", "cards": ["KH"]}, turn=1)
    step(kalle, {"type": "play", "cards": ["KS"]}, turn=0)
    step(you, {"type": "play", "cards": ["7S"]}, turn=1, pending_draw=2)
    step(kalle, {"type": "play", "cards": ["7D"]}, turn=0, pending_draw=4)
    step(you, {"type": "play", "cards": ["7C"]}, turn=1, pending_draw=6)
    assert [a["type"] for a in view(kalle, gid)["legal_actions"]] == ["draw"]  # Kalle has no 7
    drew = step(kalle, {"type": "draw"}, turn=0, pending_draw=0)
    assert drew["players"][1]["card_count"] == 5 - 0 + 6 and sorted(SIX) == sorted(
        next(e for e in drew["events"] if e["type"] == "drew")["cards"])
    step(you, {"type": "play", "cards": ["8C"]}, turn=0)  # the 8 skips Kalle: seat 0 again
    step(you, {"type": "play", "cards": ["JS"], "wish": "D"}, turn=1, wish="D")
    # A drawn card that does not fit ends the turn by itself: the engine records the pass.
    missed = step(kalle, {"type": "draw"}, turn=0)
    assert missed["hand"][-1] == MISS
    assert [e["type"] for e in missed["events"]][:2] == ["drew", "passed"]
    mau = step(you, {"type": "play", "cards": ["4D"]}, turn=1)
    assert mau["hand"] == ["2H"] and any(e["type"] == "mau" for e in mau["events"])
    step(kalle, {"type": "play", "cards": ["4S"]}, turn=0)
    drawn = step(you, {"type": "draw"}, turn=0)
    assert drawn["drawn_card"] == "4H"
    step(you, {"type": "play", "cards": ["4H"]}, turn=1)
    step(kalle, {"type": "play", "cards": ["QH"]}, turn=0)
    won = step(you, {"type": "play", "cards": ["2H"]}, status="finished")
    assert won["result"]["winner"] == 0 and won["result"]["reason"] == "mau_mau"
    assert won["version"] == 15
    # The full replay is open to both players now, and the ledger verifies.
    ledger = kalle.get(f"/api/v1/games/{gid}/events").json()
    assert ledger["revealed"] and ledger["deal"]["hands"] == [YOU, KALLE]
    call_command("verify_ledger", gid)
