"""A complete Mau-Mau bot in one file: start from here to write your own.

    python examples/bot.py --url http://127.0.0.1:8000 --name "My bot" --seek classic --fill-with-bots-after 30
    python examples/bot.py --url ... --token mmt_...            # an account's personal token (POST /me/tokens)

It signs up as a bot account (or uses ``--token`` / ``MAUMAU_TOKEN``), follows ``/me/stream``, seeks a
game (``--seek``) and accepts every challenge it receives, and plays each of its turns from the
view's ``legal_actions``: say every call, keep jacks for when nothing else fits, wish the suit it holds
most, draw only when it must. The stream reconnects by itself; after each (re)connection the bot looks
at the round it is playing, so a turn never waits for a notification lost while it was away. It stops
after ``--rounds`` rounds (0: never) and prints one JSON line per finished round. Only the standard
library and ``maumau_client.py`` (httpx) beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any

from maumau_client import ApiError, MauMau

#: card points, to shed the expensive cards first (the ``ranking`` and ``points`` scorings count them)
POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}


def choose(game: dict[str, Any]) -> dict[str, Any]:
    """One of ``legal_actions``: the whole strategy of this bot. Change it."""
    legal = game["legal_actions"]
    for action in legal:
        if action["type"] == "say":
            return action  # a call costs nothing; forgetting one costs a card
    plays = [action for action in legal if action["type"] == "play"]
    if not plays:
        return legal[0]  # draw or pass, whichever is allowed
    hand = game["hand"]

    def value(action: dict[str, Any]) -> float:
        cards = action["cards"]
        left = [card for card in hand if card not in cards]
        wilds = sum(1 for card in cards if card[0] in "JX")
        held = Counter(card[-1] for card in left if card[0] not in "JX")
        score = 1000.0 if not left else 0.0
        score -= 40 * wilds if left else 0  # keep jacks and jokers for need
        score += sum(POINTS.get(card[:-1], int(card[:-1]) if card[:-1].isdigit() else 0) for card in cards)
        score += 3 * held.get(action.get("wish") or cards[-1][-1], 0)  # stay in a suit we hold
        return score

    best = max(plays, key=value)
    return best  # as listed: `as` names each joker already (`as_choices` has the alternatives)


def play_turns(client: MauMau, game_id: int) -> dict[str, Any] | None:
    """Play while it is our turn; the view when we are done (None if the round is not ours)."""
    try:
        game = client.game(game_id)
    except ApiError as exc:
        if exc.status == 404:
            return None
        raise
    while game and game["status"] == "active" and game["legal_actions"]:
        try:
            game = client.act(game_id, choose(game), expected_version=game["version"])
        except ApiError as exc:
            if exc.code not in ("version_conflict", "not_your_turn", "illegal_move", "game_finished"):
                raise
            game = client.game(game_id)  # the round moved on meanwhile: look again
    return game


def run(client: MauMau, *, seek: str | None, players: int, fill_with_bots_after: int | None, rounds: int) -> int:
    finished = 0
    current: int | None = None
    seeking = False
    for event in client.stream():
        if event.kind == "connected":
            if seek and current is None and not seeking:
                client.seek(seek, players, fill_with_bots_after=fill_with_bots_after)
                seeking = True
            if current is not None:
                play_turns(client, current)  # catch up on a turn that came while the stream was down
        elif event.kind == "challenge_received":
            try:
                client.accept_challenge(event.data["challenge"])
            except ApiError as exc:
                print(json.dumps({"challenge": event.data.get("challenge"), "refused": exc.code}), flush=True)
        elif event.kind in ("game_started", "round_started", "your_turn") and event.game is not None:
            current, seeking = event.game, False
            play_turns(client, current)
        elif event.kind == "round_over" and event.game is not None:
            game = client.game(event.game) or {}
            print(json.dumps({"game": event.game, "status": game.get("status"), "seat": game.get("seat"),
                              "result": game.get("result"), "players": game.get("players")}), flush=True)
            finished += 1
            current = None
            if rounds and finished >= rounds:
                return 0
            if seek:
                client.seek(seek, players, fill_with_bots_after=fill_with_bots_after)
                seeking = True
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("MAUMAU_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("MAUMAU_TOKEN"), help="a personal token; else sign up")
    parser.add_argument("--name", default="Example bot", help="the new account's display name")
    parser.add_argument("--seek", choices=["classic", "tavern", "house"], help="seek games of these rules")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--fill-with-bots-after", type=int, default=None, help="seconds until server bots fill in")
    parser.add_argument("--rounds", type=int, default=0, help="stop after this many rounds (0: never)")
    args = parser.parse_args()
    if args.token:
        client = MauMau(args.url, args.token)
        print(json.dumps({"player": client.me()["id"]}), flush=True)
    else:  # the new account's token, once: pass it as --token next time to play as the same bot
        client = MauMau.sign_up(args.url, args.name)
        print(json.dumps({"player": client.me()["id"], "token": client.token}), flush=True)
    return run(client, seek=args.seek, players=args.players, fill_with_bots_after=args.fill_with_bots_after,
               rounds=args.rounds)


if __name__ == "__main__":
    sys.exit(main())
