"""The strong bot thinks outside the request and the row lock: a task after the commit makes its move
through ``move_submit``, only for the version it was sent for; a person plays whole rounds against it."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, Move
from play import tasks
from play import thinking as bots
from tests.games.api_helpers import act, setup_for, view

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The bot tasks sent (no worker runs in these tests)."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.bot_move_task, "apply_async", lambda *args, **kwargs: calls.append(kwargs["kwargs"]))
    return calls


@pytest.fixture(autouse=True)
def _quick_search(settings: Any) -> None:
    settings.MAUMAU_STRONG_BOT_PLAYOUTS = 40  # a fixed budget: the tests do not depend on the machine's speed


def test_the_strong_bot_moves_in_a_task_after_the_commit_not_in_the_request(
        make_table: Any, sent: list, django_capture_on_commit_callbacks: Any) -> None:
    table = make_table("classic")
    assert table.bot("strong").status_code == 201
    setup = setup_for("classic", [["KH", "KS", "7C"], ["8H", "QH", "AS", "10D"]], "7H")
    game = table.start(setup=setup).json()
    with django_capture_on_commit_callbacks(execute=True):
        answer = act(table.host, game["id"], {"type": "play", "cards": ["KH"]})
    assert answer.status_code == 200
    body = answer.json()
    assert (body["turn"], body["version"]) == (1, 1)  # the bot is on turn and has not moved in the request
    assert sent == [{"game_id": game["id"], "version": 1}]
    with django_capture_on_commit_callbacks(execute=True):
        assert bots.bot_move_make(game_id=game["id"], version=1) == bots.APPLIED
    move = Move.objects.get(game_id=game["id"], seq=2)
    assert (move.actor, move.seat) == ("bot", 1)
    assert view(table.host, game["id"])["version"] == 2


def test_a_bot_task_for_a_version_the_round_has_left_does_nothing(make_table: Any, sent: list) -> None:
    table = make_table("classic")
    assert table.bot("strong").status_code == 201
    setup = setup_for("classic", [["KH", "KS", "7C"], ["8H", "QH", "AS", "10D"]], "7H")
    game = table.start(setup=setup).json()
    assert act(table.host, game["id"], {"type": "play", "cards": ["KH"]}).status_code == 200
    assert bots.bot_move_make(game_id=game["id"], version=0) == bots.STALE
    assert bots.bot_move_make(game_id=10**9, version=1) == bots.MISSING
    assert Game.objects.get(pk=game["id"]).version == 1


def test_a_task_finds_a_person_on_turn_and_does_nothing(make_table: Any, sent: list) -> None:
    table = make_table("classic")
    assert table.bot("strong").status_code == 201
    game = table.start(setup=setup_for("classic", [["KH", "KS", "7C"], ["8H", "QH", "AS", "10D"]], "7H")).json()
    assert bots.bot_move_make(game_id=game["id"], version=0) == bots.STALE  # seat 0, the host, is on turn
    assert Game.objects.get(pk=game["id"]).version == 0


@pytest.mark.parametrize(("rules", "seed"), [("classic", 5), ("tavern", 6), ("house", 7)])
def test_a_person_plays_a_whole_round_against_a_strong_bot(
        make_table: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any,
        rules: str, seed: int) -> None:
    """The tasks run as the worker would run them: one after another, each after the commit before it."""
    queue: list[dict[str, Any]] = []
    monkeypatch.setattr(tasks.bot_move_task, "apply_async", lambda *args, **kwargs: queue.append(kwargs["kwargs"]))
    table = make_table(rules, options={"turn_seconds": 0})
    assert table.bot("strong").status_code == 201
    assert table.bot("basic").status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        game = table.start(seed=seed).json()
    for _ in range(2000):
        while queue:
            with django_capture_on_commit_callbacks(execute=True):
                bots.bot_move_make(**queue.pop(0))
        state = view(table.host, game["id"])
        if state["status"] != "active":
            break
        legal = state["legal_actions"]
        assert legal, "nobody may act: the strong bot's task was not sent"
        with django_capture_on_commit_callbacks(execute=True):
            answer = act(table.host, game["id"], _named(legal[0]))
        assert answer.status_code == 200, answer.content
    assert state["status"] == "finished"
    assert Move.objects.filter(game_id=game["id"], actor="bot", seat=1).exists()


def _named(action: dict[str, Any]) -> dict[str, Any]:
    names = action.get("as")
    if not names:
        return action
    return {**action, "as": {joker: name[0] if isinstance(name, list) else name for joker, name in names.items()}}
