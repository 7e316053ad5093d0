"""A host seats bots by the levels people understand (``easy``, ``medium``, ``hard``); the first names
``basic`` and ``strong`` still work and seat the same bots under the new names; a bot seated under a
first name before (a stored ``basic`` or ``strong``) plays as it did; an unknown level is a clear 400."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, Move, Player
from play import tasks, thinking
from tests.games.api_helpers import act, setup_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch, settings: Any) -> list[dict[str, Any]]:
    """The hard bot's tasks sent (no worker runs in these tests), with a small fixed search budget."""
    settings.MAUMAU_STRONG_BOT_PLAYOUTS = 40
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.bot_move_task, "apply_async", lambda *args, **kwargs: calls.append(kwargs["kwargs"]))
    return calls


@pytest.mark.parametrize(("sent_level", "seated"), [
    ("easy", "easy"), ("medium", "medium"), ("hard", "hard"), ("random", "random"),
    ("basic", "medium"), ("strong", "hard")])
def test_a_host_seats_a_bot_of_each_level_and_the_first_names_still_work(
        make_table: Any, sent_level: str, seated: str) -> None:
    table = make_table("classic")
    answer = table.bot(sent_level)
    assert answer.status_code == 201, answer.content
    bot = Player.objects.get(is_bot=True, name__startswith="Bot 1")
    assert (bot.bot_level, bot.name) == (seated, f"Bot 1 ({seated})")
    assert any(seat["player"]["name"] == f"Bot 1 ({seated})" for seat in answer.json()["seats"])


def test_a_bot_without_a_level_is_medium(make_table: Any) -> None:
    table = make_table("classic")
    assert table.host.post(f"/api/v1/tables/{table.id}/bots", {}, format="json").status_code == 201
    assert Player.objects.get(is_bot=True).bot_level == "medium"


@pytest.mark.parametrize("level", ["grandmaster", "Hard", "", 3, None])
def test_an_unknown_level_is_refused_with_the_choices(make_table: Any, level: Any) -> None:
    table = make_table("classic")
    answer = table.bot(level)
    assert answer.status_code == 400, answer.content
    assert "level" in answer.content.decode()
    assert not Player.objects.filter(is_bot=True).exists()


def test_easy_and_medium_answer_in_the_request_and_hard_thinks_in_a_task(
        make_table: Any, sent: list, django_capture_on_commit_callbacks: Any) -> None:
    setup = setup_for("classic", [["KH", "KS", "7C"], ["8H", "QH", "AS", "10D"]], "7H")
    for level, in_the_request in (("easy", True), ("medium", True), ("hard", False)):
        table = make_table("classic")
        assert table.bot(level).status_code == 201
        game = table.start(setup=setup).json()
        with django_capture_on_commit_callbacks(execute=True):
            body = act(table.host, game["id"], {"type": "play", "cards": ["KH"]}).json()
        assert (body["turn"] == 0) is in_the_request, level  # the bot answered: the host is on turn again
        assert Move.objects.filter(game_id=game["id"], actor="bot").exists() is in_the_request
    assert len(sent) == 1


@pytest.mark.parametrize(("stored", "thinks"), [("strong", True), ("basic", False)])
def test_a_bot_stored_under_a_first_name_plays_as_before(make_table: Any, sent: list, stored: str,
                                                         thinks: bool, django_capture_on_commit_callbacks: Any) -> None:
    table = make_table("classic")
    assert table.bot("hard" if thinks else "medium").status_code == 201
    Player.objects.filter(is_bot=True).update(bot_level=stored)  # a row written before the levels were renamed
    game = table.start(setup=setup_for("classic", [["KH", "KS", "7C"], ["8H", "QH", "AS", "10D"]], "7H")).json()
    with django_capture_on_commit_callbacks(execute=True):
        body = act(table.host, game["id"], {"type": "play", "cards": ["KH"]}).json()
    assert (body["turn"] == 1) is thinks
    if thinks:
        assert sent == [{"game_id": game["id"], "version": 1}]
        with django_capture_on_commit_callbacks(execute=True):
            assert thinking.bot_move_make(game_id=game["id"], version=1) == thinking.APPLIED
        assert Game.objects.get(pk=game["id"]).version == 2
