"""Players and tables over HTTP: every endpoint's success and each of its error codes."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from games.models import League, Table

pytestmark = pytest.mark.django_db


def error_code(response) -> str:  # type: ignore[no-untyped-def]
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
    return body["error"]["code"]


def test_sign_up_returns_a_token_that_authenticates(make_player) -> None:
    ada = make_player("Ada")
    me = ada.get("/api/v1/me")
    assert me.status_code == 200
    assert me.json()["name"] == "Ada" and me.json()["tables"] == [] and me.json()["leagues"] == []


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": 5.5, "x": 1}, {"name": "x" * 65}, ["Ada"]])
def test_sign_up_refuses_bad_input(body) -> None:  # type: ignore[no-untyped-def]
    response = APIClient().post("/api/v1/players", body, format="json")
    assert response.status_code == 400 and error_code(response) == "validation_error"


def test_malformed_json_is_a_400_with_a_code() -> None:
    response = APIClient().post("/api/v1/players", data='{"name": ', content_type="application/json")
    assert response.status_code == 400 and error_code(response) == "validation_error"


def test_form_data_is_refused_with_415() -> None:
    response = APIClient().post("/api/v1/players", {"name": "Ada"})
    assert response.status_code == 415 and error_code(response) == "unsupported_media_type"


def test_no_token_and_a_bad_token_are_401() -> None:
    assert error_code(APIClient().get("/api/v1/me")) == "not_authenticated"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get("/api/v1/me")
    assert response.status_code == 401 and error_code(response) == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"


def test_every_write_but_sign_up_needs_a_token() -> None:
    for path in ["/api/v1/tables", "/api/v1/tables/1/join", "/api/v1/tables/1/rounds", "/api/v1/games/1/actions"]:
        response = APIClient().post(path, {}, format="json")
        assert response.status_code == 401, path


def test_wrong_method_is_405_in_the_error_shape(make_player) -> None:
    response = make_player().delete("/api/v1/me")
    assert response.status_code == 405 and error_code(response) == "method_not_allowed"


@pytest.mark.parametrize(("language", "message"), [
    ("en", "Authentication credentials are missing or invalid."),
    ("de", "Anmeldedaten fehlen oder sind ungültig."),
    ("fr", "Les identifiants sont absents ou invalides."),
])
def test_messages_follow_accept_language(language: str, message: str) -> None:
    response = APIClient().get("/api/v1/me", HTTP_ACCEPT_LANGUAGE=language)
    assert response.json()["error"]["message"] == message


@override_settings(MAUMAU_SIGNUP_RATE="2/min", MAUMAU_WRITE_RATE="3/min")
def test_writes_are_throttled_with_429(make_player) -> None:
    client = APIClient()
    for _ in range(2):
        assert client.post("/api/v1/players", {"name": "A"}, format="json").status_code == 201
    response = client.post("/api/v1/players", {"name": "A"}, format="json")
    assert response.status_code == 429 and error_code(response) == "throttled"
    assert response.json()["error"]["details"]["retry_after"] >= 1 and "Retry-After" in response


@override_settings(MAUMAU_WRITE_RATE="3/min")
def test_reads_are_not_throttled_but_writes_per_player_are(make_table) -> None:
    table = make_table("classic")
    for _ in range(10):
        assert table.host.get(f"/api/v1/tables/{table.id}").status_code == 200
    codes = [table.host.post("/api/v1/tables", {"rules": "classic"}, format="json").status_code for _ in range(4)]
    assert codes[-1] == 429  # one write spent on creating the first table


def test_create_table_merges_options_and_seats_the_host(make_player) -> None:
    host = make_player("Host")
    response = host.post("/api/v1/tables", {"rules": "classic", "options": {"hand_size": 6}, "max_players": 3},
                         format="json")
    assert response.status_code == 201
    table = response.json()
    assert table["options"]["hand_size"] == 6 and table["options"]["must_play"] is True
    assert table["max_players"] == 3 and table["status"] == "open" and table["host"]["name"] == "Host"
    assert [s["position"] for s in table["seats"]] == [0] and table["seats"][0]["player"]["id"] == host.player_id


@pytest.mark.parametrize(("body", "field"), [
    ({"rules": "poker"}, "rules"),
    ({"rules": "classic", "options": {"no_such_option": 1}}, None),
    ({"rules": "classic", "options": {"hand_size": "many"}}, None),
    ({"rules": "classic", "max_players": 9}, None),
    ({"rules": "classic", "options": []}, "options"),
])
def test_create_table_refuses_bad_rules(make_player, body, field) -> None:  # type: ignore[no-untyped-def]
    response = make_player().post("/api/v1/tables", body, format="json")
    assert response.status_code == 400 and error_code(response) == "validation_error"
    if field:
        assert field in response.json()["error"]["details"]["fields"]


def test_unknown_option_names_the_option(make_player) -> None:
    response = make_player().post("/api/v1/tables", {"rules": "house", "options": {"jokerz": 2}}, format="json")
    assert response.json()["error"]["details"]["option"] == "jokerz"


def test_unknown_league_is_404(make_player) -> None:
    response = make_player().post("/api/v1/tables", {"rules": "classic", "league": 999}, format="json")
    assert response.status_code == 404 and error_code(response) == "not_found"


def test_list_open_tables_and_my_tables(make_player, make_table) -> None:
    table = make_table("tavern")
    other = make_player("Other")
    listed = other.get("/api/v1/tables").json()
    assert [t["id"] for t in listed] == [table.id] and listed[0]["free_seats"] == 3
    assert other.get("/api/v1/tables?mine=true").json() == []
    assert other.get("/api/v1/tables?status=bogus").status_code == 400
    assert table.host.get("/api/v1/me").json()["tables"][0]["id"] == table.id


def test_unknown_table_is_404(make_player) -> None:
    client = make_player()
    for response in [client.get("/api/v1/tables/999"), client.post("/api/v1/tables/999/join", format="json"),
                     client.post("/api/v1/tables/999/bots", {}, format="json"),
                     client.post("/api/v1/tables/999/rounds", {}, format="json"),
                     client.post("/api/v1/tables/999/leave", format="json")]:
        assert response.status_code == 404 and error_code(response) == "not_found"


def test_join_takes_the_next_seat_then_already_seated_then_full(make_player, make_table) -> None:
    table = make_table("classic", max_players=2)
    bea = make_player("Bea")
    response = table.join(bea)
    assert response.status_code == 200 and [s["player"]["name"] for s in response.json()["seats"]] == ["Host", "Bea"]
    again = table.join(bea)
    assert again.status_code == 409 and error_code(again) == "already_seated"
    full = table.join(make_player("Cem"))
    assert full.status_code == 409 and error_code(full) == "table_full"


def test_only_the_host_adds_bots_and_a_full_table_refuses(make_player, make_table) -> None:
    table = make_table("classic", max_players=2)
    guest = make_player("Guest")
    refused = table.bot(client=guest)
    assert refused.status_code == 403 and error_code(refused) == "permission_denied"
    assert table.bot("nonsense").status_code == 400
    added = table.bot("random")
    assert added.status_code == 201 and added.json()["seats"][1]["bot_controlled"] is True
    assert added.json()["seats"][1]["player"]["bot"] is True
    full = table.bot()
    assert full.status_code == 409 and error_code(full) == "table_full"


def test_rounds_need_the_host_enough_players_and_no_running_round(make_player, make_table) -> None:
    table = make_table("classic")
    alone = table.start()
    assert alone.status_code == 409 and error_code(alone) == "table_state"
    assert alone.json()["error"]["details"]["reason"] == "not_enough_players"
    guest = make_player("Guest")
    table.join(guest)
    not_host = table.start(guest)
    assert not_host.status_code == 403 and error_code(not_host) == "permission_denied"
    started = table.start(seed=7)
    assert started.status_code == 201 and started.json()["number"] == 1 and started.json()["seat"] == 0
    running = table.start()
    assert running.status_code == 409 and running.json()["error"]["details"]["reason"] == "round_running"
    assert table.host.get(f"/api/v1/tables/{table.id}").json()["current_game"] == started.json()["id"]


@pytest.mark.parametrize("body", [
    {"seed": [1]},
    {"seed": True},
    {"setup": "deal"},
    {"setup": {"hands": [["7H"]], "starter": "8H", "stock": []}},
    {"setup": {"hands": [["7H"], ["8H"]], "starter": "9H", "stock": []}},
    {"setup": {"hands": [["7H"], ["7H"]], "starter": "9H", "stock": []}},
    {"setup": {"hands": [["ZZ"], ["8H"]], "starter": "9H", "stock": []}},
    {"setup": {"hands": [["7H"], ["8H"]], "starter": "9H", "stock": [], "first": 5}},
    {"something": 1},
    {"seed": 10**200},  # longer than a seed is stored
    {"seed": "x" * 129},
])
def test_start_refuses_bad_seeds_and_impossible_deals(make_player, make_table, body) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    table.join(make_player("Guest"))
    response = table.start(**body)
    assert response.status_code == 400 and error_code(response) == "validation_error", response.json()


def test_leaving_passes_the_host_and_a_bot_takes_over_a_running_seat(make_player, make_table) -> None:
    table = make_table("classic")
    guest = make_player("Guest")
    table.join(guest)
    game = table.start(seed=3).json()
    response = table.host.post(f"/api/v1/tables/{table.id}/leave", format="json")
    assert response.status_code == 200
    data = response.json()
    assert data["host"]["id"] == guest.player_id
    assert data["seats"][0]["left"] is True and data["seats"][0]["bot_controlled"] is True
    # The host's seat now plays by itself: whenever the guest is not on turn, the bot moved.
    state = guest.get(f"/api/v1/games/{game['id']}").json()
    assert state["status"] == "finished" or state["turn"] == 1
    gone = table.host.post(f"/api/v1/games/{game['id']}/actions", {"type": "draw"}, format="json")
    assert gone.status_code == 403 and error_code(gone) == "permission_denied"
    not_seated = table.host.post(f"/api/v1/tables/{table.id}/leave", format="json")
    assert not_seated.status_code == 403
    # Coming back takes the seat back from the bot.
    back = table.join(table.host)
    assert back.status_code == 200 and back.json()["seats"][0]["bot_controlled"] is False


def test_the_last_person_leaving_closes_the_table(make_table) -> None:
    table = make_table("classic")
    table.bot()
    closed = table.host.post(f"/api/v1/tables/{table.id}/leave", format="json").json()
    assert closed["status"] == "closed"
    assert table.start().status_code in (403, 409)


def test_a_closed_table_refuses_joins_and_bots(make_player, make_table) -> None:
    table = make_table("classic")
    table.bot()
    table.host.post(f"/api/v1/tables/{table.id}/leave", format="json")
    refused = table.join(make_player("Late"))
    assert refused.status_code == 409 and error_code(refused) == "table_state"
    assert refused.json()["error"]["details"]["reason"] == "table_closed"


def test_a_table_can_feed_a_league_of_the_same_rules(make_player) -> None:
    host = make_player("Host")
    league = host.post("/api/v1/leagues", {"name": "Sunday", "rules": "house"}, format="json")
    assert league.status_code == 201, league.json()
    league_id = league.json()["id"]
    created = host.post("/api/v1/tables", {"rules": "house", "league": league_id}, format="json")
    assert created.status_code == 201 and created.json()["league"] == league_id
    assert host.get("/api/v1/me").json()["leagues"][0]["id"] == league_id
    mismatch = host.post("/api/v1/tables", {"rules": "classic", "league": league_id}, format="json")
    assert mismatch.status_code == 400 and mismatch.json()["error"]["details"]["field"] == "league"


def test_a_non_host_changes_nothing(make_player, make_table) -> None:
    table = make_table("classic")
    guest = make_player("Guest")
    table.join(guest)
    before = table.host.get(f"/api/v1/tables/{table.id}").json()
    assert table.bot(client=guest).status_code == 403
    assert table.start(guest).status_code == 403
    assert table.host.get(f"/api/v1/tables/{table.id}").json() == before


@pytest.mark.parametrize("option", ["turn_seconds", "hermann_seconds", "max_turns"])
def test_a_number_too_large_for_a_date_or_a_column_is_refused_and_nothing_is_created(make_player,
                                                                                     option: str) -> None:
    host = make_player("Host")
    for path, body in [("/api/v1/tables", {"rules": "house"}), ("/api/v1/leagues", {"name": "L", "rules": "house"})]:
        response = host.post(path, {**body, "options": {option: 10**12}}, format="json")
        assert response.status_code == 400 and response.json()["error"]["details"]["option"] == option, path
    assert not Table.objects.exists() and not League.objects.exists()
