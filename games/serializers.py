"""Request validation and the documented shapes of answers (for the OpenAPI schema)."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.engine.actions import WORDS
from games.engine.bots import BOT_LEVELS, bot_level
from games.engine.cards import SUITS
from games.schema import (
    CARD_PATTERN,
    MAX_DECK,
    MAX_SEATS,
    OPTION_LIMITS,
    RESULT_REASONS,
    RULE_SETS,
    SUITED_CARD_PATTERN,
    ref,
)
from maumau.errors import ValidationFailed
from maumau.names import NameField
from maumau.params import QUERY_INT_MAX
from maumau.strict import (
    StrictChoiceField,
    StrictIntegerField,
    StrictSerializer,
)

__all__ = ["CARD_PATTERN", "MAX_DECK", "MAX_SEATS", "RULE_SETS", "SUITED_CARD_PATTERN", "StrictSerializer"]

@extend_schema_field(ref("RuleOptionOverrides"))
class RuleOptionsField(serializers.DictField):
    """Overrides of a preset's options. Names, types and combinations are the engine's to refuse
    (``games.rule_sets``); here only the bounds of the whole numbers, in the same error shape."""

    def to_internal_value(self, data: Any) -> Any:
        options = super().to_internal_value(data)
        for name, value in options.items():
            if name in OPTION_LIMITS and type(value) is int:
                low, high = OPTION_LIMITS[name]
                if not low <= value <= high:
                    raise ValidationFailed(message=_rules_not_valid(),
                                           details={"option": name, "reason": f"must be from {low} to {high}"})
            if name == "players" and isinstance(value, list) and any(type(v) is int and v > MAX_SEATS for v in value):
                raise ValidationFailed(message=_rules_not_valid(),
                                       details={"option": name, "reason": f"at most {MAX_SEATS} players"})
        return options


def _rules_not_valid() -> Any:
    from django.utils.translation import gettext_lazy as _

    return _("These rules are not valid.")


@extend_schema_field(ref("RuleOptions"))
class EffectiveOptionsField(serializers.DictField):
    pass


# --- requests --------------------------------------------------------------------------------


class PlayerCreateSerializer(StrictSerializer):
    name = NameField(max_length=64)


class PlayerCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")


class PlayerBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.BooleanField()


class TableCreateSerializer(StrictSerializer):
    rules = StrictChoiceField(choices=RULE_SETS)
    options = RuleOptionsField(required=False, default=dict)
    max_players = StrictIntegerField(required=False, allow_null=True, min_value=2, max_value=MAX_SEATS,
                                     help_text="Within the rules' `players` range (default: at most 4).")
    league = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=QUERY_INT_MAX)
    visibility = StrictChoiceField(
        choices=["public", "private"], default="public",
        help_text="`private`: joined only with the table's `invite_code`, never watched.")
    spectators = StrictChoiceField(
        choices=["anyone", "invited", "nobody"], default="anyone",
        help_text="Who may watch a public table's rounds (`invited`: with its `invite_code`).")
    spectator_delay = StrictIntegerField(default=0, min_value=0, max_value=50,
                                         help_text="Spectators see a running round this many moves behind.")


ENTROPY_HELP = ("Your entropy for the table's next fair round: 1 to 64 printable ASCII characters without "
                "spaces, mixed into the deal with the server seed committed in `next_commitment`.")


#: Printable ASCII without the space, as the service takes it (play.services: entropy is hashed as sent).
ENTROPY_PATTERN = r"^[!-~]{1,64}$"


class EntropyField(serializers.RegexField):
    """A string as sent (a number is not turned into one): it is hashed as it is."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(ENTROPY_PATTERN, trim_whitespace=False, min_length=1, max_length=64, help_text=ENTROPY_HELP,
                         **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class TableJoinSerializer(StrictSerializer):
    entropy = EntropyField(required=False)
    invite_code = serializers.CharField(required=False, max_length=32, help_text="Needed to join a private table.")


class EntropySerializer(StrictSerializer):
    entropy = EntropyField()


class BotAddSerializer(StrictSerializer):
    level = StrictChoiceField(
        choices=list(BOT_LEVELS), default="medium",
        help_text="`easy`, `medium` or `hard` (`random` plays any legal action and is never rated); the first "
                  "names `basic` (= `medium`) and `strong` (= `hard`) are still accepted.")

    def validate_level(self, value: str) -> str:
        return bot_level(value)


SETUP_SCHEMA = ref("DealSetup")  # allow_null adds the null
SEED_PATTERN = r"^[\x20-\x7e]{1,128}$"
SEED_SCHEMA = {
    "oneOf": [{"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1},
              {"type": "string", "pattern": SEED_PATTERN}],
    "description": "A practice deal from this seed.",
}


@extend_schema_field(SEED_SCHEMA)
class SeedField(serializers.JSONField):
    """An integer, or 1 to 128 printable ASCII characters: what the round's ``seed`` column holds
    on every database (PostgreSQL refuses a NUL, and no text column takes a lone surrogate)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and re.fullmatch(SEED_PATTERN[1:-1], data):
            return data
        if type(data) is int and -(2**63) <= data < 2**63:
            return data
        raise serializers.ValidationError("An integer or 1 to 128 printable ASCII characters.")


@extend_schema_field(SETUP_SCHEMA)
class SetupField(serializers.JSONField):
    """Checked in full by the round's service (it knows the deck and the seats); bounded here."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            for name in ("hands", "stock"):
                if isinstance(data.get(name), list) and len(data[name]) > (MAX_SEATS if name == "hands" else MAX_DECK):
                    raise serializers.ValidationError({name: "Too many items."})
        return data


class RoundStartSerializer(StrictSerializer):
    seed = SeedField(required=False, allow_null=True)
    setup = SetupField(required=False, allow_null=True)


# --- actions ---------------------------------------------------------------------------------

#: The body of ``POST /games/{id}/actions``: one of five shapes told apart by ``type``
#: (``games.schema``). The engine parses actions (``games.engine.actions``).
ACTION_SCHEMA = ref("Action")


@extend_schema_field(ref("Action"))
class LegalActionField(serializers.JSONField):
    pass


@extend_schema_field(ref("Event"))
class EventField(serializers.JSONField):
    pass


@extend_schema_field(ref("LedgerAction"))
class LedgerActionField(serializers.JSONField):
    pass


@extend_schema_field(ref("DealtEvent"))  # allow_null adds the null
class DealEventField(serializers.JSONField):
    pass


@extend_schema_field(ref("Card"))
class CardField(serializers.CharField):
    pass


# --- answers ---------------------------------------------------------------------------------


class SeatEntropySerializer(serializers.Serializer):
    value = serializers.CharField()
    source = serializers.ChoiceField(choices=["player", "server"],
                                     help_text="`player`: given by the seat's player; `server`: the nonce "
                                               "recorded when the seat was taken.")


class SeatSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    player = PlayerBriefSerializer()
    bot_controlled = serializers.BooleanField()
    left = serializers.BooleanField()
    entropy = SeatEntropySerializer(help_text="What this seat mixes into the next fair deal.")
    last_seen_at = serializers.DateTimeField(allow_null=True, help_text="The player's last request (people only).")
    online = serializers.BooleanField(help_text="Seen within the last two minutes (bots always).")
    absent = serializers.BooleanField(help_text="A bot plays this person's seat until they come back.")


class TableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    host = PlayerBriefSerializer()
    rules = serializers.ChoiceField(choices=RULE_SETS)
    options = EffectiveOptionsField()
    max_players = serializers.IntegerField()
    league = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=["open", "playing", "closed"])
    visibility = serializers.ChoiceField(choices=["public", "private"])
    spectators = serializers.ChoiceField(choices=["anyone", "invited", "nobody"])
    spectator_delay = serializers.IntegerField()
    invite_code = serializers.CharField(allow_null=True, help_text="Shown to the table's seated players only.")
    rounds_started = serializers.IntegerField()
    free_seats = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    next_commitment = serializers.CharField(allow_null=True,
                                            help_text="SHA-256 (hex) of the secret server seed of the next "
                                                      "fair round, revealed after that round.")
    current_game = serializers.IntegerField(allow_null=True)
    current_game_practice = serializers.BooleanField(allow_null=True,
                                                     help_text="Whether the running round is practice.")
    created_at = serializers.DateTimeField()


class MyTableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    host = PlayerBriefSerializer()
    rules = serializers.ChoiceField(choices=RULE_SETS)
    status = serializers.ChoiceField(choices=["open", "playing", "closed"])
    current_game = serializers.IntegerField(allow_null=True)
    position = serializers.IntegerField(help_text="The caller's seat at the table.")


class MyLeagueSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    rules = serializers.ChoiceField(choices=RULE_SETS)
    status = serializers.ChoiceField(choices=["active", "finished"])


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    tables = MyTableSerializer(many=True)
    leagues = MyLeagueSerializer(many=True)


class GamePlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    player = serializers.IntegerField()
    card_count = serializers.IntegerField()
    bot = serializers.BooleanField()
    owes = serializers.ListField(child=serializers.ChoiceField(choices=list(WORDS)),
                                 help_text="Calls the seat still owes (house).")
    sits_out = serializers.BooleanField()
    hermann_pending = serializers.BooleanField()
    bot_controlled = serializers.BooleanField(help_text="A bot stands in for this seat's player.")
    last_seen_at = serializers.DateTimeField(allow_null=True)
    online = serializers.BooleanField()
    absent = serializers.BooleanField()


class RatingChangeSerializer(serializers.Serializer):
    before = serializers.IntegerField(help_text="The rating on the familiar scale (1500 + 30 x rating) before "
                                                "the round.")
    after = serializers.IntegerField(help_text="The same after it.")
    change = serializers.IntegerField(help_text="`after` - `before`.")
    provisional = serializers.BooleanField(help_text="Still fewer rated rounds than `provisional_rounds` (10).")


class ResultLineSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    rank = serializers.IntegerField()
    cards_left = serializers.IntegerField()
    raw_points = serializers.IntegerField()
    multiplier = serializers.IntegerField()
    points = serializers.IntegerField()
    won = serializers.BooleanField()
    resigned = serializers.BooleanField(required=False, help_text="Set for the player who resigned.")
    player = serializers.IntegerField()
    name = serializers.CharField()
    rating = RatingChangeSerializer(allow_null=True, required=False,
                                    help_text="In a finished round's view: what the round did to this player's rating "
                                              "under its rules; null when the round was not rated (practice, "
                                              "aborted, or over the daily limit of rated rounds together).")


class ResultSerializer(serializers.Serializer):
    winner = serializers.IntegerField(allow_null=True)
    reason = serializers.ChoiceField(choices=RESULT_REASONS)
    multiplier = serializers.IntegerField()
    players = ResultLineSerializer(many=True)


class HermannSerializer(serializers.Serializer):
    waiting = serializers.ListField(child=serializers.IntegerField(), help_text="Seats that must still say it.")


class DealEntropySerializer(SeatEntropySerializer):
    seat = serializers.IntegerField()


class DealSerializer(serializers.Serializer):
    practice = serializers.BooleanField(help_text="A chosen seed or setup: never counted.")
    kind = serializers.ChoiceField(choices=["fair", "practice", "seed"],
                                   help_text="`fair`: commit and reveal; `seed`: a round from before fair dealing.")
    commitment = serializers.CharField(allow_null=True, help_text="SHA-256 (hex) of the server seed.")
    entropy = DealEntropySerializer(many=True, allow_null=True, help_text="Per game seat, mixed into the deal.")
    seed = serializers.CharField(allow_null=True, help_text="The server seed: shown to the round's players once "
                                 "it is over, to spectators an hour (`MAUMAU_SEED_REVEAL_DELAY_SECONDS`) after that.")


class GameViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField(help_text="Round number at the table.")
    status = serializers.ChoiceField(choices=["active", "finished"])
    phase = serializers.ChoiceField(choices=["play", "drawn", "finished"])
    version = serializers.IntegerField(help_text="Number of ledger rows applied.")
    seat = serializers.IntegerField(allow_null=True, help_text="The caller's seat.")
    turn = serializers.IntegerField(allow_null=True)
    turns = serializers.IntegerField()
    direction = serializers.ChoiceField(choices=[1, -1])
    top_card = CardField()
    top_joker = CardField(allow_null=True, help_text="The joker under its name, if the top card is one.")
    wish = serializers.ChoiceField(choices=list(SUITS), allow_null=True)
    pending_draw = serializers.IntegerField()
    stock_count = serializers.IntegerField()
    discard_count = serializers.IntegerField()
    players = GamePlayerSerializer(many=True)
    hand = serializers.ListField(child=CardField(), required=False, allow_null=True,
                                 help_text="The caller's cards only (absent for a spectator).")
    drawn_card = CardField(allow_null=True, help_text="The card the caller just drew.")
    hermann = HermannSerializer(allow_null=True)
    legal_actions = serializers.ListField(child=LegalActionField(), help_text="Each can be POSTed as is to /actions.")
    deadline = serializers.DateTimeField(allow_null=True)
    hermann_deadline = serializers.DateTimeField(allow_null=True)
    result = ResultSerializer(allow_null=True)
    practice = serializers.BooleanField(help_text="A chosen seed or setup: never counted.")
    deal = DealSerializer()
    spectator = serializers.BooleanField(required=False, help_text="Set for a spectator's view (no seat).")
    delay = serializers.IntegerField(required=False, help_text="A spectator's view is this many moves behind.")


class MoveResultSerializer(GameViewSerializer):
    events = serializers.ListField(child=EventField(),
                                   help_text="Events of this action and of the bots that answered, redacted.")


class LedgerMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    actor = serializers.ChoiceField(choices=["player", "bot", "clock", "system"])
    seat = serializers.IntegerField(allow_null=True)
    action = LedgerActionField()
    events = serializers.ListField(child=EventField())
    created_at = serializers.DateTimeField()


class LedgerSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["active", "finished"])
    practice = serializers.BooleanField(help_text="A chosen seed or setup: never counted.")
    revealed = serializers.BooleanField(help_text="True after the round: every hand is shown (full replay).")
    deal = DealEventField(allow_null=True, help_text="The deal (own hand, counts for others) when after=0.")
    moves = LedgerMoveSerializer(many=True)
    next_after = serializers.IntegerField(help_text="Pass as `after` to read on.")



class FairnessChecksSerializer(serializers.Serializer):
    commitment = serializers.BooleanField(allow_null=True,
                                          help_text="SHA-256 of `seed` is `commitment` (null: no commitment).")
    ledger = serializers.BooleanField(help_text="Replayed from this deal, every ledger row's events, the hash "
                                                "chain and the final snapshot agree.")
    rows = serializers.IntegerField(help_text="Ledger rows checked.")


class FairnessSerializer(DealSerializer):
    game = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField()
    scheme = serializers.CharField(allow_null=True, help_text="`maumau-deal/1` for a fair round.")
    deal_seed = serializers.CharField(help_text='SHA-256 (hex) of the JSON array ["maumau-deal/1", seed, '
                                                '[entropy values by seat]] (no spaces); the deck is shuffled from it.')
    deal = serializers.DictField(allow_null=True, help_text="Every hand, the starter and the stock as dealt.")
    checks = FairnessChecksSerializer()
    problems = serializers.ListField(child=serializers.CharField())
    verified = serializers.BooleanField()
