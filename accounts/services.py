"""Account use cases: sign-up with a password, a guest's upgrade, log-in and log-out, personal
tokens, password change and account deletion. One transaction each
(``database_retry.written_once_more``, why: ``maumau.database_retry``); domain errors out.

Guests (``POST /players``, :func:`player_create`) are users with a random username and no
password: setting credentials later keeps the same user and player, so everything they played stays
theirs. A deleted account keeps its player row (results, ledgers and standings name it), renamed.
"""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import tokens
from accounts.models import SCOPES, AccessToken
from games.models import Player, Seat
from lobby import services as lobby_services
from maumau import database_retry
from maumau.errors import ConflictError, DomainError, NotFoundError, ValidationFailed
from play import services as game_services
from streams import services as stream_services
from streams.models import Webhook

#: Letters, digits and underscores, a letter first: never a guest's ``p-...`` or a deleted ``~deleted-...``.
USERNAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,29}")
DELETED_NAME = "Deleted player"


class InvalidCredentials(DomainError):
    """The one answer for an unknown username and a wrong password alike."""

    code, status = "invalid_credentials", 401


def _invalid_credentials() -> InvalidCredentials:
    return InvalidCredentials(message=_("The username or the password is wrong."))


def _password_checked(password: str, user: Any, field: str) -> None:
    """Django's password validators (AUTH_PASSWORD_VALIDATORS); their messages follow Accept-Language."""
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise ValidationFailed(message=_("The password is too weak."),
                               details={"fields": {field: [str(m) for m in error.messages]}}) from error


def _username_free(username: str) -> None:
    if not USERNAME.fullmatch(username):
        raise ValidationFailed(details={"fields": {"username": [str(_(
            "3 to 30 letters, digits or underscores, starting with a letter."))]}})
    if User.objects.filter(username__iexact=username).exists():
        raise _username_taken()


def _tokens_within_limit(user: Any) -> None:
    """A user holds at most MAUMAU_TOKENS_PER_USER tokens: a new log-in drops the least recently used."""
    limit = settings.MAUMAU_TOKENS_PER_USER
    surplus = AccessToken.objects.filter(user=user).order_by("-last_used_at", "-created_at")[limit - 1:]
    AccessToken.objects.filter(pk__in=list(surplus.values_list("pk", flat=True))).delete()


@database_retry.written_once_more
def player_create(*, name: str) -> tuple[Player, str]:
    """A guest: an auth user without a password (:func:`credentials_set` can give it one later) and a
    first token; returns (player, token key)."""
    user = User.objects.create(username=f"p-{secrets.token_hex(12)}")
    user.set_unusable_password()
    user.save(update_fields=["password"])
    player = Player.objects.create(name=name, user=user)
    _token, key = tokens.token_issue(user=user, name="Sign-up", scopes=SCOPES, used=True)
    return player, key


@database_retry.written_once_more
def account_create(*, username: str, password: str, name: str | None = None, device: str,
                   bot: bool = False) -> tuple[Player, AccessToken, str]:
    """A person (or a bot account) with a username and a password, and a first token for ``device``.

    A taken username is refused with 409 ``username_taken`` although that tells a visitor the name
    exists: usernames are public on the boards anyway (:func:`_username_taken` says why)."""
    _username_free(username)
    _password_checked(password, User(username=username), "password")
    try:
        user = User.objects.create_user(username=username, password=password)
    except IntegrityError as error:  # the same username in a race
        raise _username_taken() from error
    player = Player.objects.create(name=name or username, user=user, is_bot=bot)
    token, key = tokens.token_issue(user=user, name=device, scopes=SCOPES, used=True)
    return player, token, key


def _username_taken() -> ConflictError:
    """Sign-up and a guest's upgrade say 409 ``username_taken``, which tells whether a username exists.
    Kept on purpose: usernames are public anyway (leaderboards, tables, standings show them), so the
    answer reveals nothing a visitor cannot read, and a person choosing a name must learn it is taken.
    Guessing passwords is what the log-in's delays bound; sign-ups are throttled per address."""
    return ConflictError("username_taken", message=_("This username is taken."), details={"field": "username"})


def _already_registered() -> ConflictError:
    return ConflictError("already_registered", message=_("This account already has a username and password."))


def credentials_set(*, user: Any, username: str, password: str) -> Any:
    """A guest becomes an account: the same user and player, so its tables, rounds and standings stay."""
    if user.has_usable_password():
        raise _already_registered()
    _username_free(username)
    user.username = username
    _password_checked(password, user, "password")
    user.set_password(password)
    _credentials_saved(user)
    return user


@database_retry.written_once_more
def _credentials_saved(user: Any) -> None:
    """The write of ``credentials_set``, apart from its checks: those read the user it changes (run
    again, they would find the password just set and refuse). The user's row is locked and read
    again first: of two upgrades of one guest at once, the second finds the first's password and
    gets 409, where both were answered 200 and only the last write's username could log in."""
    locked = User.objects.select_for_update().only("password").get(pk=user.pk)
    if locked.has_usable_password():
        raise _already_registered()
    try:
        user.save(update_fields=["username", "password"])
    except IntegrityError as error:  # the same username in a race
        raise _username_taken() from error


def _password_matches(user: Any | None, password: str) -> bool:
    """Whether ``password`` is the user's; without a usable password (unknown user, guest, deleted) a
    hash of the same cost is made anyway, so that the answer takes as long either way."""
    if user is None or not user.is_active or not user.has_usable_password():
        make_password(password)
        return False
    return user.check_password(password)


def login(*, username: str, password: str, device: str) -> tuple[AccessToken, str]:
    """A new token for ``device``; wrong username and wrong password give the same error."""
    user = User.objects.filter(username__iexact=username).first() if USERNAME.fullmatch(username) else None
    if not _password_matches(user, password):
        raise _invalid_credentials()
    return _token_for_device(user, device)


@database_retry.written_once_more
def _token_for_device(user: Any, device: str) -> tuple[AccessToken, str]:
    """The write of ``login``, apart from the password check: the hash stays out of the transaction."""
    _tokens_within_limit(user)
    return tokens.token_issue(user=user, name=device, scopes=SCOPES, used=True)


@database_retry.written_once_more
def logout(*, token: AccessToken) -> None:
    """One statement, in a transaction all the same: a session that ends under it has then deleted nothing."""
    AccessToken.objects.filter(pk=token.pk).delete()


@database_retry.written_once_more
def token_create(*, user: Any, name: str, scopes: list[str], expires_in: int | None = None) -> tuple[AccessToken, str]:
    """A personal token for a script or a bot, with only the scopes asked for (never ``account``)."""
    if AccessToken.objects.filter(user=user).count() >= settings.MAUMAU_TOKENS_PER_USER:
        raise ConflictError("too_many_tokens", message=_("Revoke a token before making another."),
                            details={"limit": settings.MAUMAU_TOKENS_PER_USER})
    expires_at = timezone.now() + timedelta(seconds=expires_in) if expires_in is not None else None
    return tokens.token_issue(user=user, name=name, scopes=scopes, expires_at=expires_at)


@database_retry.written_once_more
def token_revoke(*, user: Any, token_id: int) -> None:
    """Revoke one of the caller's tokens; another's is as unknown as one that does not exist (404)."""
    deleted = 0
    if 0 < token_id < 2**63:  # beyond any id: as unknown as any other
        deleted, _rows = AccessToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise NotFoundError()


def password_change(*, user: Any, token: AccessToken, old_password: str, new_password: str,
                    keep_other_tokens: bool = False) -> int:
    """A new password; every other token is revoked unless asked not to. Returns how many were."""
    if not user.has_usable_password():
        raise ConflictError("no_password", message=_("This account has no password yet: set credentials first."))
    if not user.check_password(old_password):
        raise _invalid_credentials()
    _password_checked(new_password, user, "new_password")
    return _password_replaced(user, token, new_password, keep_other_tokens)


@database_retry.written_once_more
def _password_replaced(user: Any, token: AccessToken, new_password: str, keep_other_tokens: bool) -> int:
    """The write of ``password_change``, apart from its checks: those read the password it replaces."""
    user.set_password(new_password)
    user.save(update_fields=["password"])
    if keep_other_tokens:
        return 0
    revoked, _rows = AccessToken.objects.filter(user=user).exclude(pk=token.pk).delete()
    return revoked


def account_delete(*, user: Any, player: Player, password: str | None) -> None:
    """Delete the account: its seats are left (bots play them on), its open seeks and challenges (sent
    and received) cancelled, its webhooks and tokens removed, its name anonymised, its user deactivated.
    The player row stays, so that every ledger, result and standing that names it stays whole and still
    verifies."""
    if user.has_usable_password() and not user.check_password(password or ""):
        raise _invalid_credentials()
    seated = Seat.objects.filter(player=player, left=False).exclude(table__status="closed")
    for table_id in list(seated.values_list("table_id", flat=True)):
        game_services.table_leave(table_id=table_id, player=player)
    lobby_services.lobby_leave(player=player)
    for webhook_id in list(Webhook.objects.filter(player=player).values_list("pk", flat=True)):
        stream_services.webhook_delete(player=player, webhook_id=webhook_id)
    _account_anonymised(user, player)


@database_retry.written_once_more
def _account_anonymised(user: Any, player: Player) -> None:
    """The last step of ``account_delete``, one transaction (each seat left, the lobby left and each
    webhook removed before it was one of its own)."""
    Player.objects.filter(pk=player.pk).update(name=DELETED_NAME)
    user.username = f"~deleted-{user.pk}"
    user.set_unusable_password()
    user.email = user.first_name = user.last_name = ""
    user.is_active = False
    user.save(update_fields=["username", "password", "email", "first_name", "last_name", "is_active"])
    AccessToken.objects.filter(user=user).delete()
