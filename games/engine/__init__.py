"""The rules engine of Mau-Mau: pure Python, no framework, no I/O, no global randomness.

Everything else in the service calls it: the API applies players' moves with :func:`apply`, the
bots and the turn clock choose through :func:`legal_actions`, and every response is built by
:func:`player_view` and :func:`redact_events`. Each module states the rules it carries out:
:mod:`~games.engine.turns` (the deal and the turn), :mod:`~games.engine.legality` (what may be
played), :mod:`~games.engine.effects` (what each card does), :mod:`~games.engine.calls` ("Mau",
"Pik", "Hermann"), :mod:`~games.engine.moves` (listing the legal actions), :mod:`~games.engine.results`,
:mod:`~games.engine.playouts` (the fast path search runs on), :mod:`~games.engine.search` (the
``hard`` bot);
the options and presets are in :mod:`~games.engine.rules`, the events in :mod:`~games.engine.events`,
the fair deal's hashes in :mod:`~games.engine.seeds`.
"""

from .actions import ActionError, parse_action
from .bots import BOT_LEVELS, LEVELS, bot_level, choose_bot_action
from .cards import build_deck, card_names, house_points, is_card_code, ranking_points
from .legality import IllegalAction
from .moves import legal_actions
from .results import round_result
from .rules import PRESETS, RuleSet, RulesError
from .search import Knowledge, strong_action
from .seeds import SCHEME, bot_seed, deal_seed, seed_commitment
from .state import GameState
from .turns import SetupError, apply, new_game, new_game_from_setup, penalize_illegal
from .view import deal_event, player_view, redact_event, redact_events

__all__ = [
    "BOT_LEVELS",
    "LEVELS",
    "PRESETS",
    "ActionError",
    "GameState",
    "IllegalAction",
    "Knowledge",
    "RuleSet",
    "RulesError",
    "SCHEME",
    "SetupError",
    "apply",
    "bot_seed",
    "bot_level",
    "build_deck",
    "card_names",
    "choose_bot_action",
    "deal_event",
    "deal_seed",
    "house_points",
    "is_card_code",
    "legal_actions",
    "new_game",
    "new_game_from_setup",
    "parse_action",
    "penalize_illegal",
    "player_view",
    "ranking_points",
    "redact_event",
    "redact_events",
    "round_result",
    "seed_commitment",
    "strong_action",
]
