"""Request and answer shapes of the lobby (every number a client sends is bounded)."""

from __future__ import annotations

from rest_framework import serializers

from games.serializers import MAX_SEATS, RULE_SETS, EffectiveOptionsField, PlayerBriefSerializer, RuleOptionsField
from lobby.services import (
    CHALLENGE_EXPIRES_DEFAULT,
    CHALLENGE_EXPIRES_MAX,
    CHALLENGE_EXPIRES_MIN,
    FILL_AFTER_MAX,
    MESSAGE_MAX,
    USERNAME_MAX,
)
from maumau.params import QUERY_INT_MAX
from maumau.strict import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictListField,
    StrictSerializer,
)

RULES = RULE_SETS


class SeekCreateSerializer(StrictSerializer):
    rules = StrictChoiceField(choices=RULES)
    players = StrictIntegerField(min_value=2, max_value=MAX_SEATS,
                                 help_text="Seats at the table, the caller's included (within the rules' range).")
    options = RuleOptionsField(required=False, default=dict)
    turn_seconds = StrictIntegerField(required=False, min_value=0, max_value=7 * 24 * 3600,
                                      help_text="Shortcut for `options.turn_seconds`.")
    league = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=QUERY_INT_MAX)
    fill_with_bots_after = StrictIntegerField(
        required=False, allow_null=True, min_value=0, max_value=FILL_AFTER_MAX,
        help_text="Seconds to wait for people; then the seats left are given to bots (absent: people only).")


class SeekSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    player = PlayerBriefSerializer()
    rules = serializers.ChoiceField(choices=RULE_SETS)
    options = EffectiveOptionsField(help_text="Effective options.")
    players = serializers.IntegerField()
    league = serializers.IntegerField(allow_null=True)
    fill_with_bots_after = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=["open", "matched", "cancelled", "expired"])
    table = serializers.IntegerField(allow_null=True, help_text="Once matched (shown to the seeker only).")
    game = serializers.IntegerField(allow_null=True, help_text="Once matched (shown to the seeker only).")
    created_at = serializers.DateTimeField()
    matched_at = serializers.DateTimeField(allow_null=True)


class ChallengeCreateSerializer(StrictSerializer):
    to = StrictListField(child=StrictIntegerField(min_value=1, max_value=QUERY_INT_MAX), required=False,
                         default=list, max_length=MAX_SEATS - 1,
                         help_text="Player ids to invite (people or bot accounts).")
    to_usernames = StrictListField(
        child=StrictCharField(min_length=1, max_length=USERNAME_MAX), required=False, default=list,
        max_length=MAX_SEATS - 1,
        help_text="Usernames to invite (case does not matter), beside or instead of `to`: at least one invitee.")
    rules = StrictChoiceField(choices=RULES)
    options = RuleOptionsField(required=False, default=dict)
    max_players = StrictIntegerField(required=False, allow_null=True, min_value=2, max_value=MAX_SEATS)
    visibility = StrictChoiceField(choices=["public", "private"], default="private")
    expires_in = StrictIntegerField(required=False, default=CHALLENGE_EXPIRES_DEFAULT,
                                          min_value=CHALLENGE_EXPIRES_MIN, max_value=CHALLENGE_EXPIRES_MAX,
                                          help_text="Seconds until an unanswered challenge expires.")


class ChallengeInviteeSerializer(serializers.Serializer):
    player = PlayerBriefSerializer()
    answer = serializers.ChoiceField(choices=["pending", "accepted", "declined"])


class ChallengeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    # "from" is a keyword: declared below
    rules = serializers.ChoiceField(choices=RULE_SETS)
    options = EffectiveOptionsField()
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


class MessageCreateSerializer(StrictSerializer):
    text = StrictCharField(max_length=MESSAGE_MAX, trim_whitespace=False,
                           help_text="1 to 500 characters (trimmed) on one line: no control, format, line or "
                                     "paragraph separator characters.")


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    player = PlayerBriefSerializer()
    spectators = serializers.BooleanField(help_text="Spectators' chat (never shown to the players).")
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class MuteSerializer(StrictSerializer):
    player = StrictIntegerField(min_value=1, max_value=QUERY_INT_MAX)
    muted = StrictBooleanField(default=True)
