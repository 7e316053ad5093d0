"""Provably fair dealing, the pure part: a commitment, the deal seed and the bots' seeds.

The service keeps a secret server seed per round and shows :func:`seed_commitment` of it before
the players' entropy is final; the deal is shuffled by :func:`~games.engine.turns.new_game` from
:func:`deal_seed`, which mixes that server seed with one entropy string per seat. After the round
the server seed is revealed, and anyone can recompute both hashes and the deal with this module.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence

#: Names the derivation, so a later change of scheme cannot be confused with this one.
SCHEME = "maumau-deal/1"


def seed_commitment(server_seed: str) -> str:
    """SHA-256 (hex) of the server seed's UTF-8 bytes: shown before the round, checked after it."""
    return hashlib.sha256(server_seed.encode()).hexdigest()


def deal_seed(server_seed: str, entropy: Sequence[str]) -> str:
    """The seed the deck is shuffled from: SHA-256 (hex) of the canonical JSON array
    ``["maumau-deal/1", server_seed, [entropy of game seat 0, 1, ...]]`` (no spaces, UTF-8).

    A JSON array keeps the parts apart (no entropy string can shift into its neighbour), and every
    seat's string counts, so no single input fixes the result while another is unknown.
    """
    encoded = json.dumps([SCHEME, server_seed, list(entropy)], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(encoded.encode()).hexdigest()


def bot_seed(secret: str, version: int) -> int:
    """The seed of a bot's generator for the move at ``version``: HMAC-SHA256 keyed by the round's
    secret seed, so it is reproducible from the revealed seed after the round and cannot be
    predicted from anything a player sees while it runs."""
    return int.from_bytes(hmac.new(secret.encode(), f"bot:{version}".encode(), hashlib.sha256).digest(), "big")
