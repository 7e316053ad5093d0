"""Request and answer shapes of the lobby (every number a client sends is bounded)."""

from __future__ import annotations

from rest_framework import serializers

from games.serializers import PlayerBriefSerializer, StrictSerializer
from lobby.services import CHALLENGE_EXPIRES_DEFAULT, CHALLENGE_EXPIRES_MAX, CHALLENGE_EXPIRES_MIN, FILL_AFTER_MAX

RULES = ["classic", "tavern", "house"]


class SeekCreateSerializer(StrictSerializer):
    rules = serializers.ChoiceField(choices=RULES)
    players = serializers.IntegerField(min_value=2, max_value=16,
                                       help_text="Seats at the table, the caller's included.")
    options = serializers.DictField(required=False, default=dict, help_text="Overrides of the preset's options.")
    turn_seconds = serializers.IntegerField(required=False, min_value=0, max_value=7 * 24 * 3600,
                                            help_text="Shortcut for `options.turn_seconds`.")
    league = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**31 - 1)
    fill_with_bots_after = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=FILL_AFTER_MAX,
        help_text="Seconds to wait for people; then the seats left are given to bots (absent: people only).")


class SeekSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    player = PlayerBriefSerializer()
    rules = serializers.CharField()
    options = serializers.DictField(help_text="Effective options.")
    players = serializers.IntegerField()
    league = serializers.IntegerField(allow_null=True)
    fill_with_bots_after = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=["open", "matched", "cancelled"])
    table = serializers.IntegerField(allow_null=True, help_text="Once matched (shown to the seeker only).")
    game = serializers.IntegerField(allow_null=True, help_text="Once matched (shown to the seeker only).")
    created_at = serializers.DateTimeField()
    matched_at = serializers.DateTimeField(allow_null=True)


class ChallengeCreateSerializer(StrictSerializer):
    to = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**31 - 1), min_length=1,
                               max_length=15, help_text="Player ids to invite (people or bot accounts).")
    rules = serializers.ChoiceField(choices=RULES)
    options = serializers.DictField(required=False, default=dict)
    max_players = serializers.IntegerField(required=False, allow_null=True, min_value=2, max_value=16)
    visibility = serializers.ChoiceField(choices=["public", "private"], default="private")
    expires_in = serializers.IntegerField(required=False, default=CHALLENGE_EXPIRES_DEFAULT,
                                          min_value=CHALLENGE_EXPIRES_MIN, max_value=CHALLENGE_EXPIRES_MAX,
                                          help_text="Seconds until an unanswered challenge expires.")


class ChallengeInviteeSerializer(serializers.Serializer):
    player = PlayerBriefSerializer()
    answer = serializers.ChoiceField(choices=["pending", "accepted", "declined"])


class ChallengeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    # "from" is a keyword: declared below
    rules = serializers.CharField()
    options = serializers.DictField()
    max_players = serializers.IntegerField()
    visibility = serializers.CharField()
    status = serializers.ChoiceField(choices=["open", "started", "declined", "expired", "cancelled"])
    expires_at = serializers.DateTimeField()
    to = ChallengeInviteeSerializer(many=True)
    table = serializers.IntegerField(allow_null=True)
    game = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["from"] = PlayerBriefSerializer()
        return fields


class TextField(serializers.CharField):
    """A string as sent: a number is refused rather than turned into text."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class MessageCreateSerializer(StrictSerializer):
    text = TextField(max_length=2000, trim_whitespace=False, help_text="1 to 500 characters, no control characters.")


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    player = PlayerBriefSerializer()
    spectators = serializers.BooleanField(help_text="Spectators' chat (never shown to the players).")
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class MuteSerializer(StrictSerializer):
    player = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    muted = serializers.BooleanField(default=True)
