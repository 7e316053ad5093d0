"""GameState: everything a round is, JSON-native so it can be stored and replayed without loss.

Layout choices, for speed and for replay:
- ``stock`` is kept bottom first (its top is the last element, so drawing is ``pop()``);
  ``discard`` likewise (its top is the last element). Setups from clients list the stock top first.
- ``top`` is the *effective* top card: a joker's declared name (``X2`` laid as ``7S`` makes ``7S``).
- Randomness lives in the state as the secret ``seed`` and the number of shuffles done
  (``shuffles``); see :func:`games.engine.cards.secret_shuffle`. The seed never leaves the server.
"""

from __future__ import annotations

from typing import Any

from .rules import RuleSet

#: ``status``: the round is played, or over (``result`` holds the score)
ACTIVE = "active"
FINISHED = "finished"
#: ``phase``, the step of the turn holder's turn while the round is active
PLAY = "play"  # play, draw or (with nothing to draw) pass
DRAWN = "drawn"  # the turn holder drew one card: play that card or pass


class GameState:
    __slots__ = (
        "rules",
        "seed",
        "shuffles",
        "hands",
        "stock",
        "discard",
        "top",
        "turn",
        "direction",
        "pending_draw",
        "wish",
        "first_wish",
        "phase",
        "drawn",
        "owed",
        "sitting_out",
        "hermann",
        "turns",
        "idle",
        "status",
        "result",
        "penalized_plays",
        "lacking",
    )

    def __init__(self, rules: RuleSet, seed: str, hands: list[list[str]], stock: list[str],
                 discard: list[str], first: int = 0) -> None:
        self.rules = rules
        self.seed = seed
        self.shuffles = 1
        self.hands = hands
        self.stock = stock
        self.discard = discard
        self.top = discard[-1]
        self.turn = first
        self.direction = 1
        self.pending_draw = 0
        self.wish: str | None = None
        #: the suit wished when the current run of jacks began (``jack_on_jack: first_wished_suit``)
        self.first_wish: str | None = None
        self.phase = PLAY
        self.drawn: str | None = None
        #: calls a seat still owes ("mau", "pik"): sayable until the next player acts
        self.owed: dict[int, list[str]] = {}
        #: seats that lose their next turn (the 9 of ``nine_skips_second``)
        self.sitting_out: list[int] = []
        #: seats that have not yet said "Hermann" while a KD race runs; None when none runs
        self.hermann: list[int] | None = None
        self.turns = 0
        #: consecutive turns in which the player could neither play nor draw (stalemate count)
        self.idle = 0
        self.status = ACTIVE
        self.result: dict[str, Any] | None = None
        #: illegal plays already penalized since the last accepted turn action: [seat, fingerprint]
        self.penalized_plays: list[list[Any]] = []
        #: public knowledge: suits a seat showed it lacks by drawing under ``must_play``
        self.lacking: dict[int, list[str]] = {}

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def hermann_open(self) -> bool:
        return self.hermann is not None

    def drawable(self) -> int:
        """Cards a player could draw now: the stock plus the discard pile below its top."""
        return len(self.stock) + len(self.discard) - 1

    def to_json(self, *, with_rules: bool = True) -> dict[str, Any]:
        """The state as plain JSON data. ``with_rules=False`` leaves the rules out, for a store
        that keeps them once beside its snapshots: they never change within a round and are half
        of a snapshot's size (:meth:`from_json` then takes them as an argument)."""
        data = {
            "seed": self.seed,
            "shuffles": self.shuffles,
            "hands": [list(hand) for hand in self.hands],
            "stock": list(self.stock),
            "discard": list(self.discard),
            "top": self.top,
            "turn": self.turn,
            "direction": self.direction,
            "pending_draw": self.pending_draw,
            "wish": self.wish,
            "first_wish": self.first_wish,
            "phase": self.phase,
            "drawn": self.drawn,
            "owed": [[seat, list(words)] for seat, words in sorted(self.owed.items())],
            "sitting_out": list(self.sitting_out),
            "hermann": None if self.hermann is None else list(self.hermann),
            "turns": self.turns,
            "idle": self.idle,
            "status": self.status,
            "result": self.result,
            "penalized_plays": [list(entry) for entry in self.penalized_plays],
            "lacking": [[seat, list(suits)] for seat, suits in sorted(self.lacking.items())],
        }
        if with_rules:
            data["rules"] = self.rules.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], rules: RuleSet | None = None) -> GameState:
        """The state back from :meth:`to_json`; ``rules`` are those of data written without them
        (data that holds its own rules is read with those)."""
        state = cls.__new__(cls)
        if "rules" in data:
            state.rules = RuleSet.from_json(data["rules"])
        elif rules is not None:
            state.rules = rules
        else:
            raise ValueError("this state was written without its rules: pass them")
        state.seed = data["seed"]
        state.shuffles = data["shuffles"]
        state.hands = [list(hand) for hand in data["hands"]]
        state.stock = list(data["stock"])
        state.discard = list(data["discard"])
        state.top = data["top"]
        state.turn = data["turn"]
        state.direction = data["direction"]
        state.pending_draw = data["pending_draw"]
        state.wish = data["wish"]
        state.first_wish = data["first_wish"]
        state.phase = data["phase"]
        state.drawn = data["drawn"]
        state.owed = {seat: list(words) for seat, words in data["owed"]}
        state.sitting_out = list(data["sitting_out"])
        state.hermann = None if data["hermann"] is None else list(data["hermann"])
        state.turns = data["turns"]
        state.idle = data["idle"]
        state.status = data["status"]
        state.result = data["result"]
        state.penalized_plays = [list(entry) for entry in data["penalized_plays"]]
        state.lacking = {seat: list(suits) for seat, suits in data["lacking"]}
        return state

    def copy(self) -> GameState:
        """An independent copy (the rules are immutable and shared)."""
        state = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(state, name, getattr(self, name))
        state.hands = [list(hand) for hand in self.hands]
        state.stock = list(self.stock)
        state.discard = list(self.discard)
        state.owed = {seat: list(words) for seat, words in self.owed.items()}
        state.sitting_out = list(self.sitting_out)
        state.hermann = None if self.hermann is None else list(self.hermann)
        state.penalized_plays = [list(entry) for entry in self.penalized_plays]
        state.lacking = {seat: list(suits) for seat, suits in self.lacking.items()}
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]
