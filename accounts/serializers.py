"""Request validation and the documented answers of the account endpoints."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from accounts.models import PERSONAL_SCOPES, SCOPES
from maumau.names import NameField
from maumau.strict import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictListField,
    StrictSerializer,
)

#: Longest password taken (Argon2 hashes any length; this bounds the work a request can ask for).
PASSWORD_MAX = 256
#: Longest a personal token may live: a year.
EXPIRES_IN_MAX = 365 * 24 * 3600


#: A username: what sign-up and the guest's upgrade take (so it never looks like a guest's or a deleted one's).
USERNAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{2,29}$"
#: Any text without a NUL (no database column takes one), as a password or a log-in's username.
NO_NUL_PATTERN = r"^[^\x00]*$"


def _password(**kwargs: Any) -> serializers.CharField:
    return StrictCharField(max_length=PASSWORD_MAX, trim_whitespace=False,
                           validators=[RegexValidator(NO_NUL_PATTERN)], **kwargs)


def _device(**kwargs: Any) -> serializers.CharField:
    return NameField(max_length=64, **kwargs)


def _username(**kwargs: Any) -> serializers.CharField:
    return StrictCharField(max_length=30, validators=[RegexValidator(USERNAME_PATTERN)],
                           help_text="3 to 30 letters, digits or _, a letter first.", **kwargs)


class AccountCreateSerializer(StrictSerializer):
    username = _username()
    password = _password()
    name = NameField(required=False, max_length=64, help_text="The name shown at tables (default: the username).")
    device = _device(required=False, default="Sign-up", help_text="Name of the first token, e.g. \"Ada's phone\".")
    bot = StrictBooleanField(required=False, default=False,
                             help_text="A bot account: shown as a bot in every view and standing.")


class AccountCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    username = serializers.CharField()
    bot = serializers.BooleanField()
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`. Shown once.")
    token_id = serializers.IntegerField()


class CredentialsSerializer(StrictSerializer):
    username = _username()
    password = _password()


class AccountSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    username = serializers.CharField(allow_null=True, help_text="null for a guest.")
    guest = serializers.BooleanField()
    bot = serializers.BooleanField()


class AccountDeleteSerializer(StrictSerializer):
    password = _password(required=False, help_text="Required unless the account is a guest.")


class LoginSerializer(StrictSerializer):
    username = StrictCharField(max_length=150, validators=[RegexValidator(NO_NUL_PATTERN)])
    password = _password()
    device = _device(help_text="Names the new token in the caller's token list.")


class LoginResultSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`. Shown once.")
    token_id = serializers.IntegerField()


class PasswordChangeSerializer(StrictSerializer):
    old_password = _password()
    new_password = _password()
    keep_other_tokens = StrictBooleanField(required=False, default=False,
                                           help_text="Keep the other devices and scripts logged in.")


class PasswordChangedSerializer(serializers.Serializer):
    revoked = serializers.IntegerField(help_text="How many other tokens were revoked.")


class TokenCreateSerializer(StrictSerializer):
    name = _device()
    scopes = StrictListField(child=StrictChoiceField(choices=list(PERSONAL_SCOPES)),
                                   min_length=1, max_length=len(PERSONAL_SCOPES),
                                   help_text="`play`: act in games (and every other write); `read`: read only.")
    expires_in = StrictIntegerField(required=False, allow_null=True, min_value=60, max_value=EXPIRES_IN_MAX,
                                          help_text="Seconds until the token stops working (default: never).")


class TokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=list(SCOPES)))
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    current = serializers.BooleanField(help_text="The token this request was made with.")


class TokenCreatedSerializer(TokenSerializer):
    token = serializers.CharField(help_text="The secret: shown this once, never again.")
