"""End of round: ranking and points as each rule set scores them.

- ``ranking`` (classic, seed 000): the winner first; the others by fewer cards left, ties by fewer
  card points (A 11, 10 10, K 4, Q 3, J 2, others face value). ``points`` is those card points.
- ``wins`` (tavern, seed 001): only the win counts; ``points`` is 0. The others are still listed by
  cards left (a display order; they all lost).
- ``points`` (house, seed 004): the others score their hand (2..10 face value, Q 3, K 4, A 10, J 20,
  joker 50) times the multiplier, which is 1 + the extra jacks laid on the last card. The winner
  scores 0. Fewer points rank better.

A round played with real cards and written on a league's scoresheet is scored by the same
``round_result``, with a hand's value in points where the scorekeeper gave points instead of cards.

A round that ends without a winner (stalemate, ``max_turns``) is scored the same way with no winner
and multiplier 1. Equal keys share a rank (1, 2, 2, 4).

A resignation (``resigned``) scores the one who gave up as the rule set scores a loser, ranked last
alone (in ``points`` their hand's points, multiplier 1). **Decision** (the seeds are silent): with two
players the other one wins; with more the round ends without a winner, the others ranked among
themselves as usual, and in ``points`` only the resigner scores (the others did not lose).
An aborted round (``aborted``: the host ended it before the first move) has no winner and scores
nothing; it is never counted.
"""

from __future__ import annotations

from typing import Any

from .cards import house_points, ranking_points


def round_result(hands: list[list[str]], scoring: str, winner: int | None, reason: str,
                 multiplier: int = 1, hand_points: list[int | None] | None = None) -> dict[str, Any]:
    """Rank and score one round. ``hand_points`` (a round written on a league's scoresheet) gives, where
    not None, a seat's hand value in the rule set's card points instead of its cards (``hands[seat]`` is
    then empty): the same multiplier and ranking apply to it."""
    rows = []
    for seat, hand in enumerate(hands):
        won = seat == winner
        given = hand_points[seat] if hand_points is not None else None
        if scoring == "points":
            raw = sum(house_points(card) for card in hand) if given is None else given
            points = 0 if won else raw * multiplier
            key: tuple[int, ...] = (0 if won else 1, points)
        else:
            raw = sum(ranking_points(card) for card in hand) if given is None else given
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


def resigned_result(hands: list[list[str]], scoring: str, resigner: int) -> dict[str, Any]:
    """The result of a round ended by ``resigner`` giving up (see the module docstring)."""
    others = [seat for seat in range(len(hands)) if seat != resigner]
    winner = others[0] if len(others) == 1 else None
    result = round_result([hands[seat] for seat in others], scoring, 0 if winner is not None else None, "resigned")
    rows = []
    for row in result["players"]:
        seat = others[row["seat"]]
        if scoring == "points":
            row = {**row, "points": 0}
        rows.append({**row, "seat": seat})
    hand = hands[resigner]
    raw = sum((house_points if scoring == "points" else ranking_points)(card) for card in hand)
    rows.append({"seat": resigner, "rank": len(hands), "cards_left": len(hand), "raw_points": raw, "multiplier": 1,
                 "points": raw if scoring in ("points", "ranking") else 0, "won": False, "resigned": True})
    return {"winner": winner, "reason": "resigned", "multiplier": 1, "players": rows}


def aborted_result(hands: list[list[str]]) -> dict[str, Any]:
    """The result of a round the host aborted before its first move: nobody won, nobody scores."""
    return {"winner": None, "reason": "aborted", "multiplier": 1,
            "players": [{"seat": seat, "rank": 1, "cards_left": len(hand), "raw_points": 0, "multiplier": 1,
                         "points": 0, "won": False} for seat, hand in enumerate(hands)]}
