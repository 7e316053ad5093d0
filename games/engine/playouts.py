"""Playouts: a compact fast path through a round, for search (the ``strong`` bot) and benchmarks.

:func:`~games.engine.moves.legal_actions` builds a JSON-ready dict for every action, which a client
needs and a playout does not: a playout lists the moves of every decision and keeps one. Here a
move is a small value, built into an action dict only when it is chosen (:func:`action_of`):

- a card code (``"9H"``): that one card is played;
- a pair ``("JC", "D")``: a jack played with its wish;
- :data:`DRAW` or :data:`PASS` (ints);
- anything rarer (calls, jokers, ace chains, final jacks, the QH's target: the house rules) is the
  legal action's own dict, exactly as ``legal_actions`` lists it.

:func:`playout_moves` lists them in the order of ``legal_actions``, one move per entry, so a random
choice among them picks the same action as among the entries. :func:`playout_apply` applies a
listed move without the checks it has passed already (no parsing, no ``check_play``); it changes the
state exactly as :func:`~games.engine.turns.apply` does (``tests/engine/test_playouts.py``), and it
returns no events. A move that is not listed for the state must not be passed to it.

The rules stay the engine's: a move is carried out by the steps ``apply`` takes for it
(:func:`~games.engine.turns.lay_cards`, :func:`~games.engine.effects.played_effects`,
:func:`~games.engine.effects.set_wish`, :func:`~games.engine.turns.end_turn`,
:func:`~games.engine.turns.draw_on_turn`, :func:`~games.engine.turns.pass_turn`,
:func:`~games.engine.turns.finish_round`), given no event list; what is this module's own is the
listing, from tables of :func:`~games.engine.legality.fits` and
:func:`~games.engine.effects.rank_effect` made once per rule set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import bots
from .cards import RANK, SUITS, card_names, house_points, ranking_points
from .effects import WISH, played_effects, rank_effect, set_wish
from .legality import fits, judge, lone_card_plan
from .moves import legal_actions
from .piles import draw_cards
from .rules import RuleSet
from .state import ACTIVE, DRAWN, GameState
from .turns import apply, carry_out_play, check_pass, draw_on_turn, end_turn, finish_round, lay_cards, pass_turn

DRAW = 0
PASS = 1

#: a card code, a (jack, wish) pair, DRAW, PASS, or a legal action's dict
Move = str | tuple[str, str] | int | dict[str, Any]


@dataclass(slots=True)
class _Compact:
    """What the fast path of one rule set needs, computed once: effects by card, fitting cards."""

    rules: RuleSet
    names: tuple[str, ...]
    effect: dict[str, str | None]
    jacks: frozenset[str]  # cards that wish when played (wild jacks)
    wished: dict[str, tuple[tuple[str, str], ...]]  # each jack with each wish, in SUITS order
    fitting: dict[tuple[str, str | None, str | None], frozenset[str]]
    on_top: dict[str, frozenset[str]]  # the fitting cards with no wish, by top card: most turns
    must_play: bool
    jack_can_win: bool
    worth: dict[str, float]  # the basic bot's weighing of a card laid: half its points, less 40 for a jack
    jack_rank: frozenset[str]  # the jacks, wild or not: the basic bot counts no jack in a suit
    draws_or_skips: frozenset[str]  # the 7s and 8s, which the basic bot lays sooner near a round's end
    own_worth: dict[str, float]  # the same for the hard bot's own plays (``bots.OWN_POINTS_SHED``)

    def fit(self, top: str, wish: str | None, first_wish: str | None) -> frozenset[str]:
        key = (top, wish, first_wish)
        found = self.fitting.get(key)
        if found is None:
            found = frozenset(name for name in self.names if fits(self.rules, top, wish, first_wish, name))
            self.fitting[key] = found
        return found


#: the tables by ``id`` of the rule set (hashing a RuleSet hashes every option: too slow per move);
#: each entry keeps its rule set, so an id is never taken for another's
_BY_ID: dict[int, tuple[RuleSet, _Compact | None]] = {}


def _compact(rules: RuleSet) -> _Compact | None:
    """The fast path's tables, or None for rules whose moves need calls, jokers, covers or targets."""
    entry = _BY_ID.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]
    if len(_BY_ID) > 256:
        _BY_ID.clear()
    compact = _compact_build(rules)
    _BY_ID[id(rules)] = (rules, compact)
    return compact


def compact_rules(rules: RuleSet) -> _Compact | None:
    """The fast path's tables for ``rules`` (None: rules whose moves are the action dicts)."""
    return _compact(rules)


@lru_cache(maxsize=64)
def _compact_build(rules: RuleSet) -> _Compact | None:
    if (rules.announcements or rules.pik_call or rules.king_of_diamonds_hermann or rules.queen_of_hearts_swap
            or rules.ace_needs_cover or rules.final_jacks or rules.joker or rules.jokers):
        return None
    names = card_names(rules.deck)
    effect = {name: rank_effect(rules, RANK[name]) for name in names}
    jacks = frozenset(name for name in names if effect[name] == WISH)
    wished = {jack: tuple((jack, suit) for suit in SUITS) for jack in jacks}
    points = house_points if rules.scoring == "points" else ranking_points
    jack_rank = frozenset(name for name in names if RANK[name] == "J")
    worth = {name: bots.POINTS_SHED * points(name) - (bots.JACK_KEPT if name in jack_rank else 0) for name in names}
    draws_or_skips = frozenset(name for name in names if RANK[name] in ("7", "8"))
    own_worth = {name: bots.OWN_POINTS_SHED * points(name) - (bots.JACK_KEPT if name in jack_rank else 0)
                 for name in names}
    on_top = {top: frozenset(name for name in names if fits(rules, top, None, None, name)) for top in names}
    return _Compact(rules, names, effect, jacks, wished, {}, on_top, rules.must_play, rules.jack_can_win, worth,
                    jack_rank, draws_or_skips, own_worth)


def playout_moves(state: GameState, seat: int) -> list[Move]:
    """The moves of ``seat`` now, one per entry of ``legal_actions(state, seat)`` and in its order."""
    compact = _compact(state.rules)
    if compact is None or state.status != ACTIVE:
        return legal_actions(state, seat)  # type: ignore[return-value]
    if seat != state.turn:
        return []  # no calls without announcements, "Pik" or Hermann
    return _compact_moves(state, seat, compact)


def _compact_moves(state: GameState, seat: int, compact: _Compact) -> list[Move]:
    hand = state.hands[seat]
    candidates = (state.drawn,) if state.phase == DRAWN else hand
    if state.pending_draw:
        moves: list[Move] = [card for card in candidates if RANK[card] == "7"]
        moves.append(DRAW)
        return moves
    fit = compact.fitting.get((state.top, state.wish, state.first_wish))
    if fit is None:
        fit = compact.fit(state.top, state.wish, state.first_wish)
    jacks = compact.jacks
    moves = [card for card in candidates if card in fit]
    if jacks and not jacks.isdisjoint(moves) and not (len(hand) == 1 and compact.jack_can_win):
        moves = [wished for card in moves for wished in (compact.wished[card] if card in jacks else (card,))]
    if state.phase == DRAWN:
        moves.append(PASS)
    elif not (moves and compact.must_play):
        moves.append(DRAW if len(state.stock) + len(state.discard) > 1 else PASS)
    return moves


def action_of(move: Move) -> dict[str, Any]:
    """The action dict of a move, as ``legal_actions`` lists it (and ``apply`` takes it)."""
    if isinstance(move, str):
        return {"type": "play", "cards": [move]}
    if isinstance(move, tuple):
        return {"type": "play", "cards": [move[0]], "wish": move[1]}
    if isinstance(move, int):
        return {"type": "draw"} if move == DRAW else {"type": "pass"}
    return move


def playout_apply(state: GameState, seat: int, move: Move) -> None:
    """Apply a move that :func:`playout_moves` listed for ``seat`` in this state (no events kept)."""
    if move.__class__ is dict:
        apply(state, seat, move)  # type: ignore[arg-type]
        return
    compact = _compact(state.rules)
    assert compact is not None  # compact moves are listed only for compact rules
    _compact_apply(state, seat, move, compact)


def _compact_apply(state: GameState, seat: int, move: Move, compact: _Compact) -> None:
    """A compact move, by the steps ``apply`` takes for it once the move is known to be legal."""
    kind = move.__class__
    if state.penalized_plays:  # apply empties it; a playout leaves an empty one alone
        state.penalized_plays = []
    if kind is str:
        _play_one(state, seat, move, None, compact)  # type: ignore[arg-type]
    elif kind is tuple:
        _play_one(state, seat, move[0], move[1], compact)  # type: ignore[index]
    elif move == DRAW:
        draw_on_turn(state, seat, None)
    else:
        pass_turn(state, seat, check_pass(state, seat), None)


def _play_one(state: GameState, seat: int, card: str, wish: str | None, compact: _Compact) -> None:
    """One card under compact rules (no calls, no jokers, no cover, no target): ``apply``'s play
    for that case, by the same steps without the plan and the events."""
    previous_top = state.top
    laid = (card,)
    lay_cards(state, seat, laid, card)
    effect = compact.effect[card]
    if not state.hands[seat]:
        if judge(compact.rules, laid, 1, True).wins:
            finish_round(state, seat, "mau_mau", 1, None)
            return
        draw_cards(state, seat, 1, "jack_last", None)
    if effect is None:  # a plain card: played_effects has nothing to do, nor set_wish without a wish
        if state.wish is not None or state.first_wish is not None:
            set_wish(state, seat, previous_top, laid, wish, None)
        end_turn(state, seat, None)
        return
    effects = played_effects(state, seat, laid, None)
    set_wish(state, seat, previous_top, laid, wish, None)
    end_turn(state, seat, None, effects.skips, effects.reverses, effects.second_skip)


def playout(state: GameState, random: Callable[[], float], plays_first: bool = False, sensible: bool = False,
            limit: int = 1 << 30, basic: bool = False, basic_engine: bool = False, own: int | None = None) -> int:
    """Play the round to its end with random moves (``random`` is a generator's ``random`` method);
    returns the decisions made; it stops after ``limit`` decisions (the round still active).
    ``plays_first``: a seat that can play plays (a uniform choice among its plays) and draws or
    passes only when it cannot, which is closer to how people play.
    ``sensible`` (implies ``plays_first``) also keeps jacks for when nothing else fits and wishes the
    suit its player holds most, as the basic bot does: search that models its opponents so sees
    further than one that assumes they play at random.
    ``basic`` (implies ``sensible``) makes every play the basic bot's own choice (:func:`basic_weigh`):
    the service's other bots are basic bots, and people play much like them. Under compact rules that
    is the fast path's own weighing; ``basic_engine`` asks the same of the other rules (the house
    rules), where every decision is the bot's choice, calls said as the service's bots say them
    (:func:`basic_playout`): about 2.3 (two players) to 2.8 (four) times as slow as the sensible
    playout those rules get without it, though most turns skip the engine's listing (:func:`_basic_turn`).
    ``own`` (with ``basic``, under compact rules): that seat plays as the hard bot plays its own cards
    (``basic_weigh(own=True)``), the others as the basic bot.

    Under compact rules only the seat on turn ever acts. Otherwise (calls, the Hermann race) the
    other seats say what they may before each turn, as the service's bots do, and a joker is named
    at random among its listed names.
    """
    compact = _compact(state.rules)
    decisions = 0
    if basic and basic_engine and compact is None:
        return basic_playout(state, limit)
    basic = basic and compact is not None
    sensible = sensible or basic
    plays_first = plays_first or sensible
    if compact is not None:  # _compact_moves, inlined: this loop is where search spends its time
        fitting, on_top, jacks, wished = compact.fitting, compact.on_top, compact.jacks, compact.wished
        must_play = compact.must_play
        last_jack_wins = compact.jack_can_win
        hands = state.hands
        near = bots.NEAR_END
        while state.status == ACTIVE and decisions < limit:
            seat = state.turn
            hand = hands[seat]
            drawn_phase = state.phase == DRAWN
            candidates = (state.drawn,) if drawn_phase else hand
            if state.pending_draw:
                moves: list[Move] = [card for card in candidates if card[0] == "7"]
                if not (plays_first and moves):
                    moves.append(DRAW)
            else:
                if state.wish is None and state.first_wish is None:
                    fit = on_top[state.top]
                else:
                    fit = fitting.get((state.top, state.wish, state.first_wish))
                    if fit is None:
                        fit = compact.fit(state.top, state.wish, state.first_wish)
                moves = [card for card in candidates if card in fit]
                if basic and moves:
                    if len(moves) == 1 and moves[0] not in jacks:  # one play and no wish: nothing to weigh
                        card, wish = moves[0], None
                    else:
                        players = len(hands)
                        lacking = state.lacking.get((seat + state.direction) % players, ())
                        near_end = any(len(other) <= near for other in hands if other is not hand)
                        card, wish = basic_weigh(hand, moves, lacking, near_end, compact, None, seat == own)[0]
                    if state.penalized_plays:
                        state.penalized_plays = []
                    _play_one(state, seat, card, wish, compact)
                    decisions += 1
                    continue
                if sensible and moves:
                    plain = [card for card in moves if card not in jacks] or moves
                    card = plain[int(random() * len(plain))]
                    if state.penalized_plays:
                        state.penalized_plays = []
                    if card in jacks and not (last_jack_wins and len(hand) == 1):
                        _play_one(state, seat, card, _suit_held_most(hand, jacks, card), compact)
                    else:
                        _play_one(state, seat, card, None, compact)
                    decisions += 1
                    continue
                if moves and not jacks.isdisjoint(moves) and not (last_jack_wins and len(hand) == 1):
                    moves = [choice for card in moves for choice in (wished[card] if card in jacks else (card,))]
                if drawn_phase:
                    if not (plays_first and moves):
                        moves.append(PASS)
                elif not (moves and (must_play or plays_first)):
                    moves.append(DRAW if len(state.stock) + len(state.discard) > 1 else PASS)
            move = moves[int(random() * len(moves))]
            if state.penalized_plays:
                state.penalized_plays = []
            if move.__class__ is str:
                _play_one(state, seat, move, None, compact)  # type: ignore[arg-type]
            elif move == DRAW:
                draw_on_turn(state, seat, None)
            else:
                _compact_apply(state, seat, move, compact)
            decisions += 1
        return decisions
    while state.status == ACTIVE and decisions < limit:
        if state.owed or state.hermann is not None:
            for other in range(len(state.hands)):
                if other != state.turn and state.status == ACTIVE:
                    for entry in legal_actions(state, other):
                        apply(state, other, entry)
                        decisions += 1
                        break
            if state.status != ACTIVE:
                break
        seat = state.turn
        if sensible and _sensible_turn(state, seat, random):
            decisions += 1
            continue
        actions = legal_actions(state, seat)
        if plays_first and len(actions) > 1 and actions[-1]["type"] in ("draw", "pass"):
            actions.pop()
        if sensible:
            actions = [action for action in actions if not _lays_jacks(action)] or actions
        action = actions[int(random() * len(actions))]
        names = action.get("as")
        if names:
            action = {**action, "as": {joker: name[int(random() * len(name))] if isinstance(name, list) else name
                                       for joker, name in names.items()}}
        apply(state, seat, action)
        decisions += 1
    return decisions


def basic_playout(state: GameState, limit: int = 1 << 30) -> int:
    """Play the round on as the service's basic bots would, every seat (its calls before each turn,
    as the service's bots say them); the decisions made. A turn of single plain cards is weighed here
    (:func:`_basic_turn`), any other is the bot's choice among the engine's actions."""
    decisions = 0
    players = len(state.hands)
    while state.status == ACTIVE and decisions < limit:
        if state.owed or state.hermann is not None:
            for other in range(players):
                if other != state.turn and state.status == ACTIVE:
                    action = bots.choose_bot_action(state, other, "basic", None)
                    if action is not None and action["type"] == "say":
                        apply(state, other, action)
                        decisions += 1
            if state.status != ACTIVE:
                break
        seat = state.turn
        if _basic_turn(state, seat):
            decisions += 1
            continue
        action = bots.choose_bot_action(state, seat, "basic", None)
        if action is None:
            break
        apply(state, seat, action)
        decisions += 1
    return decisions


#: every call there is: a play may carry words no rule asks for (they are ignored), so a playout's
#: play says them all rather than work out which are due
_ALL_WORDS = ["mau", "maumau", "pik", "hermann"]


def _sensible_turn(state: GameState, seat: int, random: Callable[[], float]) -> bool:
    """A sensible turn found without listing every action (the house rules' lists are long: joker
    names, ace chains, swap targets), and carried out as ``apply`` would, without its checks:

    - a plain fitting card before a jack (no ace under ``ace_needs_cover``, no joker), with every
      call said (:func:`~games.engine.legality.lone_card_plan`: the cards chosen here pass
      ``check_play`` unchanged);
    - else, when the seat can lay nothing at all (no joker, no fitting ace) and no call is open, the
      draw or the pass that would be its only action, one random number spent as on choosing it.

    False when neither (the caller lists the actions). The same state and random numbers as the
    listing and ``apply`` give (``tests/engine/test_playouts.py``); a house playout so runs about 1.25
    times as fast."""
    rules = state.rules
    hand = state.hands[seat]
    candidates = (state.drawn,) if state.phase == DRAWN else hand
    no_lone_aces = rules.ace_needs_cover
    if state.pending_draw:
        fitting = [card for card in candidates if card[0] == "7"]
    else:
        top, wish, first_wish = state.top, state.wish, state.first_wish
        fitting = [card for card in candidates if card[0] != "X" and not (no_lone_aces and card[0] == "A")
                   and fits(rules, top, wish, first_wish, card)]
    if fitting:
        jack_wild = rules.jack_wild
        plain = [card for card in fitting if not (jack_wild and card[0] == "J")] or fitting
        card = plain[int(random() * len(plain))]
        action: dict[str, Any] = {"type": "play", "cards": [card], "say": _ALL_WORDS}
        if jack_wild and card[0] == "J":
            action["wish"] = _suit_held_most(hand, frozenset(c for c in hand if c[0] in "JX"), card)
        if rules.queen_of_hearts_swap and card == "QH":
            action["target"] = (seat + 1 + int(random() * (len(state.hands) - 1))) % len(state.hands)
        carry_out_play(state, seat, action, lone_card_plan(state, seat, card, _ALL_WORDS, action.get("target")), [])
        return True
    if state.owed or state.hermann is not None or any(card[0] == "X" for card in candidates):
        return False
    if _fitting_ace(state, candidates):
        return False  # perhaps an ace it can cover
    random()  # the listing's choice among its one action
    _draw_or_pass(state, seat)
    return True


def _fitting_ace(state: GameState, candidates: Any) -> bool:
    """Whether an ace fits under ``ace_needs_cover`` (an ace chain may be listed: the engine weighs it)."""
    rules = state.rules
    return rules.ace_needs_cover and not state.pending_draw and any(
        card[0] == "A" and fits(rules, state.top, state.wish, state.first_wish, card) for card in candidates)


def _draw_or_pass(state: GameState, seat: int) -> None:
    """The only action of a seat that can lay nothing and owes no call, carried out as ``apply`` would."""
    state.penalized_plays = []
    if state.phase != DRAWN and (state.pending_draw or state.drawable() > 0):
        draw_on_turn(state, seat, None)
    else:
        pass_turn(state, seat, state.phase == DRAWN, None)


def _basic_turn(state: GameState, seat: int) -> bool:
    """The basic bot's turn (``bots.choose_bot_action``) found without listing every action, and carried
    out as ``apply`` would, without its checks, when its plays are single plain cards: no call open, no
    joker, no fitting ace under ``ace_needs_cover``, no final jacks to follow. Each fitting card is
    weighed by :func:`~games.engine.bots.play_weight` with each wish and target the listing would
    give it, in the listing's order (ties go to the first, as the bot's); with nothing to lay, the
    draw or the pass. False otherwise (the caller asks the bot).

    Why: the listing (joker names, ace chains, every wish and target as an action) is most of a house
    rules' basic playout. The same states as the bot through the engine (``tests/engine/test_playouts.py``)."""
    if state.owed or state.hermann is not None:
        return False  # the bot says its calls first; the engine lists them
    rules = state.rules
    hand = state.hands[seat]
    drawn_phase = state.phase == DRAWN
    candidates = (state.drawn,) if drawn_phase else hand
    if any(card[0] == "X" for card in candidates) or _fitting_ace(state, candidates):
        return False
    if state.pending_draw:
        fitting = [card for card in candidates if RANK[card] == "7"]
    else:
        top, wish, first_wish = state.top, state.wish, state.first_wish
        fitting = [card for card in candidates if not (rules.ace_needs_cover and RANK[card] == "A")
                   and fits(rules, top, wish, first_wish, card)]
    if not fitting:
        _draw_or_pass(state, seat)
        return True
    if rules.final_jacks and not drawn_phase and len(hand) > 1 and sum(RANK[card] != "J" for card in hand) <= 1:
        return False  # a play may take the jacks left with it
    players = len(state.hands)
    points = house_points if rules.scoring == "points" else ranking_points
    lacking = set(state.lacking.get((seat + state.direction) % players, ()))
    fewest_other = min(len(other) for index, other in enumerate(state.hands) if index != seat)
    targets = [other for other in range(players) if other != seat]
    suits = bots.suits_held(hand)  # each card's own taken off in turn
    rest = len(hand) - 1
    best = -1e18
    chosen: tuple[str, str | None, int | None] = (fitting[0], None, None)
    for card in fitting:
        own = RANK[card] != "J"
        if own:
            suits[card[-1]] -= 1
        outcome = judge(rules, [card], len(hand), said_maumau=True)
        weights = [(wish, bots.play_weight(suits, rest, [card], [card], wish, points, lacking, fewest_other))
                   for wish in (SUITS if outcome.wish_required else (None,))]
        for target in targets if outcome.may_swap else (None,):  # the listing's order: targets, then wishes
            for wish, weight in weights:
                score = weight if target is None else weight - len(state.hands[target])
                if score > best:
                    best, chosen = score, (card, wish, target)
        if own:
            suits[card[-1]] += 1
    card, wish, target = chosen
    action: dict[str, Any] = {"type": "play", "cards": [card], "say": _ALL_WORDS}
    if wish is not None:
        action["wish"] = wish
    if target is not None:
        action["target"] = target
    carry_out_play(state, seat, action, lone_card_plan(state, seat, card, _ALL_WORDS, target), [])
    return True


def _suit_held_most(hand: list[str], jacks: frozenset[str], played: str) -> str:
    """The wish of a sensible player: the suit of most cards left in hand (jacks aside)."""
    counts = {"C": 0, "S": 0, "H": 0, "D": 0}
    for card in hand:
        if card != played and card not in jacks:
            counts[card[-1]] += 1
    return max(counts, key=counts.__getitem__) if any(counts.values()) else played[-1]


def _lays_jacks(action: dict[str, Any]) -> bool:
    return action["type"] == "play" and any(card[0] == "X" or RANK[card] == "J" for card in action["cards"])


def basic_weigh(hand: list[str], plays: list[str], lacking: Any, near_end: bool, compact: _Compact,
                observed: tuple[str, str | None] | None = None, own: bool = False
                ) -> tuple[tuple[str, str | None], float, float]:
    """The basic bot's best play from ``hand`` among ``plays`` (its single fitting cards, in hand
    order) under compact rules, that play's weight, and the weight of ``observed`` (-1e9 when it is
    not among them). These are ``bots._basic``'s scores without an action dict per card (search
    weighs many hands with them; ``tests/engine/test_playouts.py`` holds the choice equal), given
    what they read of the table: the next seat's ``lacking`` suits, and whether another hand has
    three cards or fewer. ``own``: the hard bot's own weights instead (``bots.OWN_*``): other points
    shed and suit followed, and for a card that wishes nothing the cards left of its rank and the
    suits left in hand."""
    jack_rank = compact.jack_rank
    counts = {"C": 0, "S": 0, "H": 0, "D": 0}
    ranks: dict[str, int] = {}
    for card in hand:
        if card not in jack_rank:
            counts[card[-1]] += 1
            if own:
                ranks[card[:-1]] = ranks.get(card[:-1], 0) + 1
    rest = len(hand) - 1
    finishing = bots.GOING_OUT if not rest else 0
    wishes = compact.jacks and not (rest == 0 and compact.jack_can_win)
    worth = compact.own_worth if own else compact.worth
    draws_or_skips = compact.draws_or_skips
    follow_held = bots.OWN_FOLLOW_HELD if own else bots.FOLLOW_HELD
    # a wished suit is the suit that follows, weighed again as a wish
    wish_held, wish_lacks = follow_held + bots.WISH_HELD, bots.NEXT_LACKS + bots.WISH_NEXT_LACKS
    best = seen = -1e9
    chosen: tuple[str, str | None] = (plays[0], None)
    for card in plays:
        score = bots.PER_CARD + finishing + worth[card]
        if not rest and card in jack_rank:
            score += bots.JACK_KEPT  # no jack is kept back with nothing left to keep it for
        if near_end and card in draws_or_skips:
            score += bots.ATTACK_NEAR_END
        plain = card not in jack_rank
        if plain:
            counts[card[-1]] -= 1
            if own:
                ranks[card[:-1]] -= 1
        if wishes and card in compact.jacks:
            for wish in SUITS:
                value = score + wish_held * counts[wish] + (wish_lacks if wish in lacking else 0)
                if value > best:
                    best, chosen = value, (card, wish)
                if observed is not None and observed[0] == card and observed[1] == wish:
                    seen = value
        else:
            follow = card[-1]
            value = score + follow_held * counts[follow] + (bots.NEXT_LACKS if follow in lacking else 0)
            if own:
                value += bots.OWN_SUITS_LEFT * sum(1 for held in counts.values() if held)
                if plain:
                    value += bots.OWN_RANK_HELD * ranks[card[:-1]]
            if value > best:
                best, chosen = value, (card, None)
            if observed is not None and observed[0] == card:
                seen = value
        if plain:
            counts[card[-1]] += 1
            if own:
                ranks[card[:-1]] += 1
    return chosen, best, seen
