"""Request validation and the documented shapes of answers (for the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a typo is a 400 rather than silently ignored."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = set(data) - set(self.fields)
            if unknown:
                raise serializers.ValidationError({k: ["Unknown field."] for k in sorted(map(str, unknown))})
        return super().to_internal_value(data)


class PlayerCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=64, min_length=1, trim_whitespace=True)


class PlayerCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")


class PlayerBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.BooleanField()


class TableCreateSerializer(StrictSerializer):
    rules = serializers.ChoiceField(choices=["classic", "tavern", "house"])
    options = serializers.DictField(required=False, default=dict, help_text="Overrides of the preset's options.")
    max_players = serializers.IntegerField(required=False, allow_null=True, min_value=2, max_value=16)
    league = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    visibility = serializers.ChoiceField(
        choices=["public", "private"], default="public",
        help_text="`private`: joined only with the table's `invite_code`, never watched.")
    spectators = serializers.ChoiceField(
        choices=["anyone", "invited", "nobody"], default="anyone",
        help_text="Who may watch a public table's rounds (`invited`: with its `invite_code`).")
    spectator_delay = serializers.IntegerField(default=0, min_value=0, max_value=50,
                                               help_text="Spectators see a running round this many moves behind.")


ENTROPY_HELP = ("Your entropy for the table's next fair round: 1 to 64 printable ASCII characters without "
                "spaces, mixed into the deal with the server seed committed in `next_commitment`.")


class EntropyField(serializers.CharField):
    """A string as sent (a number is not turned into one): it is hashed as it is."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, min_length=1, max_length=64, help_text=ENTROPY_HELP, **kwargs)

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
    level = serializers.ChoiceField(choices=["random", "basic"], default="basic")


class SetupSerializer(serializers.Serializer):
    hands = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    starter = serializers.CharField()
    stock = serializers.ListField(child=serializers.CharField(), help_text="Top first.")
    first = serializers.IntegerField(required=False, min_value=0, help_text="Seat that opens (default 0).")


class RoundStartSerializer(StrictSerializer):
    seed = serializers.JSONField(required=False, allow_null=True, help_text="Integer or string; practice only.")
    setup = serializers.JSONField(required=False, allow_null=True, help_text="A fixed deal, see SetupSerializer.")


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
    rules = serializers.CharField()
    options = serializers.DictField(help_text="Effective options: preset merged with overrides.")
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


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    tables = serializers.ListField(child=serializers.DictField())
    leagues = serializers.ListField(child=serializers.DictField())


class ActionSerializer(serializers.Serializer):
    """One action; the engine validates it (unknown fields such as `hand` or `seat` are refused)."""

    type = serializers.ChoiceField(choices=["play", "draw", "pass", "say", "resign"],
                                   help_text="`resign` gives the round up (any time): you rank last.")
    cards = serializers.ListField(child=serializers.CharField(), required=False)
    wish = serializers.ChoiceField(choices=["C", "S", "H", "D"], required=False)
    as_ = serializers.DictField(child=serializers.CharField(), required=False, help_text='Jokers named: {"X1": "7S"}')
    target = serializers.IntegerField(required=False, help_text="Seat to swap hands with (QH).")
    say = serializers.ListField(child=serializers.ChoiceField(choices=["mau", "maumau", "pik", "hermann"]),
                                required=False)
    word = serializers.ChoiceField(choices=["mau", "maumau", "pik", "hermann"], required=False)
    expected_version = serializers.IntegerField(required=False, min_value=0,
                                                help_text="409 version_conflict if the game has moved on.")

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        fields["as"] = fields.pop("as_")
        return fields


class GamePlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    player = serializers.IntegerField()
    card_count = serializers.IntegerField()
    bot = serializers.BooleanField()
    bot_controlled = serializers.BooleanField(help_text="A bot stands in for this seat's player.")
    last_seen_at = serializers.DateTimeField(allow_null=True)
    online = serializers.BooleanField()
    absent = serializers.BooleanField()


class DealEntropySerializer(SeatEntropySerializer):
    seat = serializers.IntegerField()


class DealSerializer(serializers.Serializer):
    practice = serializers.BooleanField(help_text="A chosen seed or setup: never counted.")
    kind = serializers.ChoiceField(choices=["fair", "practice", "seed"],
                                   help_text="`fair`: commit and reveal; `seed`: a round from before fair dealing.")
    commitment = serializers.CharField(allow_null=True, help_text="SHA-256 (hex) of the server seed.")
    entropy = DealEntropySerializer(many=True, allow_null=True, help_text="Per game seat, mixed into the deal.")
    seed = serializers.CharField(allow_null=True, help_text="The server seed, revealed when the round is over.")


class GameViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField(help_text="Round number at the table.")
    status = serializers.ChoiceField(choices=["active", "finished"])
    version = serializers.IntegerField(help_text="Number of ledger rows applied.")
    seat = serializers.IntegerField(allow_null=True, help_text="The caller's seat.")
    turn = serializers.IntegerField(allow_null=True)
    direction = serializers.IntegerField()
    top_card = serializers.CharField()
    wish = serializers.CharField(allow_null=True)
    pending_draw = serializers.IntegerField()
    stock_count = serializers.IntegerField()
    players = GamePlayerSerializer(many=True)
    hand = serializers.ListField(child=serializers.CharField(), required=False,
                                 help_text="The caller's cards only (absent for a spectator).")
    legal_actions = serializers.ListField(child=serializers.DictField(),
                                          help_text="Each can be POSTed as is to /actions.")
    deadline = serializers.DateTimeField(allow_null=True)
    hermann_deadline = serializers.DateTimeField(allow_null=True)
    result = serializers.DictField(allow_null=True)
    practice = serializers.BooleanField(help_text="A chosen seed or setup: never counted.")
    deal = DealSerializer()
    spectator = serializers.BooleanField(required=False, help_text="Set for a spectator's view (no seat).")
    delay = serializers.IntegerField(required=False, help_text="A spectator's view is this many moves behind.")


class MoveResultSerializer(GameViewSerializer):
    events = serializers.ListField(child=serializers.DictField(),
                                   help_text="Events of this action and of the bots that answered, redacted.")


class LedgerMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    actor = serializers.ChoiceField(choices=["player", "bot", "clock", "system"])
    seat = serializers.IntegerField(allow_null=True)
    action = serializers.DictField()
    events = serializers.ListField(child=serializers.DictField())
    created_at = serializers.DateTimeField()


class LedgerSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    version = serializers.IntegerField()
    status = serializers.CharField()
    practice = serializers.BooleanField(help_text="A chosen seed or setup: never counted.")
    revealed = serializers.BooleanField(help_text="True after the round: every hand is shown (full replay).")
    deal = serializers.DictField(allow_null=True, help_text="The deal (own hand, counts for others) when after=0.")
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
