"""The hard bot's choices judged one by one (a script, not a test): at every decision where it searches,
what each of its moves is worth with the hands as they are, against the basic bot's choice.

    python -m bench.bot_decisions --line-up tavern_4p --games 150 --seed-start 500000 --playouts 1400
    python -m bench.bot_decisions --line-up house_2p --games 150 --seed-start 750000 --playouts 450 \
        --true-playouts 100 --variant ENGINE_BASIC_ROLLOUTS=False

A game's win or loss says little about one choice, and a win rate needs thousands of games to tell
two searches apart by a few points. Here the hard bot plays games against basic bots as in
``bench.bots`` (one hard seat, the seat going round), and at each decision it searched the bench
also plays every move it weighed out from the true state: ``--true-playouts`` times, the stock
shuffled anew each time (what nobody has seen), every seat then playing as the basic bot (which the
other seats are), every move from the same shuffle. That is each move's true chance to win, were
the hard seat to play as medium from then on; a search's choice is worth its true chance minus that
of medium's choice (``gain``), summed over a game: how much more often hard wins a round than
medium would, to first order (at a table of two under classic and tavern rules the choice that stands
is the seat's own play, ``search.OWN_PLAYS``, and the gain is over that). The same outcomes judge any
rule of choice, so the bench reports the
gain of the paired test at several confidences (``search.paired_choice``) on the same decisions,
with a 95 % interval over games, and the same for the search seeing the other hands (the ceiling of
``bench.bots``) at the same positions, and how often the two choose alike.

``--shown-shares 0.25 0.5`` also weighs every decision with worlds that show that share of each
other hand's unknown cards as they are (the rest dealt as the bot deals them): what reading the hands
better would be worth, between the bot (share 0) and the ceiling (share 1). The shown cards are drawn
anew at each decision.

``--budgets 350 700`` also judges the choices the search would have made at those smaller budgets: the
first worlds of the same search (``search.paired_outcomes`` draws its worlds one after another from the
decision's random numbers, so the search at a smaller budget weighs a prefix of the rows). What more
playouts would be worth, decision by decision on the same positions; ``--report FILE`` reports the
games a ``--save`` wrote, with other ``--budgets``, without playing them again. ``--budgets-of engine``
judges the smaller budgets of a variant instead (its first worlds likewise), each also against the
bot's search at its full budget: a slower variant at the budget the bot's CPU time buys.

``--engine-basic-playouts N`` also weighs every decision with the house rules' basic playouts
(``search.ENGINE_BASIC_ROLLOUTS``, the search's own since they were measured better; ``--variant
ENGINE_BASIC_ROLLOUTS=False`` weighs the sensible-random ones they replaced) at ``N`` playouts, and
reports its gain beside the default's and the difference, decision by decision on the same
positions, with its 95 % interval; ``--cutoff-playouts N --cutoff D`` the same for playouts cut
after ``D`` decisions and scored by the hands' sizes (``search.CUTOFF``), which buy more playouts in
the same time; ``--variant LIKELIHOOD=1.0`` (any of ``search``'s constants, a number or True/False)
the same for the search with those constants, at ``--variant-playouts`` (default ``--playouts``).

Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from typing import Any

from bench.bots import ShownKnowledge, deal, line_up, play_round
from games.engine import PRESETS, Knowledge, choose_bot_action, deal_event, player_view, redact_events, search
from games.engine.playouts import playout, playout_apply
from games.engine.state import ACTIVE, GameState

#: the confidences the gain is reported at (search.CONFIDENCE is the bot's)
CONFIDENCES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
#: the other searches a decision may be weighed with too (their key in a decision: their name in the report)
VARIANTS = {"engine": "engine_basic_playouts", "cutoff": "cutoff_playouts", "variant": "variant"}


def true_chances(state: GameState, seat: int, actions: list[dict[str, Any]], count: int,
                 rng: random.Random) -> list[float]:
    """Each action's share of ``count`` playouts won from the true hands, the stock shuffled anew for
    each and every seat then playing as the basic bot (all actions from the same shuffle)."""
    moves = search.root_moves_of(state, seat, actions)
    wins = [0.0] * len(actions)
    for _ in range(count):
        seed = rng.getrandbits(32)
        stock = list(state.stock)
        rng.shuffle(stock)
        for index, move in enumerate(moves):
            played = state.copy()
            played.stock = list(stock)
            playout_apply(played, seat, move)
            if played.status == ACTIVE:
                playout(played, random.Random(seed).random, sensible=True, basic=True, basic_engine=True)
            wins[index] += search.reward(played, seat)
    return [won / count for won in wins]


def aligned(actions: list[dict[str, Any]], found: tuple[list[dict[str, Any]], int | None, list[list[float]]] | None
            ) -> list[list[float]] | None:
    """Another search's outcomes in the order of ``actions`` (None if it weighed other moves)."""
    if found is None or sorted(map(json.dumps, found[0])) != sorted(map(json.dumps, actions)):
        return None
    order = [found[0].index(action) for action in actions]
    return [[rewards[index] for index in order] for rewards in found[2]]


class PartlyShownKnowledge(Knowledge):
    """A seat's knowledge whose worlds are told a share of each other hand of ``state`` (a bench
    harness, never a bot): at every decision, that share of the cards the seat does not know there,
    drawn at random, become known cards of that hand for the decision's worlds."""

    def __init__(self, rules: Any, seat: int, state: GameState, share: float, rng: random.Random) -> None:
        super().__init__(rules, seat)
        self.state, self.share, self.told = state, share, rng

    def worlds(self, view: dict[str, Any], rng: random.Random) -> search.Worlds:
        kept = {other: list(cards) for other, cards in self.known.items()}
        for other, hand in enumerate(self.state.hands):
            if other == self.seat:
                continue
            unknown = [card for card in hand if card not in kept.get(other, ())]
            count = min(len(unknown), max(0, round(self.share * len(unknown) + self.told.random() - 0.5)))
            self.known[other] = kept.get(other, []) + self.told.sample(unknown, count)
        try:
            return super().worlds(view, rng)  # the chain copies what it needs of ``known`` at once
        finally:
            self.known = kept


def judged_game(rules_name: str, players: int, number: int, playouts: int, true_playouts: int,
                variants: dict[str, tuple[dict[str, Any], int]] | None = None,
                shares: tuple[float, ...] = ()) -> dict[str, Any]:
    """One game as ``bench.bots`` plays it (the hard seat ``number % players``), every searched decision
    recorded with its outcomes, the ceiling's, and the true chances of its moves. ``variants``: other
    searches that weigh each decision too, by name, as the settings of ``search`` they change and their
    budget (:data:`VARIANTS`)."""
    rules = PRESETS[rules_name]
    hard = number % players
    state = deal(rules_name, players, number)
    knowledge, shown = Knowledge(rules, hard), ShownKnowledge(rules, hard, state)
    told = random.Random(number * 13 + 5)
    partly = {share: PartlyShownKnowledge(rules, hard, state, share, told) for share in shares}
    every = (knowledge, shown, *partly.values())
    for seen in every:
        seen.observe(redact_events([deal_event(state)], hard))
    rng = random.Random(number)
    judge = random.Random(number * 7 + 1)
    confidence = search.confidence_for(rules, players)
    decisions: list[dict[str, Any]] = []

    def choose(seat: int) -> dict[str, Any] | None:
        if seat != hard:
            return choose_bot_action(state, seat, "basic", rng)
        view = player_view(state, seat)
        started = time.process_time()
        found = search.search_outcomes(view, knowledge, random.Random(rng.getrandbits(32)), playouts)
        cpu = time.process_time() - started
        ceiling = search.search_outcomes(view, shown, random.Random(rng.getrandbits(32)), playouts)
        if found is None:
            return search.strong_action(view, knowledge, rng, playouts=playouts)
        actions, sensible, outcomes = found
        decision: dict[str, Any] = {"sensible": sensible, "outcomes": outcomes, "ceiling": aligned(actions, ceiling),
                                    "true": true_chances(state, seat, actions, true_playouts, judge), "cpu": cpu}
        for share, partial in partly.items():
            decision[f"shown_{share}"] = aligned(
                actions, search.search_outcomes(view, partial, random.Random(rng.getrandbits(32)), playouts))
        for name, (settings, budget) in (variants or {}).items():
            before = {setting: getattr(search, setting) for setting in settings}
            for setting, value in settings.items():
                setattr(search, setting, value)
            try:
                started = time.process_time()
                other = search.search_outcomes(view, knowledge, random.Random(rng.getrandbits(32)), budget)
                decision[f"{name}_cpu"] = time.process_time() - started
            finally:
                for setting, value in before.items():
                    setattr(search, setting, value)
            decision[name] = aligned(actions, other)
        decisions.append(decision)
        return actions[search.paired_choice(outcomes, sensible, confidence)]

    def seen(events: list[dict[str, Any]]) -> None:
        redacted = redact_events(events, hard)
        for seat_knowledge in every:
            seat_knowledge.observe(redacted)

    play_round(state, choose, seen)
    return {"number": number, "line_up": f"{rules_name}_{players}p", "won": state.result["winner"] == hard,
            "decisions": decisions}


def mean_interval(values: list[float]) -> dict[str, Any]:
    """The mean and its 95 % interval (normal approximation)."""
    count = len(values)
    mean = sum(values) / max(count, 1)
    spread = sum((value - mean) ** 2 for value in values) / max(count - 1, 1)
    half = 1.959964 * math.sqrt(spread / max(count, 1))
    return {"mean": round(mean, 4), "interval_95": [round(mean - half, 4), round(mean + half, 4)]}


def gains(games: list[dict[str, Any]], key: str, confidence: float) -> tuple[list[float], int]:
    """Per game, the true chance the choices of ``key``'s outcomes at ``confidence`` add to medium's;
    and how many of them differ from medium's choice."""
    per_game, switched = [], 0
    for game in games:
        total = 0.0
        for decision in game["decisions"]:
            outcomes, sensible = decision.get(key), decision["sensible"]
            if outcomes is None or sensible is None:
                continue
            chosen = search.paired_choice(outcomes, sensible, confidence)
            switched += chosen != sensible
            total += decision["true"][chosen] - decision["true"][sensible]
        per_game.append(total)
    return per_game, switched


def prefix(outcomes: list[list[float]] | None, playouts: int) -> list[list[float]] | None:
    """The rows the search would have weighed at ``playouts`` (``search.paired_outcomes`` makes one row
    of ``len(moves)`` playouts per world until it has made ``playouts``)."""
    if not outcomes:
        return outcomes
    count = len(outcomes[0])
    return outcomes[:max(1, -(-max(playouts, count) // count))]


def budget_report(games: list[dict[str, Any]], budgets: list[int], confidence: float,
                  key: str = "outcomes") -> dict[str, Any]:
    """For each smaller budget of ``key``'s search (the bot's, or a variant of :data:`VARIANTS`): the gain
    of its choices at the bot's ``confidence``, how many decisions it chooses otherwise than at its full
    budget, its full budget's gain minus its own, and its own minus the bot's search at the full budget,
    game by game (a variant at a smaller budget: what it is worth at the bot's CPU time)."""
    found: dict[str, Any] = {}
    full = gains(games, key, confidence)[0]
    bot = full if key == "outcomes" else gains(games, "outcomes", confidence)[0]
    for budget in budgets:
        cut = [{"number": game["number"], "won": game["won"],
                "decisions": [{**decision, key: prefix(decision.get(key), budget)}
                              for decision in game["decisions"]]} for game in games]
        per_game, switched = gains(cut, key, confidence)
        differ = sum(search.paired_choice(small[key], small["sensible"], confidence)
                     != search.paired_choice(whole[key], whole["sensible"], confidence)
                     for short, game in zip(cut, games, strict=True)
                     for small, whole in zip(short["decisions"], game["decisions"], strict=True)
                     if small["sensible"] is not None and small.get(key))
        found[f"playouts_{budget}"] = {"gain_per_game": mean_interval(per_game), "switches": switched,
                                       "choices_unlike_the_full_budget": differ,
                                       "full_minus_this": mean_interval([a - b for a, b in zip(full, per_game,
                                                                                                 strict=True)])}
        if key != "outcomes":
            found[f"playouts_{budget}"]["this_minus_search"] = mean_interval(
                [b - a for a, b in zip(bot, per_game, strict=True)])
    return found


def report(games: list[dict[str, Any]], confidence: float) -> dict[str, Any]:
    """The gains at every confidence of :data:`CONFIDENCES`, and how often the bot (at ``confidence``)
    and the ceiling choose alike."""
    found: dict[str, Any] = {"games": len(games), "hard_won": sum(game["won"] for game in games),
                             "decisions": sum(len(game["decisions"]) for game in games)}
    shown = sorted({key for game in games for decision in game["decisions"] for key in decision
                    if key.startswith("shown_")}, key=lambda key: float(key[6:]))
    for key in ("outcomes", *shown, "ceiling", *VARIANTS):
        if not any(decision.get(key) for game in games for decision in game["decisions"]):
            continue
        name = {"outcomes": "search", "ceiling": "ceiling", **VARIANTS}.get(key, key)
        found[name] = {}
        for level in CONFIDENCES:
            per_game, switched = gains(games, key, level)
            found[name][f"confidence_{level}"] = {"gain_per_game": mean_interval(per_game)["mean"],
                                                  "interval_95": mean_interval(per_game)["interval_95"],
                                                  "switches": switched}
        if key not in VARIANTS:
            continue
        found[f"{key}_minus_search"] = {}
        for level in CONFIDENCES:
            first, second = gains(games, "outcomes", level)[0], gains(games, key, level)[0]
            found[f"{key}_minus_search"][f"confidence_{level}"] = mean_interval(
                [b - a for a, b in zip(first, second, strict=True)])
        cpu = [(d["cpu"], d[f"{key}_cpu"]) for game in games for d in game["decisions"] if f"{key}_cpu" in d]
        found[f"{key}_cpu_ms_per_search"] = {"search": round(1000 * sum(a for a, _ in cpu) / max(len(cpu), 1), 1),
                                             name: round(1000 * sum(b for _, b in cpu) / max(len(cpu), 1), 1)}
    alike = differ = 0
    ceiling_better = 0.0
    for game in games:
        for decision in game["decisions"]:
            if decision["ceiling"] is None or decision["sensible"] is None:
                continue
            mine = search.paired_choice(decision["outcomes"], decision["sensible"], confidence)
            theirs = search.paired_choice(decision["ceiling"], decision["sensible"], confidence)
            if mine == theirs:
                alike += 1
            else:
                differ += 1
                ceiling_better += decision["true"][theirs] - decision["true"][mine]
    found["search_and_ceiling"] = {"same_choice": alike, "different_choice": differ,
                                   "ceiling_better_by_per_difference": round(ceiling_better / max(differ, 1), 4)}
    return found


def constants(parser: argparse.ArgumentParser, given: list[str]) -> dict[str, Any]:
    """``--variant``'s ``NAME=VALUE`` pairs: existing upper-case constants of ``search``, each given a
    number or a truth value of the kind it has."""
    found: dict[str, Any] = {}
    for pair in given:
        name, _, text = pair.partition("=")
        now = getattr(search, name, None)
        if not name.isupper() or not isinstance(now, (int, float)):  # a bool is an int too
            parser.error(f"--variant: {name!r} is not a constant of games.engine.search")
        try:
            value: Any = {"True": True, "False": False}[text] if isinstance(now, bool) else type(now)(text)
        except (KeyError, ValueError):
            parser.error(f"--variant: {name} takes a value like {now!r}")
        found[name] = value
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--line-up", default="tavern_4p", help="rules_Np, as in bench.bots")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed-start", type=int, default=500000)
    parser.add_argument("--playouts", type=int, default=1400, help="the hard bot's playouts per decision")
    parser.add_argument("--true-playouts", type=int, default=300,
                        help="playouts per move from the true hands that judge a decision")
    parser.add_argument("--engine-basic-playouts", type=int, default=0,
                        help="also weigh each decision with the house rules' basic playouts at this budget")
    parser.add_argument("--cutoff-playouts", type=int, default=0,
                        help="also weigh each decision with playouts cut after --cutoff decisions, at this budget")
    parser.add_argument("--cutoff", type=int, default=20, help="the decisions a cut playout makes (search.CUTOFF)")
    parser.add_argument("--variant", nargs="*", default=[], metavar="CONSTANT=VALUE",
                        help="also weigh each decision with these constants of games.engine.search")
    parser.add_argument("--variant-playouts", type=int, default=0, help="the variant's budget (0: --playouts)")
    parser.add_argument("--shown-shares", type=float, nargs="*", default=[],
                        help="also weigh each decision with worlds told this share of the other hands (0 to 1)")
    parser.add_argument("--budgets", type=int, nargs="*", default=[],
                        help="also judge the search's choices at these smaller budgets (its first worlds)")
    parser.add_argument("--budgets-of", default="search", choices=["search", *VARIANTS],
                        help="whose smaller budgets --budgets judges: the bot's search or a variant's")
    parser.add_argument("--save", help="also write every decision here (JSON lines)")
    parser.add_argument("--report", help="report the games a --save wrote instead of playing (with --budgets)")
    args = parser.parse_args(argv)
    if any(not 0 < budget <= args.playouts for budget in args.budgets):
        parser.error("--budgets: each budget lies between 1 and --playouts")
    budgets_of = "outcomes" if args.budgets_of == "search" else args.budgets_of
    if args.report:
        with open(args.report) as saved:
            games = [json.loads(line) for line in saved if line.strip()]
        saved_line_up = games[0].get("line_up", args.line_up) if games else args.line_up  # saved since the confidences
        rules_name, players = line_up(saved_line_up)
        confidence = search.confidence_for(PRESETS[rules_name], players)
        print(json.dumps({"report": args.report, "line_up": saved_line_up, "playouts": args.playouts,
                          **report(games, confidence),
                          "budgets": budget_report(games, args.budgets, confidence, budgets_of)},
                         indent=2))
        return 0
    if any(not 0 <= share <= 1 for share in args.shown_shares):
        parser.error("--shown-shares: each share lies between 0 and 1")
    if args.cutoff < 1:
        parser.error("--cutoff: at least one decision")
    rules_name, players = line_up(args.line_up)
    variants: dict[str, tuple[dict[str, Any], int]] = {}
    if args.engine_basic_playouts:
        variants["engine"] = ({"ENGINE_BASIC_ROLLOUTS": True}, args.engine_basic_playouts)
    if args.cutoff_playouts:
        variants["cutoff"] = ({"CUTOFF": args.cutoff}, args.cutoff_playouts)
    confidence = search.confidence_for(PRESETS[rules_name], players)
    if args.variant:
        variants["variant"] = (constants(parser, args.variant), args.variant_playouts or args.playouts)
    games = []
    for number in range(args.seed_start, args.seed_start + args.games):
        game = judged_game(rules_name, players, number, args.playouts, args.true_playouts, variants,
                           tuple(args.shown_shares))
        games.append(game)
        if args.save:
            with open(args.save, "a") as out:
                out.write(json.dumps(game) + "\n")
    print(json.dumps({"line_up": args.line_up, "playouts": args.playouts, "true_playouts": args.true_playouts,
                      "seed_start": args.seed_start, **report(games, confidence),
                      "budgets": budget_report(games, args.budgets, confidence, budgets_of)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
