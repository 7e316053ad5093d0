"""Benchmark: ``python -m bench.engine`` prints JSON figures of the engine on one core.

- decisions per second and games per second for each preset with 4 random bots (a decision is
  one ``legal_actions`` + choice + ``apply`` of the seat on turn, calls included);
- the ``basic`` bot's win rate against ``random`` over 2,000 two-player games per preset
  (seats alternate who opens, so neither bot has the first move more often).

A script, not a test: the machines are noisy, so compare figures measured in one run.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from games.engine import PRESETS, RuleSet, apply, choose_bot_action, new_game


def play(rules: RuleSet, levels: list[str], seed: int, first: int = 0) -> tuple[Any, int]:
    """One game between bots of ``levels``; returns the final state and the decisions made."""
    rng = random.Random(seed)
    state = new_game(rules, len(levels), seed=seed, first=first)
    decisions = 0
    seats = range(len(levels))
    while state.status == "active":
        if state.owed or state.hermann is not None:
            for seat in seats:  # calls may come from any seat, not only the one on turn
                if seat != state.turn and (seat in state.owed or (state.hermann and seat in state.hermann)):
                    action = choose_bot_action(state, seat, levels[seat], rng)
                    if action is not None and action["type"] == "say":
                        apply(state, seat, action)
                        decisions += 1
            if state.status != "active":
                break
        seat = state.turn
        apply(state, seat, choose_bot_action(state, seat, levels[seat], rng))
        decisions += 1
    return state, decisions


def speed(name: str, games: int, players: int = 4) -> dict[str, Any]:
    rules = PRESETS[name]
    decisions = 0
    started = time.perf_counter()
    for seed in range(games):
        _, made = play(rules, ["random"] * players, seed)
        decisions += made
    elapsed = time.perf_counter() - started
    return {
        "players": players,
        "games": games,
        "decisions": decisions,
        "decisions_per_second": round(decisions / elapsed),
        "games_per_second": round(games / elapsed, 1),
    }


def duel(name: str, games: int) -> dict[str, Any]:
    rules = PRESETS[name]
    wins = draws = 0
    for seed in range(games):
        basic = seed % 2  # the basic bot sits in seat 0 or 1; seat 0 always opens
        levels = ["random", "random"]
        levels[basic] = "basic"
        state, _ = play(rules, levels, 10_000 + seed)
        winner = state.result["winner"]
        if winner is None:
            draws += 1
        elif winner == basic:
            wins += 1
    return {"games": games, "basic_wins": wins, "no_winner": draws, "basic_win_rate": round(wins / games, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per preset for the speed runs")
    parser.add_argument("--duel-games", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="speed runs per preset; the median is reported")
    args = parser.parse_args()
    report: dict[str, Any] = {"speed": {}, "basic_vs_random": {}}
    for name in PRESETS:
        runs = sorted((speed(name, args.games) for _ in range(args.repeat)),
                      key=lambda run: run["decisions_per_second"])
        report["speed"][name] = runs[len(runs) // 2] | {
            "runs_decisions_per_second": [run["decisions_per_second"] for run in runs]
        }
    for name in PRESETS:
        report["basic_vs_random"][name] = duel(name, args.duel_games)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
