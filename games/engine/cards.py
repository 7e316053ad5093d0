"""Cards, suits, ranks and decks, and the deterministic secret shuffle.

A card is its code, a plain string: rank then suit (``7H``, ``10S``, ``JD``, ``AC``); jokers are
``X1``, ``X2`` ... (no suit and no rank until their player names them). Strings keep the state
JSON-native and fast to compare; the lookup tables below give rank and suit without parsing.

Why a hash-based shuffle: the stock order must be replayable from the game's seed and yet
impossible for players to predict from the cards they have seen. ``random.Random`` (Mersenne
Twister) can be reconstructed from its outputs, so shuffles draw from SHA-256 of
``seed:shuffle-number:block`` instead (a keyed counter-mode generator): the seed is secret,
256 bits by default, and nothing about it leaks through the order of the cards.
"""

from __future__ import annotations

import hashlib
import struct
from functools import cache

SUITS: tuple[str, ...] = ("C", "S", "H", "D")
SKAT_RANKS: tuple[str, ...] = ("7", "8", "9", "10", "J", "Q", "K", "A")
FRENCH_RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
DECK_RANKS: dict[str, tuple[str, ...]] = {"skat32": SKAT_RANKS, "french52": FRENCH_RANKS}
MAX_JOKERS = 8

RANK: dict[str, str] = {}
SUIT: dict[str, str] = {}
for _rank in FRENCH_RANKS:
    for _suit in SUITS:
        RANK[_rank + _suit] = _rank
        SUIT[_rank + _suit] = _suit
_FOUR_BLOCKS = struct.Struct(">4Q")
JOKERS: tuple[str, ...] = tuple(f"X{i}" for i in range(1, MAX_JOKERS + 1))

#: Card points for the ``ranking`` tie-break (seed 000): A 11, 10 10, K 4, Q 3, J 2, others face value.
RANKING_POINTS: dict[str, int] = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}
#: Hand points in ``house`` (seed 004): 2..10 face value, Q 3, K 4, A 10, J 20, joker 50.
HOUSE_POINTS: dict[str, int] = {"A": 10, "K": 4, "Q": 3, "J": 20}
JOKER_POINTS = 50


def is_joker(card: str) -> bool:
    return card[0] == "X"


def is_card_code(code: object) -> bool:
    """True for any code docs/rules.md defines (a French card or a joker), whatever the deck."""
    return isinstance(code, str) and (code in RANK or code in JOKERS)


@cache
def card_names(deck: str) -> tuple[str, ...]:
    """The suited cards of a deck: what exists physically and what a joker may be named as."""
    return tuple(rank + suit for suit in SUITS for rank in DECK_RANKS[deck])


def build_deck(deck: str, jokers: int = 0) -> list[str]:
    """The full deck in a fixed order (suits, then ranks, then jokers)."""
    return list(card_names(deck)) + list(JOKERS[:jokers])


def ranking_points(card: str) -> int:
    if card[0] == "X":
        return JOKER_POINTS
    rank = RANK[card]
    return RANKING_POINTS.get(rank) or int(rank)


def house_points(card: str) -> int:
    if card[0] == "X":
        return JOKER_POINTS
    rank = RANK[card]
    return HOUSE_POINTS.get(rank) or int(rank)


def secret_shuffle(cards: list[str], seed: str, number: int) -> None:
    """Shuffle ``cards`` in place (Fisher-Yates) from SHA-256 of the secret seed.

    ``number`` counts the shuffles of one game (deal = 0, each reshuffle of the discard pile +1),
    so every shuffle has its own stream and replay reproduces each of them exactly. Indices come
    from 64-bit blocks modulo the range: the bias is below 2**-57, far beneath anything a player
    could notice.
    """
    key = f"{seed}:{number}:".encode()
    count = len(cards) - 1
    values: list[int] = []
    for block in range((count + 3) // 4):  # each 32-byte digest gives four 64-bit blocks
        values.extend(_FOUR_BLOCKS.unpack(hashlib.sha256(key + str(block).encode()).digest()))
    for step, i in enumerate(range(count, 0, -1)):
        j = values[step] % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
