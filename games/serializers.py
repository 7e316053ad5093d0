"""Request validation and the documented shapes of answers (for the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from maumau.names import NameField

SEED_MAX_CHARS = 128


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a typo is a 400 rather than silently ignored."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = set(data) - set(self.fields)
            if unknown:
                raise serializers.ValidationError({k: ["Unknown field."] for k in sorted(map(str, unknown))})
        return super().to_internal_value(data)


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
    rules = serializers.ChoiceField(choices=["classic", "tavern", "house"])
    options = serializers.DictField(required=False, default=dict, help_text="Overrides of the preset's options.")
    max_players = serializers.IntegerField(required=False, allow_null=True, min_value=2, max_value=16)
    league = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=10**18 - 1)


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

    def validate_seed(self, value: Any) -> Any:
        """A seed is stored as text of at most SEED_MAX_CHARS (the column): a longer one is refused."""
        if value is not None and len(str(value)) > SEED_MAX_CHARS:
            raise serializers.ValidationError(f"At most {SEED_MAX_CHARS} characters (or digits).")
        return value


class SeatSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    player = PlayerBriefSerializer()
    bot_controlled = serializers.BooleanField()
    left = serializers.BooleanField()


class TableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    host = PlayerBriefSerializer()
    rules = serializers.CharField()
    options = serializers.DictField(help_text="Effective options: preset merged with overrides.")
    max_players = serializers.IntegerField()
    league = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=["open", "playing", "closed"])
    rounds_started = serializers.IntegerField()
    free_seats = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    current_game = serializers.IntegerField(allow_null=True)
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

    type = serializers.ChoiceField(choices=["play", "draw", "pass", "say"])
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
    hand = serializers.ListField(child=serializers.CharField(), help_text="The caller's cards only.")
    legal_actions = serializers.ListField(child=serializers.DictField(),
                                          help_text="Each can be POSTed as is to /actions.")
    deadline = serializers.DateTimeField(allow_null=True)
    hermann_deadline = serializers.DateTimeField(allow_null=True)
    result = serializers.DictField(allow_null=True)


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
    revealed = serializers.BooleanField(help_text="True after the round: every hand is shown (full replay).")
    deal = serializers.DictField(allow_null=True, help_text="The deal (own hand, counts for others) when after=0.")
    moves = LedgerMoveSerializer(many=True)
    next_after = serializers.IntegerField(help_text="Pass as `after` to read on.")

