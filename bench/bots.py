"""Bot benchmark (a script, not a test): how the ``hard`` bot (first named ``strong``) plays, how fast it
thinks, how long a person waits for it, and where the three levels people choose settle.

    python -m bench.bots --games 2000 --playouts 1400 --ceiling --seed-start 100000 --line-ups classic_2p tavern_2p
    python -m bench.bots --games 1200 --playouts 1400 --ceiling --seed-start 100000 --line-ups tavern_4p
    python -m bench.bots --games 2000 --playouts 250 --ceiling --seed-start 100000 --line-ups house_2p
    python -m bench.bots --games 1200 --playouts 250 --ceiling --seed-start 100000 --line-ups house_4p
    python -m bench.bots --games 500 --playouts 2600 --seed-start 100000 --line-ups tavern_2p --against BEFORE.json \
        --yardstick-games 0 --latency-moves 0   # deal by deal against an earlier run's report
    python -m bench.bots --games 10 --playouts 1000000 --ms 200 --yardstick-games 0 --latency-moves 0   # thinking time
    python -m bench.bots --games 0 --ratings-rounds 600 --playouts 1400 --yardstick-games 0 --latency-moves 0
    python -m bench.bots --games 0 --latency-moves 60        # only the latency through HTTP

Prints JSON:

- ``win_rates``: ``hard`` against ``basic`` (``medium``) over ``--games`` games per line-up, in the
  engine (no server): two players in each preset, seats alternating (seat 0 opens every game, so each
  bot opens half of them); four players in ``tavern`` and ``house``, one ``hard`` and three ``basic``,
  the hard seat going round. Game ``n`` is dealt from its number and the bot's generator is seeded by
  it, so ``--seed-start`` picks a fresh range of deals and a run with a playout budget (no ``--ms``)
  replays exactly. Each win rate has its 95 % interval (Wilson). Issue 41's goals: two players 0.65,
  four players ``basic``'s own edge in the seat (the yardstick: tavern 0.332, house 0.408); where the
  perfect-information ceiling is lower than the goal plus 0.02, 0.02 below the ceiling.
  ``no_winner`` counts rounds that ended without one (stalemate, ``max_turns``).
- ``--ceiling``: every game again with the other hands shown to the same search (the stock still
  shuffled; ``--shown-hands`` plays only these), a harness never offered as a bot: how far reading the
  hands could take the search at best, per line-up, on the same deals.
- ``--medium-control``: every game again with ``medium`` (the basic bot) in the hard seat, and
  ``lead_over_medium``: hard's win rate minus medium's on the same deals, with the 95 % interval of the
  paired difference. Medium's own share in the seat is the chance by symmetry (0.5, 0.25); on the
  same deals the two differ only where hard's choices changed the round, which a paired difference
  sees with fewer games than two win rates each with its own interval.
- ``deals_won`` (every line) lists the games won, by number. ``--against REPORT`` pairs this run with
  an earlier report of this bench (another search, another budget) on the deals both played:
  ``against_earlier``, the win rate now minus then deal by deal with its 95 % interval, and the deals
  won only now or only then (``now_only``, ``before_only``). Runs of 500 deals from seeds S and S + 500
  are one run of 1,000 in two parts: a game depends only on its number and the budget.
- ``yardstick``: what the basic bot's own choices are worth in each line-up, without search: one
  basic seat among "sensible random" ones (a legal play at random whenever there is one, never a
  draw by choice), and one such seat among basic ones (``--yardstick-games`` per side).
- ``own_play`` (``--own-play-games``): under the playouts' fast path (classic, tavern), the hard bot's
  own weights (``bots.OWN_*``: how its search plays its own seat on at a table of two, and the choice
  that stands where the search shows none better) playing one seat without search against basic bots,
  and the basic bot in that seat on the same deals: ``lead_over_basic`` as above.
- ``search``: the playouts and engine decisions the hard bot made, wall and CPU time per search (p50,
  p99), and playouts per CPU second: the playout budget the worker's 200 ms buy is that pace times
  0.2 (``--ms 200`` with an unreachable ``--playouts`` gives the thinking time per decision itself).
- ``level_ratings`` (``--ratings-rounds``): three-player rounds of ``--ratings-rules`` with one easy,
  one medium and one hard bot (the seating going through every order), rated in round order with
  the service's own model (``scoring.ratings``: OpenSkill Plackett-Luce) and shown as players see a
  rating (``display_rating`` = 1500 + 30 x (mu - 3 sigma)).
- ``latency``: a person plays rounds of ``classic`` against one hard bot through the HTTP API of
  a live server (uvicorn + a Celery worker, started here) with the service's own budget
  (``--service-ms``, the ``MAUMAU_STRONG_BOT_MS`` default 200): per move, the time the person's
  ``POST actions`` takes, and the time until the long-poll (``GET games/{id}?wait=&after=``) shows
  the person on turn again, i.e. until the bot has answered. Median and p99 in ms.

A decision at 200 ms makes 2,000 games far too slow for two shared cores, so the games run with a
budget in playouts per decision (``--playouts``; ``--ms`` adds a time limit) in ``--processes``
processes; the report says which budget it measured.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import random
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import harness
from games.engine import (
    PRESETS,
    GameState,
    Knowledge,
    apply,
    choose_bot_action,
    deal_event,
    legal_actions,
    new_game,
    player_view,
    redact_events,
    strong_action,
)
from games.engine.playouts import compact_rules, playout
from games.engine.search import Worlds

LINE_UPS = [("classic", 2), ("tavern", 2), ("house", 2), ("tavern", 4), ("house", 4)]


def line_up(name: str) -> tuple[str, int]:
    """The rule set and the number of players of a line-up's name (``tavern_4p``)."""
    rules, players = name.split("_")
    return rules, int(players[:-1])


def strong_game(rules_name: str, players: int, number: int, playouts: int, ms: float,
                shown: bool = False, medium: bool = False) -> dict[str, Any]:
    """One game: a strong bot in seat ``number % players``, basic bots elsewhere; seat 0 opens.
    ``shown``: the search sees the other hands as they are (:class:`ShownWorlds`). ``medium``: the
    basic bot plays that seat too (the control: what ``medium`` wins in the seat on the same deal)."""
    rules = PRESETS[rules_name]
    strong = number % players
    state = deal(rules_name, players, number)
    knowledge = ShownKnowledge(rules, strong, state) if shown else Knowledge(rules, strong)
    knowledge.observe(redact_events([deal_event(state)], strong))
    rng = random.Random(number)
    stats: dict[str, int] = {}
    thinking = cpu = 0.0
    searches: list[tuple[float, float]] = []  # each decision that searched: (wall, CPU) seconds

    def choose(seat: int) -> dict[str, Any] | None:
        nonlocal thinking, cpu
        if seat != strong or medium:
            return choose_bot_action(state, seat, "basic", rng)
        started, started_cpu = time.perf_counter(), time.process_time()
        deadline = started + ms / 1000 if ms else None
        before = stats.get("searches", 0)
        action = strong_action(player_view(state, seat), knowledge, rng, playouts=playouts,
                               clock=time.perf_counter if ms else None, deadline=deadline, stats=stats)
        wall, used = time.perf_counter() - started, time.process_time() - started_cpu
        thinking += wall
        cpu += used
        if stats.get("searches", 0) > before:
            searches.append((wall, used))
        return action

    def seen(events: list[dict[str, Any]]) -> None:
        knowledge.observe(redact_events(events, strong))

    play_round(state, choose, seen)
    return {"won": state.result["winner"] == strong, "no_winner": state.result["winner"] is None,
            "playouts": stats.get("playouts", 0), "decisions": stats.get("decisions", 0),
            "searches": stats.get("searches", 0), "thinking": thinking, "cpu": cpu, "times": searches}


def deal(rules_name: str, players: int, number: int) -> GameState:
    """Game ``number`` of a line-up: the same deal for the strong bot's games and the yardstick's."""
    return new_game(PRESETS[rules_name], players, seed=f"bench-bots-{rules_name}-{players}-{number}")


def play_round(state: GameState, choose: Callable[[int], dict[str, Any] | None],
               seen: Callable[[list[dict[str, Any]]], None] = lambda events: None) -> None:
    """Play ``state`` to its end, each seat acting as ``choose`` says; calls may come from any seat,
    as the service's bots say them. ``seen`` gets the events of every move."""
    players = len(state.hands)

    def act(seat: int, action: dict[str, Any]) -> None:
        _, events = apply(state, seat, action)
        seen(events)

    while state.status == "active":
        if state.owed or state.hermann is not None:
            for seat in range(players):
                if seat != state.turn and state.status == "active":
                    action = choose(seat)
                    if action is not None and action["type"] == "say":
                        act(seat, action)
            if state.status != "active":
                break
        seat = state.turn
        act(seat, choose(seat))


class ShownWorlds(Worlds):
    """The search's worlds with every other hand as it is and the stock dealt from what is left: how
    far the same search gets when reading the hands is perfect (a bench harness, never a bot)."""

    def __init__(self, knowledge: ShownKnowledge, view: dict[str, Any], rng: random.Random) -> None:
        super().__init__(knowledge, view, rng)
        self.state = knowledge.state

    def world(self, rng: random.Random, steps: int = 0) -> GameState:
        world = super().world(rng, steps)
        seat = self.knowledge.seat
        others = [other for other in range(len(world.hands)) if other != seat]
        unseen = Counter(world.stock) + Counter(card for other in others for card in world.hands[other])
        for other in others:
            world.hands[other] = list(self.state.hands[other])
            unseen -= Counter(world.hands[other])
        stock = list(unseen.elements())
        rng.shuffle(stock)
        world.stock = stock
        return world


class ShownKnowledge(Knowledge):
    """A seat's knowledge whose worlds show the other hands of ``state`` (:class:`ShownWorlds`)."""

    def __init__(self, rules: Any, seat: int, state: GameState) -> None:
        super().__init__(rules, seat)
        self.state = state

    def worlds(self, view: dict[str, Any], rng: random.Random) -> Worlds:
        return ShownWorlds(self, view, rng)


# --- the yardstick: how far the basic bot's choices are from plain play -----------------------------------


def sensible_random(state: GameState, seat: int, rng: random.Random) -> dict[str, Any] | None:
    """Plain play: every call said, a legal play chosen at random whenever there is one (never a draw
    by choice), a joker named at random; the playouts' default for the other seats."""
    actions = legal_actions(state, seat)
    if not actions:
        return None
    calls = [action for action in actions if action["type"] == "say"]
    if calls:
        return calls[0]
    plays = [action for action in actions if action["type"] == "play"]
    if not plays:
        return actions[0]
    action = rng.choice(plays)
    names = action.get("as")
    if names:
        action = {**action, "as": {joker: rng.choice(name) if isinstance(name, list) else name
                                   for joker, name in names.items()}}
    return action


def yardstick_game(job: tuple[str, int, int, str]) -> tuple[str, int, str, bool]:
    """One game of one seat (``number % players``) playing ``level`` against the other level."""
    rules_name, players, number, level = job
    state = deal(rules_name, players, number)
    alone = number % players
    rng = random.Random(number)

    def choose(seat: int) -> dict[str, Any] | None:
        if (seat == alone) == (level == "basic"):
            return choose_bot_action(state, seat, "basic", rng)
        return sensible_random(state, seat, rng)

    play_round(state, choose)
    return rules_name, players, level, state.result["winner"] == alone


def yardstick(games: int, processes: int, line_ups: list[tuple[str, int]]) -> dict[str, Any]:
    """Per line-up, what the basic bot's choices are worth against plain play: one basic seat among
    sensible-random ones, and one sensible-random seat among basic ones. A goal for ``strong`` against
    ``basic`` means the most when read beside this spread of the same line-up."""
    jobs = [(name, players, number, level) for name, players in line_ups for level in ("basic", "sensible_random")
            for number in range(games)]
    wins: Counter[tuple[str, int, str]] = Counter()
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        for name, players, level, won in pool.imap_unordered(yardstick_game, jobs, chunksize=64):
            wins[(name, players, level)] += won
    return {f"{name}_{players}p": {"games": games, "chance": round(1 / players, 3),
                                    "basic_among_sensible_random": round(wins[(name, players, "basic")] / games, 3),
                                    "sensible_random_among_basic": round(
                                        wins[(name, players, "sensible_random")] / games, 3)}
            for name, players in line_ups}


def own_play_game(job: tuple[str, int, int]) -> tuple[str, int, int, bool, bool]:
    """One deal played twice on the playouts' fast path: the seat ``number % players`` playing as the
    hard bot plays its own cards (``playout(own=...)``, no search), then as the basic bot; the others
    basic both times, as the playouts play it (a 7 answering a 7 is laid at random among the seat's 7s).
    Whether the seat won each time."""
    rules_name, players, number = job
    seat = number % players
    won = []
    for own in (seat, None):
        state = deal(rules_name, players, number)
        playout(state, random.Random(number).random, basic=True, own=own)
        won.append(state.result["winner"] == seat)
    return rules_name, players, number, won[0], won[1]


def own_play(games: int, processes: int, line_ups: list[tuple[str, int]], first: int) -> dict[str, Any]:
    """Per line-up under the playouts' fast path, what the hard bot's own weights (``bots.OWN_*``) win
    without search against basic bots, and their lead over the basic bot in the seat, deal by deal."""
    line_ups = [(name, players) for name, players in line_ups if compact_rules(PRESETS[name]) is not None]
    jobs = [(name, players, number) for name, players in line_ups for number in range(first, first + games)]
    found: dict[tuple[str, int], tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
        line: ([], []) for line in line_ups}
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        for name, players, number, own, basic in pool.imap_unordered(own_play_game, jobs, chunksize=256):
            found[(name, players)][0].append({"number": number, "won": own})
            found[(name, players)][1].append({"number": number, "won": basic})
    report = {}
    for (name, players), (own_games, basic_games) in found.items():
        wins = sum(game["won"] for game in own_games)
        report[f"{name}_{players}p"] = {
            "games": games, "own_play_wins": round(wins / games, 3), "interval_95": interval(wins, games),
            "basic_in_the_seat": round(sum(game["won"] for game in basic_games) / games, 3),
            "lead_over_basic": lead(own_games, basic_games)}
    return report


def _game(job: tuple[str, int, int, int, float, str]) -> tuple[str, int, str, dict[str, Any]]:
    rules_name, players, number, playouts, ms, mode = job
    found = strong_game(rules_name, players, number, playouts, ms, mode == "ceiling", mode == "medium_control")
    return rules_name, players, mode, found | {"number": number}


#: what ``basic`` itself gains over sensible-random play in the strong seat with four players
#: (the yardstick, 4,000 games per side at 02101b3): the four-player goal of issue 41
BASIC_EDGE = {"tavern_4p": 0.332, "house_4p": 0.408}


def interval(wins: int, games: int) -> list[float] | None:
    """The 95 % interval of a win rate (Wilson's score interval: sound near 0 and 1 and for few games)."""
    if not games:
        return None
    z = 1.959964
    share = wins / games
    middle = (share + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(share * (1 - share) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return [round(middle - half, 3), round(middle + half, 3)]


def lead(hard: list[dict[str, Any]], medium: list[dict[str, Any]],
         names: tuple[str, str] = ("hard_only", "medium_only")) -> dict[str, Any]:
    """Hard's win rate minus medium's in the same seat of the same deals, with the 95 % interval of the
    paired difference (normal approximation on the per-deal differences; the deals the two won
    differently say it all: ``names``, by default ``hard_only`` and ``medium_only``)."""
    won = {game["number"]: game["won"] for game in medium}
    pairs = [(game["won"], won[game["number"]]) for game in hard if game["number"] in won]
    if not pairs:
        return {"deals": 0}
    differences = [int(first) - int(second) for first, second in pairs]
    count = len(differences)
    mean = sum(differences) / count
    spread = sum((value - mean) ** 2 for value in differences) / max(count - 1, 1)
    half = 1.959964 * math.sqrt(spread / count)
    return {"deals": count, "difference": round(mean, 3), "interval_95": [round(mean - half, 3), round(mean + half, 3)],
            names[0]: sum(first and not second for first, second in pairs),
            names[1]: sum(second and not first for first, second in pairs)}


def against_earlier(report: dict[str, Any], earlier: dict[str, Any]) -> None:
    """Pair each line-up of ``report`` with the same line-up of an ``earlier`` report of this bench (another
    search, another budget) on the deals both played: ``against_earlier``, the win rate now minus then
    deal by deal (:func:`lead`; ``now_only`` and ``before_only``). A game's result depends only on its
    number and the budget, so two runs of one search on the same deals agree game for game."""
    first, now_first = earlier.get("budget", {}).get("seed_start", 0), report["budget"]["seed_start"]
    for key, line in report["win_rates"].items():
        before = earlier.get("win_rates", {}).get(key)
        if before is None or "deals_won" not in before or "deals_won" not in line:
            continue
        won_before, won_now = set(before["deals_won"]), set(line["deals_won"])
        numbers = range(max(first, now_first), min(first + before["games"], now_first + line["games"]))
        line["against_earlier"] = lead([{"number": number, "won": number in won_now} for number in numbers],
                                       [{"number": number, "won": number in won_before} for number in numbers],
                                       ("now_only", "before_only"))


def goal(key: str, ceiling: float | None) -> dict[str, Any]:
    """Issue 41's goal for a line-up: two players 0.65, four the basic bot's own edge in the seat;
    where the perfect-information ceiling is lower than the goal plus 0.02, 0.02 below the ceiling."""
    players = int(key.rsplit("_", 1)[1][:-1])
    wanted = 0.65 if players == 2 else BASIC_EDGE.get(key, 1 / players)
    if ceiling is not None and ceiling < wanted + 0.02:
        return {"win_rate": round(ceiling - 0.02, 3), "from": "ceiling - 0.02"}
    return {"win_rate": wanted, "from": "0.65 against basic" if players == 2 else "basic's own edge (yardstick)"}


def win_rates(games: int, playouts: int, ms: float, processes: int,
              line_ups: list[tuple[str, int]] = LINE_UPS, first: int = 0, shown: bool = False,
              ceiling: bool = False, medium_control: bool = False) -> dict[str, Any]:
    """``games`` games per line-up, numbered from ``first`` (each dealt and seeded by its number);
    ``ceiling``: the same games again with the other hands shown to the search (``shown``: only those);
    ``medium_control``: the same games again with the basic bot in the hard seat, and hard's lead over
    it deal by deal."""
    modes = ["ceiling"] if shown else ["bot"] + ["ceiling"] * ceiling + ["medium_control"] * medium_control
    jobs = [(name, players, number, playouts, ms, mode) for mode in modes for name, players in line_ups
            for number in range(first, first + games)]
    results: dict[tuple[str, str], list[dict[str, Any]]] = {
        (f"{name}_{players}p", mode): [] for name, players in line_ups for mode in modes}
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        for name, players, mode, found in pool.imap_unordered(_game, jobs, chunksize=4):
            results[(f"{name}_{players}p", mode)].append(found)
    elapsed = time.perf_counter() - started
    report: dict[str, Any] = {}
    for (key, mode), found in results.items():
        wins = sum(g["won"] for g in found)
        line = {"games": len(found), "wins": wins, "no_winner": sum(g["no_winner"] for g in found),
                "win_rate": round(wins / max(len(found), 1), 3), "interval_95": interval(wins, len(found))}
        line["deals_won"] = sorted(game["number"] for game in found if game["won"])  # to pair runs (--against)
        if mode != "bot" and not shown:
            report[key][mode] = line
        else:
            report[key] = line
    if medium_control and not shown:
        for key in report:
            report[key]["lead_over_medium"] = lead(results[(key, "bot")], results[(key, "medium_control")])
    for key, line in report.items():
        top = line.get("ceiling", line if shown else {}).get("win_rate")
        line["goal"] = goal(key, top)
        if not shown:
            line["met"] = line["win_rate"] >= line["goal"]["win_rate"]
    bot_games = [game for (key, mode), found in results.items() if mode == "bot" or shown for game in found]
    thinking = sum(g["thinking"] for g in bot_games)
    cpu = sum(g["cpu"] for g in bot_games)
    decisions = sum(g["decisions"] for g in bot_games)
    playouts = sum(g["playouts"] for g in bot_games)
    searches = sum(g["searches"] for g in bot_games)
    times = [time for g in bot_games for time in g["times"]]

    def ms_at(index: int, share: float) -> float | None:
        found = harness.percentile([time[index] for time in times], share)
        return None if found is None else round(1000 * found, 1)

    search = {"playouts": playouts, "engine_decisions": decisions, "searches": searches,
              "thinking_seconds": round(thinking, 1), "cpu_seconds": round(cpu, 1),
              "decisions_per_cpu_second": round(decisions / cpu) if cpu else None,
              "ms_per_search": {"wall_p50": ms_at(0, 0.5), "wall_p99": ms_at(0, 0.99),
                                "cpu_p50": ms_at(1, 0.5), "cpu_p99": ms_at(1, 0.99)},
              "playouts_per_cpu_second": round(playouts / cpu) if cpu else None,
              "wall_seconds": round(elapsed, 1)}
    return {"win_rates": report, "search": search}


# --- the levels against each other, rated as the service rates players -----------------------------------

#: the seatings of a ratings round by its players: every order of the three levels, or of each two
SEATINGS = {3: list(itertools.permutations(("easy", "medium", "hard"))),
            2: list(itertools.permutations(("easy", "medium", "hard"), 2))}


def levels_game(job: tuple[str, int, int, int]) -> tuple[int, dict[str, int]]:
    """One round of ``rules_name`` with bots of different levels (the seating by ``number``): each level's rank."""
    rules_name, players, number, playouts = job
    seatings = SEATINGS[players]
    levels = seatings[number % len(seatings)]
    state = new_game(PRESETS[rules_name], len(levels), seed=f"bench-bots-levels-{rules_name}-{number}")
    hard = levels.index("hard") if "hard" in levels else -1
    knowledge = Knowledge(state.rules, max(hard, 0))
    knowledge.observe(redact_events([deal_event(state)], max(hard, 0)))
    rng = random.Random(number)

    def choose(seat: int) -> dict[str, Any] | None:
        if seat != hard:
            return choose_bot_action(state, seat, levels[seat], rng)
        return strong_action(player_view(state, seat), knowledge, rng, playouts=playouts)

    play_round(state, choose, lambda events: knowledge.observe(redact_events(events, max(hard, 0))))
    return number, {levels[row["seat"]]: row["rank"] for row in state.result["players"]}


def level_ratings(rounds: int, rules_name: str, playouts: int, processes: int, first: int,
                  players: int = 3) -> dict[str, Any]:
    """``rounds`` rounds of bots of different levels (``players`` 3: one of each; 2: each pair in turn), rated
    in the order of their numbers with the service's own model (:func:`scoring.ratings.rated_after`), shown
    on the familiar scale players see."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
    import django

    django.setup()
    from scoring.ratings import INITIAL_MU, INITIAL_SIGMA, display_value, familiar_rating, rated_after

    jobs = [(rules_name, players, number, playouts) for number in range(first, first + rounds)]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        found = sorted(pool.imap_unordered(levels_game, jobs, chunksize=2))
    levels = ("easy", "medium", "hard")
    ratings = {level: (INITIAL_MU, INITIAL_SIGMA) for level in levels}
    wins: Counter[str] = Counter()
    played: Counter[str] = Counter()
    for _number, ranks in found:
        seated = [level for level in levels if level in ranks]
        after = rated_after([ratings[level] for level in seated], [ranks[level] for level in seated])
        ratings |= dict(zip(seated, after, strict=True))
        played.update(seated)
        wins.update(level for level in seated if ranks[level] == 1 and list(ranks.values()).count(1) == 1)
    return {"rules": rules_name, "players": players, "rounds": len(found), "hard_playouts_per_decision": playouts,
            "levels": {level: {"display_rating": familiar_rating(display_value(*ratings[level])),
                               "mu": round(ratings[level][0], 2), "sigma": round(ratings[level][1], 2),
                               "rounds": played[level], "wins": wins[level],
                               "win_rate": round(wins[level] / max(played[level], 1), 3),
                               "interval_95": interval(wins[level], played[level])}
                       for level in levels}}


# --- latency through the HTTP API ------------------------------------------------------------------------


def latency(moves: int, service_ms: int, database_url: str, broker_url: str, port: int) -> dict[str, Any]:
    """A person against one strong bot on a live server; see the module docstring."""
    import httpx

    queue = f"bench-bots-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url,
           "MAUMAU_CLOCK_QUEUE": queue, "MAUMAU_BOT_QUEUE": queue, "MAUMAU_DELIVERY_QUEUE": queue,
           "MAUMAU_STRONG_BOT_MS": str(service_ms),
           "MAUMAU_WRITE_RATE": "100000/min", "LOG_LEVEL": "WARNING", "PYTHONPATH": str(harness.ROOT)}
    if database_url.startswith("postgres"):
        harness.database_create(database_url)
    harness.migrate(env)
    tmp = Path(tempfile.mkdtemp(prefix="bench-bots-"))
    web = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / "web.log")
    worker = harness.celery("worker", ["-Q", queue, "-n", f"{queue}@%h", "--concurrency", "1", "--loglevel",
                                       "INFO", "--without-gossip", "--without-mingle"], env=env, log=tmp / "worker.log")
    posts: list[float] = []
    answers: list[float] = []
    try:
        web.wait_for_http(port)
        worker.wait_for_output(" ready.")
        base = f"http://127.0.0.1:{port}/api/v1"
        with httpx.Client(base_url=base, timeout=60) as client:
            token = client.post("/players", json={"name": "Bench person"}).json()["token"]
            client.headers["Authorization"] = f"Token {token}"
            table = client.post("/tables", json={"rules": "classic", "options": {"turn_seconds": 0}}).json()
            client.post(f"/tables/{table['id']}/bots", json={"level": "strong"}).raise_for_status()
            rng = random.Random(1)
            game = None
            while len(answers) < moves:
                if game is None or game["status"] != "active":
                    game = client.post(f"/tables/{table['id']}/rounds", json={}).json()
                    game = _until_my_turn(client, game)
                    continue
                legal = [a for a in game["legal_actions"] if a["type"] != "say"] or game["legal_actions"]
                action = rng.choice(legal)
                if action.get("as"):
                    action = {**action, "as": {j: n[0] if isinstance(n, list) else n for j, n in action["as"].items()}}
                started = time.perf_counter()
                response = client.post(f"/games/{game['id']}/actions", json=action)
                posts.append(time.perf_counter() - started)
                response.raise_for_status()
                game = response.json()
                if game["status"] == "active" and game["turn"] != game["seat"]:
                    game = _until_my_turn(client, game)
                    answers.append(time.perf_counter() - started)
    finally:
        worker.stop()
        web.stop()
        if broker_url.startswith("redis"):
            import redis

            redis.Redis.from_url(broker_url).delete(queue)

    def ms(values: list[float], share: float) -> float | None:
        found = harness.percentile(values, share)
        return None if found is None else round(found * 1000, 1)

    return {"moves": len(answers), "service_ms_per_decision": service_ms,
            "post_action_ms": {"p50": ms(posts, 0.5), "p99": ms(posts, 0.99)},
            "until_the_bot_has_answered_ms": {"p50": ms(answers, 0.5), "p99": ms(answers, 0.99)}}


def _until_my_turn(client: Any, game: dict[str, Any]) -> dict[str, Any]:
    """Long-poll until the person may act again (or the round is over)."""
    while game["status"] == "active" and not (game["turn"] == game["seat"] and game["legal_actions"]):
        response = client.get(f"/games/{game['id']}", params={"wait": 30, "after": game["version"]})
        if response.status_code == 200:
            game = response.json()
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000, help="games per line-up (0: none)")
    parser.add_argument("--seed-start", "--first-game", dest="first_game", type=int, default=0,
                        help="the number of the first game (games are dealt and seeded by their number: a "
                             "later run on a fresh seed range confirms what an earlier one found)")
    parser.add_argument("--ceiling", action="store_true",
                        help="also play every game with the other hands shown to the search: the "
                             "perfect-information ceiling of each line-up, on the same deals")
    parser.add_argument("--ratings-rounds", type=int, default=0,
                        help="three-player rounds of easy, medium and hard against each other, rated as the "
                             "service rates players (0: none)")
    parser.add_argument("--ratings-rules", default="tavern", choices=sorted(PRESETS))
    parser.add_argument("--ratings-players", type=int, default=3, choices=sorted(SEATINGS),
                        help="3: one bot of each level a round; 2: each pair of levels in turn")
    parser.add_argument("--playouts", type=int, default=1000, help="the strong bot's playouts per decision")
    parser.add_argument("--ms", type=float, default=0, help="and at most this many ms per decision (0: no limit)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--line-ups", nargs="*", default=[f"{name}_{players}p" for name, players in LINE_UPS],
                        choices=[f"{name}_{players}p" for name, players in LINE_UPS], help="which games to play")
    parser.add_argument("--medium-control", action="store_true",
                        help="also play every game with medium (the basic bot) in the hard seat: hard's lead "
                             "over medium deal by deal, with its 95 %% interval")
    parser.add_argument("--against", type=argparse.FileType("r"), metavar="REPORT",
                        help="an earlier run's JSON report: each line-up's win rate now minus then on the deals "
                             "both played, deal by deal, with its 95 %% interval (against_earlier)")
    parser.add_argument("--shown-hands", action="store_true",
                        help="the search sees the other hands (the stock stays hidden): a ceiling, not the bot")
    parser.add_argument("--yardstick-games", type=int, default=4000,
                        help="games per line-up and side of the basic/sensible-random yardstick (0: none)")
    parser.add_argument("--own-play-games", type=int, default=0,
                        help="deals per line-up (from --seed-start) on which the hard bot's own weights play "
                             "one seat without search against basic bots, then the basic bot does (0: none)")
    parser.add_argument("--latency-moves", type=int, default=60, help="the person's moves (0: no latency run)")
    parser.add_argument("--service-ms", type=int, default=200)
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", "0")) or None)
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_bench_bots"))
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args(argv)
    earlier = None
    if args.against is not None:
        try:
            earlier = json.load(args.against)
        except ValueError as error:
            parser.error(f"--against: not a report of this bench ({error})")
        if not isinstance(earlier, dict) or not isinstance(earlier.get("win_rates"), dict):
            parser.error("--against: not a report of this bench (it has no win_rates)")
    report: dict[str, Any] = {}
    line_ups = [line_up(key) for key in args.line_ups]
    if args.games:
        report["budget"] = {"playouts_per_decision": args.playouts, "ms_per_decision": args.ms or None,
                            "processes": args.processes}
        report["budget"]["seed_start"] = args.first_game
        if args.shown_hands:
            report["budget"]["shown_hands"] = True
        report |= win_rates(args.games, args.playouts, args.ms, args.processes, line_ups, args.first_game,
                            args.shown_hands, args.ceiling, args.medium_control)
        if earlier is not None:
            against_earlier(report, earlier)
    if args.ratings_rounds:
        report["level_ratings"] = level_ratings(args.ratings_rounds, args.ratings_rules, args.playouts,
                                                args.processes, args.first_game, args.ratings_players)
    if args.own_play_games:
        report["own_play"] = own_play(args.own_play_games, args.processes, line_ups, args.first_game)
    if args.yardstick_games:
        report["yardstick"] = yardstick(args.yardstick_games, args.processes, line_ups)
    if args.latency_moves:
        report["latency"] = latency(args.latency_moves, args.service_ms, args.database_url, args.broker_url,
                                    args.port or harness.free_port())
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
