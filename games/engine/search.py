"""The ``hard`` bot (first named ``strong``): determinized Monte Carlo search over the engine, from one
seat's knowledge.

Its input is what its seat may see, never the state: the seat's :func:`~games.engine.view.player_view`
and the round's events as :func:`~games.engine.view.redact_event` shows them to that seat, folded into
:class:`Knowledge`. Each playout takes a world that deals the unseen cards consistently with that
knowledge (a determinization; :class:`Worlds` draws them), plays one root move and then the round
to its end on the playout fast path (:func:`~games.engine.playouts.playout`), every seat playing as
the basic bot would (:data:`BASIC_ROLLOUTS`; at a table of two under the fast path's rules its own seat
by its own weights, :data:`OWN_PLAYS`), and scores a win.
Every root move is played out in the same worlds from the same random numbers (:data:`PAIRED`, common
random numbers): the moves are compared world by world, and the search's best move replaces the basic
bot's choice (or the seat's own play, :data:`OWN_PLAYS`) only when it leads that choice by
:data:`CONFIDENCE` standard errors of the paired differences. Without :data:`PAIRED`, root moves are
chosen by UCB1 over all determinizations together, as in information-set Monte Carlo tree search with a
tree of depth one (Cowling, Powley and Whitehouse 2012). Measured with ``bench.bots`` (tavern, four
players, 80 rounds, 1000 playouts): UCB1 with sensible-random playouts cut at 20 decisions won 0.237;
basic playouts 0.188; paired, basic playouts cut at 20: 0.225; paired, basic playouts to the end: 0.275.

What the seat knows of the others, from the events:

- the cards laid face up since the last reshuffle (they are not in anyone's hand or the stock);
- cards it gave away in a QH swap (the other seat holds them now, until it lays them);
- the cards a reshuffle turned into the new stock (the discard pile below its top, which the seat saw
  laid): no hand held them then, and a card another seat draws from that stock is one of them. The
  stock is empty when it is reshuffled, so right after it the other hands hold exactly the cards the
  seat has not seen; with two players that is the other hand, card for card.
- a seat that drew instead of playing holds nothing that fitted then (under ``must_play`` a rule;
  without it, how sensible players and every bot of the service play: **decision**, the seeds
  advise playing when one can), but for an ace it may have had nothing to cover with
  (``ace_needs_cover``); a drawn card that ended the turn at once did not fit; a seat that laid a
  wild jack with cards left had no other card that fitted (the seeds' advice, and the basic bot's, is
  to keep jacks for need). Each unknown card of a seat is a slot with the cards it cannot
  be; the slot a laid card came from is the most constrained that allows it, which keeps every
  remaining constraint true whenever they were nested (the usual case).
- how a seat chose among its plays since it last drew: a world is weighted by :data:`LIKELIHOOD`
  per play the basic bot would not have made from the hands it gives (likelihood weighting), and
  the worlds of one decision are drawn from that weighting by a Metropolis chain (:class:`Worlds`).
  The basic bot is the model of a player: it is what the service's bots are, and it plays by the
  seeds' advice; a person who weighs differently only makes the worlds less sharp, never impossible.

The search is pure: its randomness is the ``random.Random`` it is given (seeded by the caller, so a
decision replays from its seed and budget), and its clock is a function passed in with a deadline
(``clock=None`` counts playouts only). Calls are said at once, as the basic bot does.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from .bots import NEAR_END, choose_bot_action, name_jokers
from .cards import RANK, SUIT, build_deck
from .legality import fits
from .playouts import Move, action_of, basic_weigh, compact_rules, playout, playout_apply, playout_moves
from .rules import RuleSet
from .state import ACTIVE, DRAWN, PLAY, GameState

#: UCB1's exploration constant for win rates in [0, 1]
EXPLORATION = 0.7
#: how many standard errors the search's best move must lead the basic bot's choice by to replace it.
#: Judged against the true hands (bench.bot_decisions, tavern, four players) a stricter test gains less
#: (2.0: 0.021 a game less than 1.0) and a looser one (0) is not told apart from 1.0
CONFIDENCE = 1.0
#: ... except where another was measured better for a rule set and a number of players. Tavern with four
#: players, judged against the true hands: confidence 0 (always the best move) gained +0.021 a game over
#: 1.0 (+0.006 to +0.035; 150 games from seed 730000, 2,600 playouts) and +0.015 (-0.004 to +0.034; 155
#: games from 500000, 1,400). Not so in house 4p: with the basic playouts, confidence 0 won 414 of the
#: issue's 1,200 deals (bench.bots, 270 playouts) where 1.0 won 452; the two-player line-ups showed no gain
CONFIDENCE_AT: dict[tuple[str, int], float] = {("tavern", 4): 0.0}
#: a playout stops after this many decisions and scores the hands' sizes (0: play to the end). With
#: random playouts a cut at 20 won as often in less time; with the basic bot's playouts the end says more
CUTOFF = 0
#: the chain of worlds (:class:`Worlds`) takes this many steps before its first world ...
BURN_IN = 300
#: ... and this many between two worlds. With bench.bots the chain wins as often as the whole deals it
#: replaced (no gain beyond the noise, in less time), and a smaller LIKELIHOOD won less
STEPS = 4
#: the chance that a world is kept though one of those plays is not the one the basic bot would have made
#: (per play): people do not weigh their cards as the basic bot does, so a world is never ruled out
LIKELIHOOD = 0.1
#: the playouts play every seat as the basic bot would (``playout(basic=True)``), not at random
BASIC_ROLLOUTS = True
#: under rules without the playouts' fast path (the house rules) the playouts play every seat as the
#: basic bot too (``playout(basic_engine=True)``), not at random among sensible plays. Judged against the
#: true hands (bench.bot_decisions, house, two players, 150 games from seed 750000), the search's choices
#: gain +0.118 a game more with them at 450 playouts (+0.056 to +0.179), and +0.064 (+0.003 to +0.125) at
#: the 290 that take the CPU time of 450 sensible ones. With four players (150 games from 740000, 350
#: playouts) +0.013 (-0.042 to +0.067), and at 180 (the same CPU) +0.037 (-0.020 to +0.094): not told
#: apart, and one kind of playout for a rule set is simpler than two
ENGINE_BASIC_ROLLOUTS = True
#: at a table of two under the playouts' fast path, the search plays its own seat on as the hard bot plays
#: its own cards (``basic_weigh(own=True)``, weights ``bots.OWN_*``), and that play is the choice that
#: stands where the search shows none better; the other seats play as the basic bot
OWN_PLAYS = True
#: every root move is played out in the same worlds with the same random numbers (common random numbers),
#: and the best move replaces the basic bot's choice only when it leads it world by world (a paired test)
PAIRED = True
#: the clock is read once per this many playouts
CLOCK_EVERY = 8


class Knowledge:
    """What ``seat`` knows of a round, folded from the events it was shown (oldest first)."""

    def __init__(self, rules: RuleSet, seat: int) -> None:
        self.rules = rules
        self.seat = seat
        self.discard: list[str] = []  # physical cards face up since the last reshuffle, the top last
        self.known: dict[int, list[str]] = {}  # cards known to be in another seat's hand
        self.slots: dict[int, list[frozenset[str]]] = {}  # each unknown card of a seat: what it cannot be
        self.own: list[str] | None = None  # the seat's own hand, while events tell it
        self.lacking: dict[int, list[str]] = {}  # the engine's public ``lacking``, for the basic bot's advice
        self.top = ""
        self.wish: str | None = None
        self.first_wish: str | None = None
        self._first_wish_open = False
        self._drew: tuple[int, frozenset[str]] | None = None  # a voluntary draw that may end the turn
        self._clock_turn = False  # a timed-out turn: its draw shows nothing about the hand
        self.counts: dict[int, int] = {}  # every seat's cards, as the table shows them
        self.pending = 0
        self.direction = 1
        self.since: dict[int, list[str]] = {}  # the cards a seat laid since it last drew (or had its hand swapped)
        self.choices: dict[int, list[tuple[Any, ...]]] = {}  # its plays in that time, with what it saw then
        self.reshuffled: frozenset[str] | None = None  # the cards the last reshuffle made the stock, if followed
        self._not_reshuffled: frozenset[str] = frozenset()  # what a card drawn from that stock cannot be
        self._taken_before = 0  # cards the draw under way took before the stock was reshuffled

    # --- folding events ---------------------------------------------------------------------

    def observe(self, events: Iterable[dict[str, Any]]) -> None:
        for event in events:
            handler = getattr(self, "_on_" + str(event.get("type")), None)
            if handler is not None:
                handler(event)
            if event.get("type") != "drew":
                self._drew_settled(event)

    def _on_dealt(self, event: dict[str, Any]) -> None:
        counts = event.get("hand_counts") or [len(hand or ()) for hand in event["hands"]]
        self.discard = [event["starter"]]
        self.top = event["starter"]
        self.wish = "*" if self.rules.starter_effects and self.rules.jack_wild and RANK[self.top] == "J" else None
        self.first_wish = None
        self.counts = dict(enumerate(counts))
        self.pending, self.direction = 0, 1
        self.reshuffled, self._taken_before = None, 0
        for seat, count in enumerate(counts):
            self.since[seat], self.choices[seat] = [], []
            if seat == self.seat:
                self.own = list(event["hands"][seat])
            else:
                self.known[seat] = []
                self.slots[seat] = [frozenset()] * count

    def _on_played(self, event: dict[str, Any]) -> None:
        seat, cards = event["seat"], event["cards"]
        names = [event.get("as", {}).get(card, card) for card in cards]
        kept_back = None
        if len(cards) == 1 and seat != self.seat and not (self._drew is not None and self._drew[0] == seat):
            self._choice_note(seat, cards[0])
        self.counts[seat] = self.counts.get(seat, 0) - len(cards)
        if seat != self.seat and self.rules.jack_wild and all(RANK.get(card) == "J" for card in cards):
            kept_back = frozenset(card for card in self._fitting() if card[0] != "X" and RANK[card] != "J")
        for card in cards:
            if seat == self.seat:
                if self.own is not None and card in self.own:
                    self.own.remove(card)
            else:
                self._lay(seat, card)
        if kept_back:  # a sensible player lays a jack only when no other card fits
            self.slots[seat] = [slot | kept_back for slot in self.slots.get(seat, ())]
            self.known[seat] = [card for card in self.known.get(seat, ()) if card not in kept_back]
        self.discard.extend(cards)
        previous_top, previous_wish = self.top, self.wish
        self.top = names[-1]
        if not (self.rules.jack_wild and RANK[self.top] == "J"):  # effects.set_wish
            self.wish = self.first_wish = None
            self._first_wish_open = False
            return
        run_goes_on = RANK[previous_top] == "J" and all(RANK[name] == "J" for name in names)
        self._first_wish_open = not run_goes_on
        if not run_goes_on:
            self.first_wish = None
        elif self.first_wish is None:
            self.first_wish = previous_wish if previous_wish not in (None, "*") else SUIT[previous_top]
        self.wish = None

    def _choice_note(self, seat: int, card: str) -> None:
        """A play of ``seat`` with what it saw then, to test worlds against (:meth:`disagreements`)."""
        players = len(self.counts)
        lacking = tuple(self.lacking.get((seat + self.direction) % players, ()))
        near_end = min(count for other, count in self.counts.items() if other != seat) <= NEAR_END
        since = self.since.setdefault(seat, [])
        self.choices.setdefault(seat, []).append(
            [self.top, self.wish, self.first_wish, self.pending > 0, lacking, near_end, card, None, len(since)])
        since.append(card)

    def _on_penalty_grew(self, event: dict[str, Any]) -> None:
        self.pending = event["pending_draw"]

    def _on_direction(self, event: dict[str, Any]) -> None:
        self.direction = event["direction"]

    def _on_wish(self, event: dict[str, Any]) -> None:
        choices = self.choices.get(event["seat"])
        if choices and choices[-1][7] is None and RANK.get(choices[-1][6]) == "J":
            choices[-1][7] = event["suit"]
        self.wish = event["suit"]
        if self._first_wish_open:
            self.first_wish = event["suit"]
            self._first_wish_open = False

    def _on_drew(self, event: dict[str, Any]) -> None:
        seat, count = event["seat"], event["count"]
        self._drew = None
        self.counts[seat] = self.counts.get(seat, 0) + count
        self.since[seat], self.choices[seat] = [], []
        if event.get("reason") == "seven":  # only the 7's penalty settles it (turns.draw_on_turn); a Hermann,
            self.pending = 0                 # a forgotten call or a timeout card leaves it open
        voluntary = event.get("reason") is None and not self._clock_turn
        if voluntary and self.rules.must_play:  # what turns.draw_on_turn notes (a penalty forgets it)
            self.lacking[seat] = [self.wish if self.wish not in (None, "*") else SUIT[self.top]]
        elif event.get("reason") is not None:
            self.lacking.pop(seat, None)
        taken_before, self._taken_before = min(self._taken_before, count), 0
        if seat == self.seat:
            if self.own is not None:
                self.own.extend(event.get("cards") or ())
            return
        slots = self.slots.setdefault(seat, [])
        fitting = self._fitting() if voluntary else frozenset()
        if voluntary:  # it could not play (must_play), or would not hold back a card that fitted
            slots[:] = [slot | fitting for slot in slots]
            self.known[seat] = [card for card in self.known.get(seat, ()) if card not in fitting]
        if self.reshuffled is None:
            slots.extend([frozenset()] * count)
        else:  # the cards taken before a reshuffle within this draw came from the old stock, the rest from the new
            slots.extend([self.reshuffled] * taken_before + [self._not_reshuffled] * (count - taken_before))
        if voluntary and count == 1:
            self._drew = (seat, fitting)

    def _on_timeout(self, event: dict[str, Any]) -> None:
        self._clock_turn = True

    def _on_turn(self, event: dict[str, Any]) -> None:
        self._clock_turn = False

    def _drew_settled(self, event: dict[str, Any]) -> None:
        """A drawn card that did not fit ends the turn at once (``passed`` in the same move)."""
        if self._drew is None:
            return
        seat, fitting = self._drew
        self._drew = None
        if event.get("type") == "passed" and event.get("seat") == seat and self.slots.get(seat):
            self.slots[seat][-1] = self.slots[seat][-1] | fitting

    def _on_hands_swapped(self, event: dict[str, Any]) -> None:
        first, second = event["seats"]
        self.counts[first], self.counts[second] = self.counts.get(second, 0), self.counts.get(first, 0)
        for seat in (first, second):
            self.since[seat], self.choices[seat] = [], []
        if self.seat in (first, second):
            other = second if first == self.seat else first
            given = self.own
            self.own = None if self.slots.get(other) else list(self.known.get(other, ()))
            self.known[other] = list(given or ())
            self.slots[other] = [] if given is not None else [frozenset()] * self.counts.get(other, 0)
            return
        self.known[first], self.known[second] = self.known.get(second, []), self.known.get(first, [])
        self.slots[first], self.slots[second] = self.slots.get(second, []), self.slots.get(first, [])

    def _on_reshuffled(self, event: dict[str, Any]) -> None:
        """The discard pile below its top became the stock: no hand holds those cards now. Its event
        comes before the ``drew`` of the draw that emptied the stock; what that draw took before is what
        neither the hands (their counts) nor the discard pile account for."""
        deck = _deck(self.rules)
        taken_before = len(deck) - sum(self.counts.values()) - len(self.discard)
        pile, self.discard = self.discard[:-1], self.discard[-1:]
        if len(pile) != event.get("count") or taken_before < 0:  # a pile not followed: read nothing from it
            self.reshuffled, self._taken_before = None, 0
            return
        self.reshuffled, self._taken_before = frozenset(pile), taken_before
        self._not_reshuffled = frozenset(deck) - self.reshuffled
        for slots in self.slots.values():
            slots[:] = [slot | self.reshuffled for slot in slots]

    def _lay(self, seat: int, card: str) -> None:
        known = self.known.setdefault(seat, [])
        if card in known:
            known.remove(card)
            return
        slots = self.slots.setdefault(seat, [])
        allowing = [index for index, slot in enumerate(slots) if card not in slot]
        if allowing:
            slots.pop(max(allowing, key=lambda index: len(slots[index])))
        elif slots:
            slots.pop(0)  # knowledge that proved wrong: forget the most doubtful slot

    def _fitting(self) -> frozenset[str]:
        """The cards that could have been laid now (a joker always fits). Under ``ace_needs_cover`` an
        ace is not among them: a seat may hold a fitting ace it cannot cover, and then it draws."""
        no_lone_aces = self.rules.ace_needs_cover
        return frozenset(card for card in _deck(self.rules)
                         if card[0] == "X" or (fits(self.rules, self.top, self.wish, self.first_wish, card)
                                               and not (no_lone_aces and RANK[card] == "A")))

    # --- dealing the unseen cards -------------------------------------------------------------

    def world(self, view: dict[str, Any], rng: random.Random) -> GameState:
        """A full state consistent with everything the seat knows: the view, and the unseen cards
        dealt to the other hands (by their slots) and the stock, from a fresh :class:`Worlds` chain."""
        return self.worlds(view, rng).world(rng)

    def worlds(self, view: dict[str, Any], rng: random.Random) -> Worlds:
        """A chain of worlds for one decision (:class:`Worlds`), run in from a first deal."""
        return Worlds(self, view, rng)

    def _frame(self, view: dict[str, Any], rng: random.Random) -> tuple[
            int, list[str], dict[int, list[str]], dict[int, list[frozenset[str]]], list[str], list[str]]:
        """What a world is dealt from: the seat's hand, the cards known in other hands, each other
        hand's slots (fitted to the counts the view shows), the discard pile and the unseen cards."""
        seat = self.seat
        players = len(view["players"])
        hand = list(view["hand"] or ())
        known = {other: list(self.known.get(other, ())) for other in range(players) if other != seat}
        slots = {other: list(self.slots.get(other, ())) for other in known}
        for other, entry in enumerate(view["players"]):  # the counts are the truth: fit the slots to them
            if other == seat:
                continue
            unknown = entry["card_count"] - len(known[other])
            if unknown < 0:
                known[other], unknown = known[other][: entry["card_count"]], 0
            while len(slots[other]) > unknown:
                slots[other].pop(min(range(len(slots[other])), key=lambda index: len(slots[other][index])))
            slots[other].extend([frozenset()] * (unknown - len(slots[other])))
        discard = list(self.discard)
        top_joker = view.get("top_joker")
        physical_top = top_joker or view["top_card"]
        if not discard or discard[-1] != physical_top:
            discard = [physical_top]
        seen = set(hand) | set(discard) | {card for cards in known.values() for card in cards}
        unseen = [card for card in _deck(self.rules) if card not in seen]
        needed = view["stock_count"] + sum(len(s) for s in slots.values())
        surplus = len(unseen) - needed
        if surplus:  # a discard pile we could not follow: make its older cards fit the counts
            rng.shuffle(unseen)
            if surplus > 0:
                discard, unseen = unseen[:surplus] + discard, unseen[surplus:]
            else:
                back = discard[:-1][:-surplus]
                discard, unseen = discard[len(back):], unseen + back
        return players, hand, known, slots, discard, unseen

    def _state(self, view: dict[str, Any], hands: list[list[str]], stock: list[str], discard: list[str],
               rng: random.Random) -> GameState:
        state = GameState(self.rules, f"{rng.getrandbits(64):x}", hands, stock, list(discard))
        state.top = view["top_card"]
        state.turn = view["turn"]
        state.direction = view["direction"]
        state.pending_draw = view["pending_draw"]
        state.wish = view["wish"]
        state.first_wish = self.first_wish if state.wish is not None else None
        state.phase = DRAWN if view["phase"] == DRAWN else PLAY
        state.drawn = view.get("drawn_card")
        state.owed = {entry["seat"]: list(entry["owes"]) for entry in view["players"] if entry["owes"]}
        state.sitting_out = [entry["seat"] for entry in view["players"] if entry["sits_out"]]
        state.hermann = None if view.get("hermann") is None else list(view["hermann"]["waiting"])
        state.turns = view["turns"]
        state.lacking = {other: list(suits) for other, suits in self.lacking.items()}
        return state

    def disagreements(self, hands: list[list[str]], compact: Any) -> int:
        """How many of the other seats' recent plays the basic bot would not have made from the hands
        of this world (each hand then: the hand now and what it has laid since)."""
        return sum(self.seat_disagreements(seat, hands[seat], compact)
                   for seat, choices in self.choices.items() if choices and seat != self.seat)

    def seat_disagreements(self, seat: int, hand: list[str], compact: Any) -> int:
        """:meth:`disagreements` of one other seat, were ``hand`` its hand now."""
        total = 0
        since = self.since[seat]
        for top, wish, first_wish, pending, lacking, near_end, card, chosen, start in self.choices[seat]:
            held = hand + since[start:]
            if pending:
                plays = [other for other in held if other[0] == "7"]
            else:
                fit = compact.fit(top, wish, first_wish)
                plays = [other for other in held if other in fit]
            if card not in plays:
                total += 1
                continue
            _, best, seen = basic_weigh(held, plays, lacking, near_end, compact, (card, chosen))
            if seen < best - 1e-9:
                total += 1
        return total

    @staticmethod
    def _deal(players: int, hand: list[str], known: dict[int, list[str]], slots: dict[int, list[frozenset[str]]],
              unseen: list[str], rng: random.Random) -> list[list[str]]:
        """Fill every slot with an unseen card it allows, the most constrained slots first; what is
        left is the stock, in random order (``unseen`` keeps it). A slot nothing fits takes any card."""
        pool = list(unseen)
        random_number = rng.random  # Fisher-Yates on floats: random.shuffle's exact integers cost twice as much
        for index in range(len(pool) - 1, 0, -1):
            other = int(random_number() * (index + 1))
            pool[index], pool[other] = pool[other], pool[index]
        filled: dict[int, list[str]] = {other: list(cards) for other, cards in known.items()}
        constrained = [(other, slot) for other in slots for slot in slots[other] if slot]
        constrained.sort(key=lambda item: -len(item[1]))
        for other, excluded in constrained:
            pick = next((position for position, card in enumerate(pool) if card not in excluded), 0)
            filled[other].append(pool[pick])
            pool[pick] = pool[-1]
            pool.pop()
        for other in slots:
            free = sum(1 for slot in slots[other] if not slot)
            if free:
                filled[other].extend(pool[-free:])
                del pool[-free:]
        unseen[:] = pool
        return [list(hand) if other not in filled else filled[other] for other in range(players)]


class Worlds:
    """The worlds of one decision: a Metropolis chain over the hands whose plays are read, the rest
    dealt anew for every world.

    Its target is the weighting :class:`Knowledge` describes: deals that respect every slot, each
    weighted by :data:`LIKELIHOOD` per read play the basic bot would not have made from it. Its state
    is the cards in the slots of the seats with plays to read. A step swaps the card of one such slot
    with the card of a slot in another such hand or with one of the other unseen cards, each chosen
    uniformly (a symmetric proposal); it is refused if a card would land in a slot that excludes it,
    and else accepted with probability ``LIKELIHOOD ** added``, ``added`` the disagreements it adds
    (only the one or two hands it touched are weighed again). A world takes :data:`STEPS` steps, then
    deals the other hands and the stock from the cards left, as :meth:`Knowledge._deal` does.

    Why: dealing whole worlds anew until one agreed (12 tries at most) rarely found one once three
    others had plays to read, and worked out the frame of a world for every playout; the chain's
    worlds agree with the plays read more often, and it is faster. The plays say little, though: a
    world guesses the others' true cards hardly better than a blind deal.
    """

    def __init__(self, knowledge: Knowledge, view: dict[str, Any], rng: random.Random) -> None:
        self.knowledge, self.view = knowledge, view
        players, hand, known, slots, discard, unseen = knowledge._frame(view, rng)
        self.players, self.hand, self.known, self.discard = players, hand, known, discard
        self.compact = compact_rules(knowledge.rules)
        read = [other for other in known if knowledge.choices.get(other)] if self.compact is not None else []
        self.read = read
        self.others_known = {other: cards for other, cards in known.items() if other not in read}
        self.others_slots = {other: slots[other] for other in self.others_known}
        self.seat_of: list[int] = []  # each read slot's seat, what it excludes, its card
        self.excluded: list[frozenset[str]] = []
        self.card: list[str] = []
        self.slots_of: dict[int, list[int]] = {}
        rest = list(unseen)
        hands = Knowledge._deal(players, hand, {other: known[other] for other in read},
                                {other: slots[other] for other in read}, rest, rng)
        for other in read:  # _deal lays the slots' cards after the known ones, the most constrained first
            dealt = hands[other][len(known[other]):]
            ordered = sorted((slot for slot in slots[other] if slot), key=lambda slot: -len(slot))
            ordered += [slot for slot in slots[other] if not slot]
            self.slots_of[other] = list(range(len(self.card), len(self.card) + len(dealt)))
            self.seat_of.extend([other] * len(dealt))
            self.excluded.extend(ordered)
            self.card.extend(dealt)
        self.rest = rest  # the unseen cards no read slot holds
        self.weight = {other: self._disagreements(other) for other in read}
        self.log_likelihood = math.log(LIKELIHOOD)
        self.step(rng, BURN_IN)

    def _hand(self, other: int) -> list[str]:
        card = self.card
        return self.known[other] + [card[index] for index in self.slots_of[other]]

    def _disagreements(self, other: int) -> int:
        return self.knowledge.seat_disagreements(other, self._hand(other), self.compact)

    def step(self, rng: random.Random, steps: int) -> None:
        """Run ``steps`` steps of the chain."""
        card, excluded, seat_of, rest, weight = self.card, self.excluded, self.seat_of, self.rest, self.weight
        slots, spare = len(card), len(rest)
        if not slots:
            return
        random_number = rng.random
        log_likelihood = self.log_likelihood
        for _ in range(steps):
            index = int(random_number() * slots)
            other = int(random_number() * (spare + slots))
            old = card[index]
            seat = seat_of[index]
            if other < spare:  # one of the cards no read slot holds
                new = rest[other]
                if new in excluded[index] and old not in excluded[index]:
                    continue
                card[index] = new
                found = self._disagreements(seat)
                added = found - weight[seat]
                if added > 0 and random_number() >= math.exp(added * log_likelihood):
                    card[index] = old
                    continue
                weight[seat] = found
                rest[other] = old
                continue
            other -= spare
            second = seat_of[other]
            if seat == second:
                continue
            new = card[other]
            breaks = (new in excluded[index]) + (old in excluded[other])
            if breaks and breaks > (old in excluded[index]) + (new in excluded[other]):
                continue
            card[index], card[other] = new, old
            found, found_second = self._disagreements(seat), self._disagreements(second)
            added = found + found_second - weight[seat] - weight[second]
            if added > 0 and random_number() >= math.exp(added * log_likelihood):
                card[index], card[other] = old, new
                continue
            weight[seat], weight[second] = found, found_second

    def world(self, rng: random.Random, steps: int = 0) -> GameState:
        """The chain's world after ``steps`` more steps, the other hands and the stock dealt anew."""
        if steps:
            self.step(rng, steps)
        stock = list(self.rest)
        hands = Knowledge._deal(self.players, self.hand, self.others_known, self.others_slots, stock, rng)
        for other in self.read:
            hands[other] = self._hand(other)
        return self.knowledge._state(self.view, hands, stock, self.discard, rng)


@lru_cache(maxsize=64)
def _deck(rules: RuleSet) -> tuple[str, ...]:
    return tuple(build_deck(rules.deck, rules.jokers))


def decision_root(view: dict[str, Any], knowledge: Knowledge, rng: random.Random
                  ) -> tuple[Worlds, GameState, list[Move]] | None:
    """A decision's worlds, the first world drawn (the root) and the seat's moves in it; None when the
    round is over. The bot and the benchmark that judges its choices start alike, drawing the same
    random numbers."""
    if view.get("status") != ACTIVE:
        return None
    worlds = knowledge.worlds(view, rng)
    root = worlds.world(rng)
    return worlds, root, _root_moves(root, knowledge.seat)


def strong_action(view: dict[str, Any], knowledge: Knowledge, rng: random.Random, *, playouts: int = 100_000,
                  clock: Callable[[], float] | None = None, deadline: float | None = None,
                  stats: dict[str, int] | None = None) -> dict[str, Any] | None:
    """The strong bot's action for the seat of ``knowledge``, or None when it may not act.

    It stops after ``playouts`` playouts, or once ``clock()`` reaches ``deadline``; it plays at least
    one playout per root move. ``stats`` (if given) counts the playouts, decisions and searches it made."""
    seat = knowledge.seat
    found = decision_root(view, knowledge, rng)
    if found is None:
        return None
    worlds, root, moves = found
    if not moves:
        return None
    for move in moves:
        if isinstance(move, dict) and move.get("type") == "say":
            return move  # a call costs nothing and saves a penalty card
    if len(moves) == 1 or seat != root.turn:
        return action_of(moves[0])
    root_moves_world = root.copy()
    if PAIRED:
        return action_of(moves[_paired(root, root_moves_world, worlds, seat, moves, rng, playouts, clock, deadline,
                                       stats)])
    wins = [0.0] * len(moves)
    visits = [0] * len(moves)
    total = decisions = 0
    random_number = rng.random
    while total < max(playouts, len(moves)):
        if total >= len(moves) and clock is not None and deadline is not None and total % CLOCK_EVERY == 0 \
                and clock() >= deadline:
            break
        if total < len(moves):
            choice = total
        else:
            log_total = math.log(total)
            choice = max(range(len(moves)), key=lambda index: wins[index] / visits[index]
                         + EXPLORATION * math.sqrt(log_total / visits[index]))
        world = root if total == 0 else worlds.world(rng, STEPS)
        playout_apply(world, seat, moves[choice])
        decisions += 1 + playout(world, random_number, sensible=True, limit=CUTOFF or 1 << 30,
                                         basic=BASIC_ROLLOUTS)
        wins[choice] += reward(world, seat)
        visits[choice] += 1
        total += 1
    if stats is not None:
        stats["playouts"] = stats.get("playouts", 0) + total
        stats["decisions"] = stats.get("decisions", 0) + decisions
        stats["searches"] = stats.get("searches", 0) + 1
    best = max(range(len(moves)), key=lambda index: (wins[index] / visits[index], visits[index]))
    sensible = _basic_choice(root_moves_world, seat, moves)
    if sensible is not None and sensible != best and visits[sensible]:
        # the search must show the better move, not only guess it: within the noise of its own
        # estimates, the basic bot's choice (which knows a few things playouts do not) stands
        mean, other = wins[best] / visits[best], wins[sensible] / visits[sensible]
        spread = max(mean * (1 - mean), other * (1 - other), 0.01)
        if mean - other < CONFIDENCE * math.sqrt(spread * (1 / visits[best] + 1 / visits[sensible])):
            best = sensible
    return action_of(moves[best])


def _paired(root: GameState, before: GameState, worlds: Worlds, seat: int, moves: list[Move], rng: random.Random,
            playouts: int, clock: Callable[[], float] | None, deadline: float | None,
            stats: dict[str, int] | None) -> int:
    """The index of the move to make: :func:`paired_outcomes`, judged by :func:`paired_choice`."""
    sensible = _own_choice(before, seat, moves)
    outcomes = paired_outcomes(root, worlds, seat, moves, rng, playouts, clock, deadline, stats)
    return paired_choice(outcomes, sensible, confidence_for(root.rules, len(root.hands)))


def confidence_for(rules: RuleSet, players: int) -> float:
    """The paired test's confidence at a table of ``players`` under ``rules`` (:data:`CONFIDENCE_AT`)."""
    return CONFIDENCE_AT.get((rules.name, players), CONFIDENCE)


def paired_outcomes(root: GameState, worlds: Worlds, seat: int, moves: list[Move], rng: random.Random,
                    playouts: int, clock: Callable[[], float] | None = None, deadline: float | None = None,
                    stats: dict[str, int] | None = None) -> list[list[float]]:
    """Every move played out in each world from the same random numbers: one row per world (``root``
    first), one reward per move in the order of ``moves``."""
    count = len(moves)
    outcomes: list[list[float]] = []
    made = decisions = 0
    limit = CUTOFF or 1 << 30
    own = seat if _plays_own(root) else None
    while made < max(playouts, count):
        if made and clock is not None and deadline is not None and clock() >= deadline:
            break
        world = root if not made else worlds.world(rng, STEPS)
        seed = rng.getrandbits(32)
        rewards = []
        for move in moves:
            played = world.copy()
            playout_apply(played, seat, move)
            decisions += 1 + playout(played, random.Random(seed).random, sensible=True, limit=limit,
                                     basic=BASIC_ROLLOUTS, basic_engine=ENGINE_BASIC_ROLLOUTS, own=own)
            rewards.append(reward(played, seat))
        outcomes.append(rewards)
        made += count
    if stats is not None:
        stats["playouts"] = stats.get("playouts", 0) + made
        stats["decisions"] = stats.get("decisions", 0) + decisions
        stats["searches"] = stats.get("searches", 0) + 1
    return outcomes


def paired_choice(outcomes: list[list[float]], sensible: int | None, confidence: float | None = None) -> int:
    """The move with the most wins over the worlds of ``outcomes`` (:func:`paired_outcomes`); but the
    basic bot's choice (``sensible``) stands unless that move beats it by ``confidence`` (default
    :data:`CONFIDENCE`) standard errors of their differences world by world."""
    count = len(outcomes[0])
    totals = [sum(rewards[index] for rewards in outcomes) for index in range(count)]
    best = max(range(count), key=lambda index: totals[index])
    if sensible is None or best == sensible:
        return best
    found = [rewards[best] - rewards[sensible] for rewards in outcomes]
    mean = sum(found) / len(found)
    spread = sum((value - mean) ** 2 for value in found) / max(len(found) - 1, 1)
    if mean > (CONFIDENCE if confidence is None else confidence) * math.sqrt(max(spread, 1e-4) / len(found)):
        return best
    return sensible


def search_outcomes(view: dict[str, Any], knowledge: Knowledge, rng: random.Random, playouts: int
                    ) -> tuple[list[dict[str, Any]], int | None, list[list[float]]] | None:
    """What the paired search weighs at a decision (for benchmarks that judge its choices): the seat's
    actions, the index among them of the choice that stands where the search shows none better (the
    basic bot's, or the seat's own play: :data:`OWN_PLAYS`), and :func:`paired_outcomes`; None where
    :func:`strong_action` would not search (no choice, a call, not on turn)."""
    seat = knowledge.seat
    found = decision_root(view, knowledge, rng)
    if found is None:
        return None
    worlds, root, moves = found
    if len(moves) < 2 or seat != root.turn or any(isinstance(move, dict) and move.get("type") == "say"
                                                   for move in moves):
        return None
    sensible = _own_choice(root.copy(), seat, moves)
    return [action_of(move) for move in moves], sensible, paired_outcomes(root, worlds, seat, moves, rng, playouts)


def _plays_own(state: GameState) -> bool:
    """Whether the search plays its seat by its own weights here (:data:`OWN_PLAYS`)."""
    return OWN_PLAYS and BASIC_ROLLOUTS and len(state.hands) == 2 and compact_rules(state.rules) is not None


def _own_choice(world: GameState, seat: int, moves: list[Move]) -> int | None:
    """The index of the move the seat's own play makes here (:data:`OWN_PLAYS`): a single card as
    ``basic_weigh(own=True)`` weighs it; anything else (a 7 against a penalty, a draw, the drawn card)
    as the basic bot chooses it."""
    if not _plays_own(world) or world.pending_draw:
        return _basic_choice(world, seat, moves)
    plays = [move if isinstance(move, str) else move[0] for move in moves if isinstance(move, (str, tuple))]
    if not plays:
        return _basic_choice(world, seat, moves)
    hand = world.hands[seat]
    players = len(world.hands)
    lacking = world.lacking.get((seat + world.direction) % players, ())
    near_end = any(len(other) <= NEAR_END for index, other in enumerate(world.hands) if index != seat)
    card, wish = basic_weigh(hand, list(dict.fromkeys(plays)), lacking, near_end, compact_rules(world.rules),
                             None, True)[0]
    return moves.index(card if wish is None else (card, wish))


def _basic_choice(world: GameState, seat: int, moves: list[Move]) -> int | None:
    """The index of the move the basic bot would make here. It reads only the seat's own hand, the
    counts and the public table from the world, which are the view's."""
    chosen = choose_bot_action(world, seat, "basic", None)
    actions = [action_of(move) for move in moves]
    return actions.index(chosen) if chosen in actions else None


def root_moves_of(state: GameState, seat: int, actions: list[dict[str, Any]]) -> list[Move]:
    """The playout moves of ``actions`` (the actions :func:`search_outcomes` weighed) in ``state``."""
    moves = {repr(action_of(move)): move for move in _root_moves(state, seat)}
    return [moves[repr(action)] for action in actions]


def _root_moves(state: GameState, seat: int) -> list[Move]:
    """The seat's moves, a joker named as the basic bot would name it (a playout needs names)."""
    moves = playout_moves(state, seat)
    return [name_jokers(move, state.hands[seat]) if isinstance(move, dict) else move for move in moves]


def reward(state: GameState, seat: int) -> float:
    """1 for a win; a round without a winner counts as a share of one."""
    result = state.result or {}
    winner = result.get("winner")
    if winner is None:
        if state.status == ACTIVE:  # cut off: the fewer cards a seat holds, the likelier it wins
            weights = [0.5 ** len(hand) for hand in state.hands]
            return weights[seat] / sum(weights)
        return 1.0 / len(state.hands)
    return 1.0 if winner == seat else 0.0
