"""End of round: ranking and points as each rule set scores them.

- ``ranking`` (classic, seed 000): the winner first; the others by fewer cards left, ties by fewer
  card points (A 11, 10 10, K 4, Q 3, J 2, others face value). ``points`` is those card points.
- ``wins`` (tavern, seed 001): only the win counts; ``points`` is 0. The others are still listed by
  cards left (a display order; they all lost).
- ``points`` (house, seed 004): the others score their hand (2..10 face value, Q 3, K 4, A 10, J 20,
  joker 50) times the multiplier, which is 1 + the extra jacks laid on the last card. The winner
  scores 0. Fewer points rank better.

A round that ends without a winner (stalemate, ``max_turns``) is scored the same way with no winner
and multiplier 1. Equal keys share a rank (1, 2, 2, 4).
"""

from __future__ import annotations

from typing import Any

from .cards import house_points, ranking_points


def round_result(hands: list[list[str]], scoring: str, winner: int | None, reason: str,
                 multiplier: int = 1) -> dict[str, Any]:
    rows = []
    for seat, hand in enumerate(hands):
        won = seat == winner
        if scoring == "points":
            raw = sum(house_points(card) for card in hand)
            points = 0 if won else raw * multiplier
            key: tuple[int, ...] = (0 if won else 1, points)
        else:
            raw = sum(ranking_points(card) for card in hand)
            points = raw if scoring == "ranking" else 0
            key = (0 if won else 1, len(hand), raw)
        rows.append(
            {
                "seat": seat,
                "rank": 0,
                "cards_left": len(hand),
                "raw_points": raw,
                "multiplier": 1 if won else multiplier,
                "points": points,
                "won": won,
                "_key": key,
            }
        )
    rows.sort(key=lambda row: (row["_key"], row["seat"]))
    previous = None
    for position, row in enumerate(rows, start=1):
        if row["_key"] != previous:
            rank = position
            previous = row["_key"]
        row["rank"] = rank
        del row["_key"]
    return {"winner": winner, "reason": reason, "multiplier": multiplier, "players": rows}
