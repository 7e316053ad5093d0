"""Plays a whole round of each rule set through the generated Python client, and nothing else.

Run by tests/contract with the contract venv's Python (the generated package on ``sys.path``):
``play_rounds.py <base url> <generated package folder>``. A guest opens a table, seats a bot, deals
a round and plays it to the end with moves taken from ``legal_actions`` and posted as they are, then
reads the scoreboard and the ratings. Every answer is parsed into the generated types: a field the
schema misnames fails here.
"""

from __future__ import annotations

import random
import sys
from typing import Any

sys.path.insert(0, sys.argv[2])

from maumau_api import AuthenticatedClient, Client  # noqa: E402
from maumau_api.api.games import games_actions_create, games_events_retrieve, games_retrieve  # noqa: E402
from maumau_api.api.players import players_create, players_ratings  # noqa: E402
from maumau_api.api.tables import tables_bots_create, tables_create, tables_rounds_create, tables_scoreboard  # noqa: E402
from maumau_api.models import (  # noqa: E402
    ApiError,
    BotAddRequest,
    GameView,
    Ledger,
    MoveResult,
    PlayAction,
    PlayerCreateRequest,
    PlayerCreated,
    PlayerRatingsOutput,
    RoundStartRequest,
    Rules,
    ScoreboardOutput,
    Table,
    TableCreateRequest,
)

MAX_MOVES = 2000


def answer(value: Any, kind: type) -> Any:
    assert isinstance(value, kind), f"expected {kind.__name__}, got {value!r}"
    return value


def play_round(base: str, rules: Rules, rng: random.Random) -> str:
    guest = answer(players_create.sync(client=Client(base_url=base), body=PlayerCreateRequest(name=f"Gen {rules}")),
                   PlayerCreated)
    client = AuthenticatedClient(base_url=base, token=guest.token, prefix="Token", raise_on_unexpected_status=True)
    table = answer(tables_create.sync(client=client, body=TableCreateRequest(rules=rules)), Table)
    answer(tables_bots_create.sync(table.id, client=client, body=BotAddRequest()), Table)
    view = answer(tables_rounds_create.sync(table.id, client=client, body=RoundStartRequest()), GameView)
    kinds: set[str] = set()
    for _ in range(MAX_MOVES):
        if view.status != "active":
            break
        if not view.legal_actions:  # the bot moves in the background on some tables: wait for it
            waited = games_retrieve.sync(view.id, client=client, wait=5, after=view.version)
            view = waited if isinstance(waited, GameView) else answer(games_retrieve.sync(view.id, client=client),
                                                                      GameView)
            continue
        plays = [action for action in view.legal_actions if isinstance(action, PlayAction)]
        action = rng.choice(plays) if plays and rng.random() < 0.9 else rng.choice(view.legal_actions)
        result = games_actions_create.sync(view.id, client=client, body=action)
        if isinstance(result, ApiError):
            raise AssertionError(f"{action.to_dict()} refused: {result.to_dict()}")
        result = answer(result, MoveResult)
        kinds.update(str(event.type_) for event in result.events)
        view = result
    assert view.status == "finished", f"{rules}: the round did not end"
    assert view.result is not None
    ledger = answer(games_events_retrieve.sync(view.id, client=client, after=0), Ledger)
    assert ledger.moves, "an empty ledger"
    scoreboard = answer(tables_scoreboard.sync(table.id, client=client), ScoreboardOutput)
    ratings = answer(players_ratings.sync(guest.id, client=client), PlayerRatingsOutput)
    return (f"{rules}: {len(ledger.moves)} ledger rows, events {sorted(kinds)}, scoreboard {len(scoreboard.to_dict())} "
            f"fields, ratings {sorted(ratings.to_dict())}")


def main() -> None:
    rng = random.Random(29)
    for rules in Rules:
        print(play_round(sys.argv[1], rules, rng), flush=True)


if __name__ == "__main__":
    main()
