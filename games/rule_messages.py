"""What each rule refusal of the engine says to a person, in their language.

The engine's :class:`~games.engine.IllegalAction` carries a stable ``code`` (clients switch on it,
as ``details.reason``) and an English sentence for logs. The API's ``message`` is for people and
follows ``Accept-Language``, so it comes from this table, one translatable sentence per code.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

RULE_MESSAGES: dict[str, Promise] = {
    "card_not_in_hand": _("You do not hold this card."),
    "duplicate_card": _("A card is listed twice."),
    "no_cards": _("A play lays at least one card."),
    "card_does_not_fit": _("The card does not fit the top card."),
    "jack_on_jack": _("This jack may not be laid on a jack."),
    "penalty_open": _("A penalty is open: play a 7 or draw."),
    "only_drawn_card": _("After drawing you may play only the drawn card."),
    "ace_needs_cover": _("An ace needs a fitting card on it in the same move."),
    "one_card_per_move": _("Play one card (an ace together with its cover)."),
    "final_jacks_only": _("Only jacks may be laid on the last card."),
    "final_jacks_last_card": _("Extra jacks go only on your last card."),
    "joker_name_required": _("Name the card the joker stands for."),
    "invalid_joker_name": _("A joker is named as a card of the deck."),
    "invalid_wish": _("Wish one of the suits C, S, H, D."),
    "wish_required": _("A jack wishes a suit: add a wish."),
    "target_required": _("The queen of hearts swaps hands: name a target seat."),
    "invalid_target": _("Swap with another seat of the table."),
    "draw_limit": _("You drew already: play the drawn card or pass."),
    "nothing_to_draw": _("There is nothing to draw: pass."),
    "must_play": _("You can play, so you must play."),
    "pass_not_allowed": _("You may not pass now: play or draw."),
    "maumau_with_last_card": _('"Mau-Mau" is said with the last card, in the same move.'),
    "nothing_to_say": _("There is nothing for you to say now."),
    "no_hermann_race": _("No Hermann race is running."),
    "round_started": _("A round can be aborted only before its first move."),
}
DEFAULT_RULE_MESSAGE = _("The rules do not allow this move.")


def rule_message(code: str) -> Promise:
    return RULE_MESSAGES.get(code, DEFAULT_RULE_MESSAGE)
