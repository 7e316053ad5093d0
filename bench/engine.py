"""Benchmark: ``python -m bench.engine`` prints JSON figures of the engine on one core.

- decisions per second and games per second for each preset with 4 random bots (a decision is
  one ``legal_actions`` + choice + ``apply`` of the seat on turn, calls included);
- ``playouts``: the same random games through the playout fast path (``games.engine.playouts``:
  compact moves, the action built only for the move chosen), which search runs on, beside
  OpenSpiel's C++ ``crazy_eights`` (4 players, random moves and chance outcomes chosen from
  Python) measured in the same run, interleaved; ``ratio`` is ours over OpenSpiel's. On a shared
  machine the process's CPU time is the steadier clock, so both clocks are reported.
  OpenSpiel is ``pip install -r requirements-bench.txt``; without it that figure is null with the reason;
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
from games.engine.playouts import playout


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


def fast_speed(name: str, games: int, players: int = 4) -> dict[str, float]:
    """Random playouts through the fast path: decisions per wall second and per CPU second."""
    rules = PRESETS[name]
    decisions = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in range(games):
        state = new_game(rules, players, seed=seed)
        decisions += playout(state, random.Random(seed).random)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"decisions": decisions, "per_second": decisions / wall, "per_cpu_second": decisions / cpu}


def open_spiel_speed(games: int, players: int = 4) -> dict[str, float] | None:
    """OpenSpiel's crazy_eights driven from Python: random legal actions and chance outcomes."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("crazy_eights", {"players": players})
    rng = random.Random(1)
    decisions = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])  # equally likely cards
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"decisions": decisions, "per_second": decisions / wall, "per_cpu_second": decisions / cpu}


def playout_comparison(games: int, repeat: int) -> dict[str, Any]:
    """Each preset's fast random playouts and OpenSpiel's, interleaved ``repeat`` times; medians."""
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in PRESETS}
    spiel: list[dict[str, float]] = []
    for _ in range(repeat):
        for name in PRESETS:
            runs[name].append(fast_speed(name, games))
            found = open_spiel_speed(games)
            if found is not None:
                spiel.append(found)

    def median(values: list[float]) -> int:
        return round(sorted(values)[len(values) // 2])

    report: dict[str, Any] = {"games_per_run": games, "runs": repeat}
    open_spiel = None
    if spiel:
        open_spiel = {clock: median([run[clock] for run in spiel]) for clock in ("per_second", "per_cpu_second")}
        report["open_spiel_crazy_eights_4p"] = {"decisions_per_second": open_spiel["per_second"],
                                                "decisions_per_cpu_second": open_spiel["per_cpu_second"]}
    else:
        report["open_spiel_crazy_eights_4p"] = {"unavailable": "pyspiel is not installed "
                                                               "(pip install -r requirements-bench.txt)"}
    for name, found in runs.items():
        ours = {clock: median([run[clock] for run in found]) for clock in ("per_second", "per_cpu_second")}
        entry: dict[str, Any] = {"players": 4, "decisions_per_second": ours["per_second"],
                                 "decisions_per_cpu_second": ours["per_cpu_second"]}
        if open_spiel is not None:
            entry["ratio_to_open_spiel"] = round(ours["per_second"] / open_spiel["per_second"], 2)
            entry["cpu_ratio_to_open_spiel"] = round(ours["per_cpu_second"] / open_spiel["per_cpu_second"], 2)
        report[name] = entry
    return report


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
    parser.add_argument("--playout-games", type=int, default=500, help="games per run of the playout comparison")
    parser.add_argument("--playout-repeat", type=int, default=5)
    args = parser.parse_args()
    report: dict[str, Any] = {"speed": {}, "playouts": {}, "basic_vs_random": {}}
    for name in PRESETS:
        runs = sorted((speed(name, args.games) for _ in range(args.repeat)),
                      key=lambda run: run["decisions_per_second"])
        report["speed"][name] = runs[len(runs) // 2] | {
            "runs_decisions_per_second": [run["decisions_per_second"] for run in runs]
        }
    report["playouts"] = playout_comparison(args.playout_games, args.playout_repeat)
    for name in PRESETS:
        report["basic_vs_random"][name] = duel(name, args.duel_games)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
