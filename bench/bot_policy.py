"""What the hard bot's own weighing of its cards is worth without search (a script, not a test).

    python -m bench.bot_policy --games 200000 --seed-start 5000000 --line-ups classic_2p tavern_2p tavern_4p

The hard bot falls back on its own weighing (``playouts.hard_weigh``, weights ``bots.HARD_*``) unless
its search shows a better move, and plays its own seat so in its playouts. Here one seat weighs so and
every other seat is the basic bot (``medium``), on the fast path of the playouts, no search: every
deal is played twice, once with that seat weighing as the hard bot and once as the basic bot, from the
same generator (it only picks among 7s when a draw is owed). Prints JSON per line-up: both win rates
and the difference deal by deal with its 95 % interval (``hard_only`` / ``medium_only`` count the
deals just one of the two won). The seat goes round with the deal's number, as in ``bench.bots``,
whose deals these are. Only compact rules (``classic``, ``tavern``): under the house rules the hard
bot falls back on the basic bot's choice.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import time
from typing import Any

from bench.bots import deal, lead
from games.engine.playouts import compact_rules, playout

LINE_UPS = ["classic_2p", "tavern_2p", "tavern_4p"]


def policy_game(job: tuple[str, int, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Deal ``number`` played with the seat ``number % players`` weighing as the hard bot, then as the
    basic bot: whether that seat won each time."""
    rules_name, players, number = job
    seat = number % players
    found = []
    for hard_seat in (seat, -1):
        state = deal(rules_name, players, number)
        playout(state, random.Random(number).random, basic=True, hard_seat=hard_seat)
        found.append({"number": number, "won": (state.result or {}).get("winner") == seat})
    return found[0], found[1]


def policy_rates(games: int, first: int, line_ups: list[str], processes: int) -> dict[str, Any]:
    report: dict[str, Any] = {}
    with multiprocessing.Pool(processes) as pool:
        for key in line_ups:
            rules_name, players = key.split("_")
            count = int(players[:-1])
            jobs = [(rules_name, count, number) for number in range(first, first + games)]
            pairs = pool.map(policy_game, jobs, chunksize=500)
            hard, medium = [pair[0] for pair in pairs], [pair[1] for pair in pairs]
            report[key] = {"games": games, "hard_weighing": round(sum(g["won"] for g in hard) / games, 4),
                           "medium": round(sum(g["won"] for g in medium) / games, 4),
                           "lead_over_medium": lead(hard, medium)}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200_000, help="deals per line-up (at least 1)")
    parser.add_argument("--seed-start", type=int, default=5_000_000, help="the first deal's number")
    parser.add_argument("--line-ups", nargs="+", default=LINE_UPS, choices=LINE_UPS)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    if args.games < 1 or args.processes < 1:
        parser.error("--games and --processes must be at least 1")
    for key in args.line_ups:
        assert compact_rules(deal(key.split("_")[0], 2, 0).rules) is not None
    started = time.perf_counter()
    report = {"policy": policy_rates(args.games, args.seed_start, args.line_ups, args.processes),
              "seed_start": args.seed_start, "wall_seconds": round(time.perf_counter() - started, 1)}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
