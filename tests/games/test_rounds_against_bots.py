"""A person plays a whole round of each rule set against bots over HTTP, and never sees a hidden card.

The security scan: after every response, every card code in it must be one the caller may know:
their own hand (now or before), or a card that has been face up on the discard pile. Other hands
and the stock are hidden. The same holds for every ledger entry the caller reads while the round runs.
In a fair round no response shows the server seed, the deal seed or the table's next server seed.
And any option set that a table accepts, however extreme its numbers, deals and finishes a round.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.rules import OPTION_BOUNDS
from games.ledger import initial_state
from games.models import Game, Move, Table
from tests.games.api_helpers import act, cards_in, resolve

pytestmark = pytest.mark.django_db


class SpectatorScanner:
    """A spectator may know only the cards laid face up (the starter and every card played, jokers' names
    included); never a hand, never the stock, not even after the round (its players see every hand
    then; a spectator does not)."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.checked = 0

    def face_up(self) -> set[str]:
        game = Game.objects.get(pk=self.game_id)
        seen = {initial_state(game).discard[0], game.state["top"]}
        for events in Move.objects.filter(game=game).values_list("events", flat=True):
            for event in events:
                if event["type"] == "played":
                    seen |= set(event["cards"]) | set(event.get("as", {}).values())
        return seen

    def check(self, body: Any, what: str) -> None:
        leaked = cards_in(body) - self.face_up()
        assert not leaked, f"{what} shows a spectator hidden cards {sorted(leaked)}"
        self.checked += 1


class Scanner:
    """Tracks what the caller may know and checks responses against the hidden cards."""

    def __init__(self, game_id: int, seat: int) -> None:
        self.game_id, self.seat = game_id, seat
        self.known: set[str] = set()
        self.checked = 0

    def hidden(self) -> set[str]:
        state = Game.objects.get(pk=self.game_id).state
        self.known |= set(state["hands"][self.seat]) | set(state["discard"]) | {state["top"]}
        others = {c for i, hand in enumerate(state["hands"]) if i != self.seat for c in hand}
        return (others | set(state["stock"])) - self.known

    def secrets(self) -> set[str]:
        """The seeds nobody may see while the round runs (a practice seed is the host's own)."""
        game = Game.objects.select_related("table").get(pk=self.game_id)
        if game.practice:
            return {game.table.next_seed}
        return {game.seed, game.deal_seed(), game.table.next_seed}

    def check(self, body: Any, what: str) -> None:
        # What this answer's own events showed the caller stays known: a card laid face up (a reshuffle may
        # have put it back in the stock since) and a card the caller drew (a QH swap may have taken it since).
        self.known |= {card for event in (body.get("events") or []) if isinstance(event, dict)
                       and (event.get("type") == "played" or (event.get("type") == "drew"
                                                              and event.get("seat") == self.seat))
                       for card in event.get("cards", [])}
        leaked = cards_in(body) & self.hidden()
        assert not leaked, f"{what} shows hidden cards {sorted(leaked)}"
        text = json.dumps(body)
        assert not [secret for secret in self.secrets() if secret in text], f"{what} shows a secret seed"
        self.checked += 1


@pytest.mark.parametrize(("rules", "seed"), [("classic", 1), ("tavern", 2), ("house", 3), ("house", None)])
def test_a_person_plays_a_round_against_bots_to_the_end(make_table, make_player, rules: str,
                                                        seed: int | None) -> None:
    table = make_table(rules)
    spectator = make_player("Eve")
    assert table.bot("basic").status_code == 201
    assert table.bot("random").status_code == 201
    started = table.start() if seed is None else table.start(seed=seed)  # None: a fair deal
    assert started.status_code == 201
    game = started.json()
    gid, person = game["id"], table.host
    scan = Scanner(gid, 0)
    watch = SpectatorScanner(gid)
    scan.check(game, "the round's start")
    scan.check(person.get(f"/api/v1/tables/{table.id}").json(), "the table view")
    assert person.get(f"/api/v1/games/{gid}/fairness").status_code == 409
    rng = random.Random(seed)
    for _ in range(3000):
        response = person.get(f"/api/v1/games/{gid}")
        state = response.json()
        if state["status"] != "active":
            break
        scan.check(state, "the game view")
        assert state["legal_actions"], "a person waits in an active round: the bots did not answer"
        assert state["players"][1]["bot"] and state["players"][2]["bot"]
        action = resolve(rng.choice(state["legal_actions"]), rng.choice)
        moved = act(person, gid, {**action, "expected_version": state["version"]})
        assert moved.status_code in (200, 422), moved.json()
        if moved.json().get("status") == "active":
            scan.check(moved.json(), f"the answer to {action}")
        if state["version"] % 7 == 0:
            ledger = person.get(f"/api/v1/games/{gid}/events").json()
            if ledger["status"] == "active":
                scan.check(ledger, "the ledger")
            watch.check(spectator.get(f"/api/v1/games/{gid}").json(), "a spectator's view")
            watch.check(spectator.get(f"/api/v1/games/{gid}/events").json(), "a spectator's ledger")
            watch.check(spectator.get(f"/api/v1/tables/{table.id}/messages").json(), "a spectator's chat")
    else:
        raise AssertionError("the round did not end")
    final = Game.objects.get(pk=gid)
    assert final.status == "finished" and final.result is not None and final.turn is None
    assert final.result["reason"] in ("mau_mau", "stalemate", "max_turns")
    assert Move.objects.filter(game=final, actor="bot").exists()
    assert scan.checked > 5 and watch.checked > 2
    watch.check(spectator.get(f"/api/v1/games/{gid}").json(), "a spectator's view of the finished round")
    watch.check(spectator.get(f"/api/v1/games/{gid}/events").json(), "a spectator's ledger of the finished round")
    table_after = person.get(f"/api/v1/tables/{table.id}").json()
    assert table_after["status"] == "open" and table_after["current_game"] is None
    call_command("verify_ledger", gid)


def test_bots_play_the_same_way_from_the_same_seed(make_table) -> None:
    """Bot rng is seeded from the game's seed and version: same seed, same bot-only round."""
    ledgers = []
    for _ in range(2):
        table = make_table("classic")
        table.bot("random")
        table.bot("basic")
        gid = table.start(seed="same").json()["id"]
        table.host.post(f"/api/v1/tables/{table.id}/leave", format="json")  # bots play the rest
        assert Game.objects.get(pk=gid).status == "finished"
        ledgers.append([(m.actor, m.seat, m.action) for m in Move.objects.filter(game_id=gid).order_by("seq")])
    assert ledgers[0] == ledgers[1] and len(ledgers[0]) > 3


def _numbers(option: str) -> st.SearchStrategy[int]:
    low, high = OPTION_BOUNDS[option]
    return st.one_of(st.sampled_from([low, high]), st.sampled_from([low - 1, high + 1, 10**12, 10**15, 2**63]))


client_options = st.fixed_dictionaries({"rules": st.sampled_from(["classic", "tavern", "house"])}, optional={
    **{option: _numbers(option) for option in ("turn_seconds", "hermann_seconds", "max_turns", "seven_draws",
                                               "league_limit")},
    "timeout_policy": st.sampled_from(["autoplay", "penalty", "skip"]),
    "king_of_diamonds_hermann": st.booleans(),
})


@pytest.fixture
def unthrottled_host(make_player, settings):  # type: ignore[no-untyped-def]
    """One host for every example (its tables are new each time), not held back by the write limit."""
    settings.MAUMAU_WRITE_RATE = ""
    return make_player("Host")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=client_options, seed=st.integers(0, 2**16), leave=st.booleans())
def test_any_option_set_a_table_accepts_deals_and_finishes_a_round(unthrottled_host, body, seed,
                                                                   leave) -> None:  # type: ignore[no-untyped-def]
    rules, host = body.pop("rules"), unthrottled_host
    tables_before = Table.objects.count()
    created = host.post("/api/v1/tables", {"rules": rules, "options": body}, format="json")
    if created.status_code == 400:
        assert created.json()["error"]["details"]["option"] in body, created.json()
        assert Table.objects.count() == tables_before
        return
    assert created.status_code == 201, created.json()
    table_id = created.json()["id"]
    assert host.post(f"/api/v1/tables/{table_id}/bots", {"level": "basic"}, format="json").status_code == 201
    started = host.post(f"/api/v1/tables/{table_id}/rounds", {"seed": seed}, format="json")
    assert started.status_code == 201, started.json()
    gid = started.json()["id"]
    if leave:  # the bots play the host's seat too: the whole round runs in this one request
        assert host.post(f"/api/v1/tables/{table_id}/leave", format="json").status_code == 200
    rng = random.Random(seed)
    scan = Scanner(gid, 0)
    for _ in range(OPTION_BOUNDS["max_turns"][1] + 10):
        state = host.get(f"/api/v1/games/{gid}").json()
        if state["status"] != "active":
            break
        scan.check(state, "the game view")
        action = resolve(rng.choice(state["legal_actions"]), rng.choice)
        clock_rows = Move.objects.filter(game_id=gid, actor="clock").count()
        moved = act(host, gid, {**action, "expected_version": state["version"]})
        if moved.status_code == 409:  # a deadline of a short clock passed after the view: the clock came first
            assert moved.json()["error"]["code"] == "version_conflict", moved.json()
            assert Move.objects.filter(game_id=gid, actor="clock").count() > clock_rows, moved.json()
            continue
        assert moved.status_code in (200, 422), moved.json()
    final = Game.objects.get(pk=gid)
    assert final.status == "finished" and final.result["reason"] in ("mau_mau", "stalemate", "max_turns")
