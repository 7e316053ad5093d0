"""Checking a round's deal after the fact: the commitment, the deal seed, and every event.

What a round shows about its deal (``deal_data``) and the full check anyone may ask for once it is
over (``deal_report``, served by ``GET /games/{id}/fairness`` and ``manage.py verify_deal``). The
check recomputes the commitment from the revealed server seed and the deal seed from it and the
seats' entropy (``engine.seeds``), then replays the ledger from that deal with
:func:`games.ledger.ledger_verify`: a different deal would not reproduce the recorded events.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games import engine
from games.engine import SCHEME
from games.ledger import initial_state, ledger_verify
from games.models import Game


def deal_kind(game: Game) -> str:
    """``fair`` (commit and reveal), ``practice`` (a chosen seed or setup), or ``seed`` (a round dealt
    from a secret seed before fair dealing, with no commitment)."""
    if game.practice:
        return "practice"
    return "fair" if game.entropy is not None else "seed"


def seed_shown(game: Game, *, player: bool) -> bool:
    """Whether the caller may see the round's server seed: its players once it is over (to check the
    deal), a spectator only ``MAUMAU_SEED_REVEAL_DELAY_SECONDS`` after that, since the seed and the
    public entropy recompute every hand and spectators never see hands while the round is fresh."""
    if game.status != "finished":
        return False
    if player:
        return True
    ended = game.finished_at
    return ended is not None and timezone.now() >= ended + timedelta(
        seconds=settings.MAUMAU_SEED_REVEAL_DELAY_SECONDS)


def deal_data(game: Game, *, player: bool = True) -> dict[str, Any]:
    """The round's deal as ``player`` (one of its players) or a spectator may see it: the commitment
    and the entropy from the start (neither is secret), the server seed as :func:`seed_shown` says."""
    over = seed_shown(game, player=player)
    return {
        "practice": game.practice,
        "kind": deal_kind(game),
        "commitment": game.commitment or None,
        "entropy": [{"seat": seat, **part} for seat, part in enumerate(game.entropy)] if game.entropy else None,
        "seed": game.seed if over else None,
    }


def deal_report(game: Game) -> dict[str, Any]:
    """Everything needed to recompute the deal, and the result of recomputing it here. Only for a
    finished round: it reveals the server seed and every hand dealt."""
    problems: list[str] = []
    commitment_ok = None
    if game.commitment:
        commitment_ok = engine.seed_commitment(game.seed) == game.commitment
        if not commitment_ok:
            problems.append("the server seed does not hash to the commitment")
    elif deal_kind(game) == "fair":
        commitment_ok = False
        problems.append("a fair round without a commitment")
    ledger_problems = ledger_verify(game)
    problems += ledger_problems
    try:
        dealt: dict[str, Any] | None = engine.deal_event(initial_state(game))
    except (engine.SetupError, engine.RulesError, KeyError, TypeError):
        dealt = None
    return {
        "game": game.pk,
        "table": game.table_id,
        "number": game.number,
        **deal_data(game),
        "seed": game.seed,
        "scheme": SCHEME if deal_kind(game) == "fair" else None,
        "deal_seed": game.deal_seed(),
        "deal": dealt,
        "checks": {"commitment": commitment_ok, "ledger": not ledger_problems, "rows": game.version},
        "problems": problems,
        "verified": not problems,
    }
