"""A recorded round counts only when every player it gives points to has confirmed it (or the league lets
its scorekeeper alone count rounds); a correction needs the people scored by both entries; a scored player
disputes a round that counted without them until its season ends; only current members confirm or dispute.
The outside attack this stops: the scorekeeper's sock joins with the invite code and confirms a round that
gives a victim 400 points."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from sheet_helpers import confirm, league_night, record, recorded, standings

from scoring.models import RoundResult, SheetMark

pytestmark = pytest.mark.django_db


def verified() -> str:
    out = StringIO()
    call_command("verify_standings", stdout=out, stderr=StringIO())
    return out.getvalue()


def dispute(client: Any, league_id: int, round_id: int) -> Any:
    return client.post(f"/api/v1/leagues/{league_id}/rounds/{round_id}/dispute", {}, format="json")


def sock_of(make_player: Any, league: dict[str, Any]) -> Any:
    """The keeper's second guest, joined with the invite code any member sees."""
    sock = make_player("Sock")
    joined = sock.post(f"/api/v1/leagues/{league['id']}/join", {"code": league["invite_code"]}, format="json")
    assert joined.status_code == 200
    return sock


def test_the_keepers_sock_confirming_does_not_count_points_given_to_a_victim(make_player):
    league, (keeper, victim) = league_night(make_player, 2)
    lid = league["id"]
    sock = sock_of(make_player, league)
    stuffed = recorded(keeper, lid, [{"player": victim.player_id, "points": 400},
                                     {"player": sock.player_id, "cards": []}], sock.player_id)

    by_sock = confirm(sock, lid, stuffed["id"])

    assert by_sock.status_code == 200 and by_sock.json()["status"] == "pending"
    assert [player["id"] for player in by_sock.json()["waiting_for"]] == [victim.player_id]
    assert [mark["player"]["id"] for mark in by_sock.json()["confirmations"]] == [sock.player_id]
    assert standings(keeper, lid) == []
    again = confirm(sock, lid, stuffed["id"])
    assert (again.status_code, again.json()["error"]["code"]) == (409, "already_confirmed")
    assert again.json()["error"]["details"]["waiting_for"] == [victim.player_id]
    refused = dispute(victim, lid, stuffed["id"])
    assert refused.status_code == 200 and refused.json()["status"] == "disputed"
    assert standings(keeper, lid) == []
    assert "standings match" in verified()


def test_in_tavern_scoring_the_loser_of_a_round_confirms_it_though_it_gives_no_points(make_player):
    league, (keeper, victim) = league_night(make_player, 2, rules="tavern")
    lid = league["id"]
    sock = sock_of(make_player, league)
    stuffed = recorded(keeper, lid, [{"player": victim.player_id, "cards": ["7H"]},
                                     {"player": sock.player_id, "cards": []}], sock.player_id)

    by_sock = confirm(sock, lid, stuffed["id"])

    assert by_sock.json()["status"] == "pending"
    assert [player["id"] for player in by_sock.json()["waiting_for"]] == [victim.player_id]
    assert confirm(victim, lid, stuffed["id"]).json()["status"] == "counted"


def test_a_round_counts_at_the_last_confirmation_of_the_players_it_scores(make_player):
    league, (ada, bert, cleo, dora) = league_night(make_player, 4)
    lid = league["id"]
    entry = recorded(ada, lid, [{"player": ada.player_id, "points": 5}, {"player": bert.player_id, "points": 30},
                                {"player": cleo.player_id, "points": 12}, {"player": dora.player_id, "cards": []}],
                     dora.player_id)
    # The winner's word alone is not enough; the recorder's own line needs no confirmation.
    assert confirm(dora, lid, entry["id"]).json()["status"] == "pending"
    assert confirm(cleo, lid, entry["id"]).json()["status"] == "pending"
    assert standings(ada, lid) == []

    last = confirm(bert, lid, entry["id"])

    assert last.json()["status"] == "counted" and last.json()["waiting_for"] == []
    assert [mark["kind"] for mark in last.json()["confirmations"]] == ["confirm"] * 3
    assert standings(ada, lid) == [(dora.player_id, 1, 1, 0), (ada.player_id, 1, 0, 5),
                                   (cleo.player_id, 1, 0, 12), (bert.player_id, 1, 0, 30)]
    assert list(SheetMark.objects.filter(round_id=entry["id"]).values_list("kind", flat=True)) == [
        "agree", "agree", "confirm"]
    assert "standings match" in verified()


def test_a_correction_needs_the_people_scored_by_it_and_by_the_round_it_corrects(make_player):
    league, (keeper, victim, bob) = league_night(make_player, 3)
    lid = league["id"]
    sock = sock_of(make_player, league)
    honest = recorded(keeper, lid, [{"player": keeper.player_id, "cards": []},
                                    {"player": victim.player_id, "points": 10},
                                    {"player": bob.player_id, "points": 20}], keeper.player_id)
    confirm(victim, lid, honest["id"])
    assert confirm(bob, lid, honest["id"]).json()["status"] == "counted"
    # The keeper "corrects" it into a round of the victim and the sock; the sock confirms.
    fake = recorded(keeper, lid, [{"player": victim.player_id, "points": 400}, {"player": sock.player_id, "cards": []}],
                    sock.player_id, corrects=honest["id"])
    assert confirm(sock, lid, fake["id"]).json()["status"] == "pending"
    assert RoundResult.objects.get(pk=honest["id"]).status == "counted"
    # A correction that lowers the victim's points still needs Bob, whom the corrected round scored.
    fixed = recorded(keeper, lid, [{"player": keeper.player_id, "cards": []},
                                   {"player": victim.player_id, "points": 6},
                                   {"player": bob.player_id, "cards": ["4H"]}], keeper.player_id, corrects=honest["id"])
    waiting = confirm(victim, lid, fixed["id"]).json()
    assert waiting["status"] == "pending" and [p["id"] for p in waiting["waiting_for"]] == [bob.player_id]
    assert standings(keeper, lid) == [(keeper.player_id, 1, 1, 0), (victim.player_id, 1, 0, 10),
                                      (bob.player_id, 1, 0, 20)]

    assert confirm(bob, lid, fixed["id"]).json()["status"] == "counted"

    assert standings(keeper, lid) == [(keeper.player_id, 1, 1, 0), (bob.player_id, 1, 0, 4),
                                      (victim.player_id, 1, 0, 6)]
    assert RoundResult.objects.get(pk=honest["id"]).status == "corrected"
    late = confirm(victim, lid, fake["id"])
    assert (late.status_code, late.json()["error"]["code"]) == (409, "correction_stale")
    assert "standings match" in verified()


def test_a_scored_player_disputes_what_the_scorekeeper_counted_alone_until_the_season_ends(make_player):
    league, (keeper, victim, cleo) = league_night(make_player, 3, scorekeeper_alone=True,
                                                  options={"league_limit": 0})
    lid = league["id"]
    entry = recorded(keeper, lid, [{"player": keeper.player_id, "cards": []},
                                   {"player": victim.player_id, "points": 90}], keeper.player_id)
    assert entry["status"] == "counted"
    outsider, unscored = dispute(cleo, lid, entry["id"]), dispute(keeper, lid, entry["id"])
    assert (outsider.status_code, outsider.json()["error"]["code"]) == (403, "confirm_not_allowed")
    assert (unscored.status_code, unscored.json()["error"]["code"]) == (409, "round_not_pending")

    taken_out = dispute(victim, lid, entry["id"])

    assert taken_out.status_code == 200 and taken_out.json()["status"] == "disputed"
    assert standings(keeper, lid) == [(keeper.player_id, 0, 0, 0), (victim.player_id, 0, 0, 0)]
    assert dispute(victim, lid, entry["id"]).json()["error"]["code"] == "round_not_pending"
    # A correction the keeper counted alone, disputed: the entry it corrected counts again.
    honest = recorded(keeper, lid, [{"player": keeper.player_id, "cards": []},
                                    {"player": victim.player_id, "points": 20}], keeper.player_id)
    inflated = recorded(keeper, lid, [{"player": keeper.player_id, "cards": []},
                                      {"player": victim.player_id, "points": 200}], keeper.player_id,
                        corrects=honest["id"])
    assert standings(keeper, lid)[-1] == (victim.player_id, 1, 0, 200)
    assert dispute(victim, lid, inflated["id"]).status_code == 200
    assert RoundResult.objects.get(pk=honest["id"]).status == "counted"
    assert standings(keeper, lid)[-1] == (victim.player_id, 1, 0, 20)
    race = keeper.get(f"/api/v1/leagues/{lid}/race").json()["results"]
    assert [step["totals"][str(victim.player_id)] for step in race] == [90, 0, 20, 200, 20]
    assert "standings match" in verified()
    # Once the season is over, its rounds stand.
    last = recorded(keeper, lid, [{"player": keeper.player_id, "cards": []},
                                  {"player": victim.player_id, "points": 30}], keeper.player_id)
    assert keeper.post(f"/api/v1/leagues/{lid}/seasons", {}, format="json").status_code == 201
    too_late = dispute(victim, lid, last["id"])
    assert (too_late.status_code, too_late.json()["error"]["code"]) == (409, "round_not_pending")
    assert standings(keeper, lid, 1)[-1] == (victim.player_id, 2, 0, 50)
    assert "standings match" in verified()


def test_a_member_who_left_neither_confirms_nor_disputes_nor_records(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    lid = league["id"]
    entry = recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 9},
                                {"player": cleo.player_id, "points": 4}], ada.player_id)
    assert ada.patch(f"/api/v1/leagues/{lid}/members/{cleo.player_id}", {"role": "scorekeeper"},
                     format="json").status_code == 200
    for client in (bert, cleo):
        assert client.post(f"/api/v1/leagues/{lid}/leave", {}, format="json").status_code == 204

    confirmed, disputed = confirm(bert, lid, entry["id"]), dispute(cleo, lid, entry["id"])
    recorded_by_leaver = record(cleo, lid, [{"player": ada.player_id, "cards": []},
                                            {"player": cleo.player_id, "points": 2}], ada.player_id)

    assert (confirmed.status_code, confirmed.json()["error"]["code"]) == (403, "not_a_league_member")
    assert (disputed.status_code, disputed.json()["error"]["code"]) == (403, "not_a_league_member")
    assert recorded_by_leaver.status_code == 403
    assert RoundResult.objects.get(pk=entry["id"]).status == "pending"
    assert not SheetMark.objects.exists()
