"""Writes of the notify app: targets (push subscriptions, devices, the e-mail address), preferences,
and the deliveries of notifications to them.

The move pipeline never waits for any of it. The streams app sends ``notifications_written`` inside
the move's transaction; :func:`notifications_written` only looks at the seats' loaded players'
``has_notify_target`` flags (no query for the common case: nobody reachable) and, when someone is,
writes an :class:`Outbox` row per notification in that transaction. The deliveries process's reader
(notify.reader) takes them in batches (:func:`outbox_read`): it decides per target (watching,
coalesced, quiet hours, preferences), writes one :class:`Delivery` per notification and target
(unique) leased to itself, and sends them; due retries the same way (:func:`retries_read`).

Duplicates: a row is sent only by the worker holding its lease. A worker that dies after the push
service took the message but before the row says ``sent`` leaves the lease to run out; the sweep then
sends it again: at most one more copy per lease, and at most ``NOTIFY_MAX_ATTEMPTS`` in all. The copy
carries the same Topic (Web Push), collapse id (APNs, FCM) and notification tag, so the device shows
one notification.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import concurrent.futures
import functools
import ipaddress
import json
import logging
import time
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import presence
from games.models import Player, Seat
from maumau import database_retry, observability
from maumau.errors import ConflictError, DomainError, NotFoundError, ValidationFailed
from notify import channels, mail, tasks, texts
from notify import sql as notify_sql
from notify.models import (
    CHANNELS,
    KINDS,
    Delivery,
    Device,
    EmailAddress,
    Outbox,
    Preferences,
    PushSubscription,
    VerificationMailLog,
    default_on,
)
from streams import outbound
from streams.models import Notification
from streams.ssrf import Target, UnsafeTarget, check_url, literal_target

log = logging.getLogger(__name__)
SIGNING_SALT = "notify.email"


# --- the flag a move reads ------------------------------------------------------------------------


def flag_refresh(player_id: int) -> None:
    """``Player.has_notify_target``: a subscription, a device or a verified address."""
    reachable = (PushSubscription.objects.filter(player_id=player_id).exists()
                 or Device.objects.filter(player_id=player_id).exists()
                 or EmailAddress.objects.filter(player_id=player_id, verified_at__isnull=False).exists())
    Player.objects.filter(pk=player_id).update(has_notify_target=reachable)


# --- push subscriptions ---------------------------------------------------------------------------


def _b64url(value: str, field: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValidationFailed(message=_("This key is not base64url."), details={"field": field}) from exc


def _keys_checked(p256dh: str, auth: str) -> None:
    from cryptography.hazmat.primitives.asymmetric import ec

    point = _b64url(p256dh, "keys.p256dh")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        if len(point) != 65:
            raise ValueError("not an uncompressed point")
    except ValueError as exc:
        raise ValidationFailed(message=_("keys.p256dh is not a P-256 public key."),
                               details={"field": "keys.p256dh"}) from exc
    if len(_b64url(auth, "keys.auth")) != 16:
        raise ValidationFailed(message=_("keys.auth must be 16 bytes."), details={"field": "keys.auth"})


def endpoint_checked(endpoint: str) -> Target:
    """HTTPS to a public address (the webhooks' SSRF guard), or with PUSH_ALLOW_LOOPBACK http(s) to
    a loopback address literal. The push is sent to the address this returns, not resolved again."""
    parts = urlsplit(endpoint)
    if settings.PUSH_ALLOW_LOOPBACK and parts.scheme in ("http", "https"):
        try:
            literal = literal_target(endpoint)
        except UnsafeTarget:
            literal = None  # malformed: the guard below says why
        if literal is not None and ipaddress.ip_address(literal.address).is_loopback:
            return literal
    if parts.scheme != "https":
        raise ValidationFailed(message=_("A push endpoint must be an https URL."),
                               details={"field": "endpoint", "reason": "not_https"})
    try:
        return check_url(endpoint)
    except UnsafeTarget as exc:
        raise ValidationFailed(message=_("This push endpoint is not allowed."),
                               details={"field": "endpoint", "reason": exc.reason, **exc.details}) from exc


def _targets_within_limit(player: Player, model: type) -> None:
    if model.objects.filter(player=player).count() >= settings.NOTIFY_MAX_TARGETS:
        raise ValidationFailed(details={"reason": "too_many_targets", "max": settings.NOTIFY_MAX_TARGETS})


def _target_taken() -> ConflictError:
    """Another player registered this endpoint or device token: theirs stays (their pushes must not
    stop because someone else sent its URL); the target comes free when its token is revoked."""
    return ConflictError(code="push_target_taken",
                         message=_("This push endpoint or device token is registered to another player."))


def subscription_add(*, player: Player, token_id: int | None, endpoint: str, p256dh: str, auth: str,
                     name: str, language: str) -> PushSubscription:
    """Register a browser's subscription (or renew the caller's own): one row per endpoint."""
    _keys_checked(p256dh, auth)
    endpoint_checked(endpoint)  # its DNS look-up stays out of the transaction
    return _subscription_written(player, token_id, endpoint, p256dh, auth, name, language)


@database_retry.written_once_more
def _subscription_written(player: Player, token_id: int | None, endpoint: str, p256dh: str, auth: str,
                          name: str, language: str) -> PushSubscription:
    _player_locked(player)
    fields = {"token_id": token_id, "p256dh": p256dh, "auth": auth, "name": name}
    sub = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
    if sub is not None and sub.player_id != player.pk:
        raise _target_taken()
    if sub is None:
        _targets_within_limit(player, PushSubscription)
        try:
            with transaction.atomic():
                sub = PushSubscription.objects.create(player=player, endpoint=endpoint, **fields)
        except IntegrityError as exc:  # another player's request made it just now
            raise _target_taken() from exc
    else:
        for field, value in fields.items():
            setattr(sub, field, value)
        sub.save(update_fields=list(fields))
    Preferences.objects.get_or_create(player=player, defaults={"language": language})
    Player.objects.filter(pk=player.pk).update(has_notify_target=True)
    return sub


@database_retry.written_once_more
def subscription_remove(*, player: Player, subscription_id: int) -> None:
    deleted, _rows = PushSubscription.objects.filter(pk=subscription_id, player=player).delete()
    if not deleted:
        raise NotFoundError()
    flag_refresh(player.pk)


# --- devices (FCM, APNs) --------------------------------------------------------------------------


def device_add(*, player: Player, token_id: int | None, platform: str, token: str, name: str,
               language: str) -> Device:
    if platform == "apns" and not all(c in "0123456789abcdefABCDEF" for c in token):
        raise ValidationFailed(message=_("An APNs device token is hexadecimal."), details={"field": "token"})
    return _device_written(player, token_id, platform, token, name, language)


@database_retry.written_once_more
def _device_written(player: Player, token_id: int | None, platform: str, token: str, name: str,
                    language: str) -> Device:
    _player_locked(player)
    device = Device.objects.select_for_update().filter(platform=platform, token=token).first()
    if device is not None and device.player_id != player.pk:
        raise _target_taken()
    if device is None:
        _targets_within_limit(player, Device)
        try:
            with transaction.atomic():
                device = Device.objects.create(player=player, platform=platform, token=token, token_id=token_id,
                                               name=name)
        except IntegrityError as exc:  # another player's request made it just now
            raise _target_taken() from exc
    else:
        device.token_id, device.name = token_id, name
        device.save(update_fields=["token_id", "name"])
    Preferences.objects.get_or_create(player=player, defaults={"language": language})
    Player.objects.filter(pk=player.pk).update(has_notify_target=True)
    return device


@database_retry.written_once_more
def device_remove(*, player: Player, device_id: int) -> None:
    deleted, _rows = Device.objects.filter(pk=device_id, player=player).delete()
    if not deleted:
        raise NotFoundError()
    flag_refresh(player.pk)


# --- what the accounts app calls: a token revoked, an account closed ------------------------------


def tokens_revoked(*, token_ids: list[int]) -> None:
    """The subscriptions and devices those tokens registered go with them."""
    if not token_ids:
        return
    players = set(PushSubscription.objects.filter(token_id__in=token_ids).values_list("player_id", flat=True))
    players |= set(Device.objects.filter(token_id__in=token_ids).values_list("player_id", flat=True))
    PushSubscription.objects.filter(token_id__in=token_ids).delete()
    Device.objects.filter(token_id__in=token_ids).delete()
    for pid in players:
        flag_refresh(pid)


def player_forgotten(*, player_id: int) -> None:
    """A closed account: every target, the address and the preferences go."""
    PushSubscription.objects.filter(player_id=player_id).delete()
    Device.objects.filter(player_id=player_id).delete()
    EmailAddress.objects.filter(player_id=player_id).delete()
    Preferences.objects.filter(player_id=player_id).delete()
    Player.objects.filter(pk=player_id).update(has_notify_target=False)


# --- e-mail address -------------------------------------------------------------------------------


def signed(purpose: str, **values: Any) -> str:
    return signing.dumps({"for": purpose, **values}, salt=SIGNING_SALT, compress=True)


def unsigned(value: str, purpose: str, max_age: float | None = None) -> dict[str, Any]:
    try:
        data = signing.loads(value, salt=SIGNING_SALT, max_age=max_age)
    except signing.BadSignature as exc:
        raise ValidationFailed(message=_("This link is not valid (or too old)."),
                               details={"reason": "bad_link"}) from exc
    if not isinstance(data, dict) or data.get("for") != purpose:
        raise ValidationFailed(message=_("This link is not valid (or too old)."), details={"reason": "bad_link"})
    return data


def email_set(*, player: Player, address: str, language: str, client: str) -> EmailAddress:
    """Set the address (unverified until its link is opened) and send the verification mail: within
    the hour at most ``NOTIFY_VERIFICATION_MAILS_PER_HOUR`` to one address, ``..._PER_PLAYER_HOUR`` for
    one player and ``..._PER_CLIENT_HOUR`` from one client address (``client``), so neither one account
    nor a stream of fresh sign-ups can mail strangers in bulk."""
    entry = _email_written(player, address.strip(), language, client)
    transaction.on_commit(functools.partial(tasks.verification_mail_queue, entry.pk))
    return entry


@database_retry.written_once_more
def _email_written(player: Player, address: str, language: str, client: str) -> EmailAddress:
    _player_locked(player)
    _verification_mail_counted({"address": address.lower(), "player": str(player.pk), "client": client})
    entry = EmailAddress.objects.filter(player=player).first()
    if entry is None:
        entry = EmailAddress.objects.create(player=player, address=address)
    elif entry.address != address:
        entry.address, entry.verified_at = address, None
        entry.save(update_fields=["address", "verified_at", "updated_at"])
    Preferences.objects.get_or_create(player=player, defaults={"language": language})
    flag_refresh(player.pk)
    return entry


VERIFICATION_WINDOW_SECONDS = 3600


def _verification_mail_limits() -> dict[str, int]:
    return {"address": settings.NOTIFY_VERIFICATION_MAILS_PER_HOUR,
            "player": settings.NOTIFY_VERIFICATION_MAILS_PER_PLAYER_HOUR,
            "client": settings.NOTIFY_VERIFICATION_MAILS_PER_CLIENT_HOUR}


def _verification_mail_counted(keys: dict[str, str]) -> None:
    """One more verification mail under each key (``{"address": ..., "player": ..., "client": ...}``),
    or 429 when any of them is at its limit. The keys' rows are made if missing and locked (in key
    order, so two requests never wait on each other crosswise) before they are counted: a flood of
    concurrent requests counts one after another. Rows quiet for an hour are deleted on the way."""
    now = timezone.now()
    stamp = now.timestamp()
    limits = _verification_mail_limits()
    names = {f"{kind}:{value}"[:300]: kind for kind, value in keys.items()}
    VerificationMailLog.objects.filter(last_at__lt=now - timedelta(seconds=VERIFICATION_WINDOW_SECONDS)).exclude(
        key__in=names).delete()
    rows: list[VerificationMailLog] = []
    for _attempt in range(3):  # a row another request pruned just now is made again
        VerificationMailLog.objects.bulk_create([VerificationMailLog(key=k, sent=[], last_at=now) for k in names],
                                                ignore_conflicts=True)
        rows = list(VerificationMailLog.objects.select_for_update().filter(key__in=names).order_by("key"))
        if len(rows) == len(names):
            break
    for row in rows:
        recent = [t for t in row.sent if t > stamp - VERIFICATION_WINDOW_SECONDS]
        kind = names[row.key]
        if len(recent) >= limits[kind]:
            wait = int(min(recent) + VERIFICATION_WINDOW_SECONDS - stamp) + 1
            raise DomainError(code="throttled", status=429, message=VERIFICATION_REFUSALS[kind],
                              details={"retry_after": wait, "limit": kind, "max": limits[kind],
                                       **({"field": "address"} if kind == "address" else {})})
        row.sent, row.last_at = [*recent, stamp], now
    VerificationMailLog.objects.bulk_update(rows, ["sent", "last_at"])


VERIFICATION_REFUSALS = {
    "address": _("Too many verification mails to this address; try again later."),
    "player": _("Too many verification mails from this account; try again later."),
    "client": _("Too many verification mails from this network address; try again later."),
}


def _player_locked(player: Player) -> None:
    """A player's targets are written one request at a time (their row locked to the commit): a
    limit counted before the write then holds under concurrent requests, and the first address is
    made once."""
    list(Player.objects.select_for_update().filter(pk=player.pk).values_list("pk", flat=True))


def verification_mail_send(*, email_id: int) -> bool:
    entry = EmailAddress.objects.filter(pk=email_id).select_related("player").first()
    if entry is None or not channels.email_on():
        return False
    language = _preferences(entry.player_id).language
    link = f"{settings.MAUMAU_PUBLIC_URL}/email/verify/{signed('verify', p=entry.player_id, a=entry.address)}"
    mail.verification_send(address=entry.address, link=link, language=language)
    return True


@database_retry.written_once_more
def email_verify(*, signed_value: str) -> EmailAddress:
    data = unsigned(signed_value, "verify", max_age=7 * 24 * 3600)
    entry = EmailAddress.objects.filter(player_id=data.get("p"), address=data.get("a")).first()
    if entry is None:
        raise ValidationFailed(message=_("This link is not valid (or too old)."), details={"reason": "bad_link"})
    if entry.verified_at is None:
        entry.verified_at = timezone.now()
        entry.save(update_fields=["verified_at"])
        Player.objects.filter(pk=entry.player_id).update(has_notify_target=True)
    return entry


@database_retry.written_once_more
def unsubscribe(*, signed_value: str) -> tuple[int, str]:
    """One click in a mail: that kind's e-mails off, no log-in needed (the link is signed)."""
    data = unsigned(signed_value, "unsubscribe")
    player_id, kind = data.get("p"), data.get("k")
    if kind not in KINDS or not Player.objects.filter(pk=player_id).exists():
        raise ValidationFailed(message=_("This link is not valid (or too old)."), details={"reason": "bad_link"})
    prefs, _created = Preferences.objects.select_for_update().get_or_create(player_id=player_id)
    prefs.choices = {**prefs.choices, kind: {**(prefs.choices.get(kind) or {}), "email": False}}
    prefs.save(update_fields=["choices"])
    return player_id, kind


# --- preferences ----------------------------------------------------------------------------------


def _preferences(player_id: int) -> Preferences:
    return Preferences.objects.filter(player_id=player_id).first() or Preferences(player_id=player_id)


def preferences_data(player: Player) -> dict[str, Any]:
    prefs = _preferences(player.pk)
    entry = EmailAddress.objects.filter(player=player).first()
    return {
        "kinds": {kind: {channel: prefs.wants(kind, channel) for channel in CHANNELS} for kind in KINDS},
        "quiet_hours": ({"start": prefs.quiet_start.strftime("%H:%M"), "end": prefs.quiet_end.strftime("%H:%M")}
                        if prefs.quiet_start and prefs.quiet_end else None),
        "time_zone": prefs.time_zone,
        "language": prefs.language,
        "email": ({"address": entry.address, "verified": entry.verified_at is not None} if entry else None),
        "channels": channels.status(),
    }


@database_retry.written_once_more
def preferences_update(*, player: Player, changes: dict[str, Any]) -> Preferences:
    """PATCH: merges what it is sent (a kind's channels one by one; quiet hours whole, null clears them)."""
    if "time_zone" in changes:
        try:
            ZoneInfo(changes["time_zone"])
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValidationFailed(message=_("Unknown time zone."), details={"field": "time_zone"}) from exc
    prefs, _created = Preferences.objects.select_for_update().get_or_create(player=player)
    choices = dict(prefs.choices)
    for kind, wanted in (changes.get("kinds") or {}).items():
        merged = {**(choices.get(kind) or {}), **wanted}
        choices[kind] = {c: v for c, v in merged.items() if v != default_on(c)}
    prefs.choices = {k: v for k, v in choices.items() if v}
    if "quiet_hours" in changes:
        quiet = changes["quiet_hours"]
        prefs.quiet_start, prefs.quiet_end = (quiet["start"], quiet["end"]) if quiet else (None, None)
    for field in ("time_zone", "language"):
        if field in changes:
            setattr(prefs, field, changes[field])
    prefs.save()
    return prefs


# --- from a notification to deliveries ------------------------------------------------------------


def notifications_written(sender: Any = None, *, notifications: list[Notification], seats: list[Seat],
                          **_kwargs: Any) -> None:
    """streams' signal, in the notifications' transaction: an :class:`Outbox` row per notification of
    a player with a target, in the same transaction (one INSERT for the move; the deliveries process's
    reader takes them in batches, so a move publishes no broker message and a broker outage loses
    none). The seats' players are loaded with their flag, so a move whose players have none costs
    nothing here; notifications of others (the lobby's, reminders) cost one query."""
    wanted = [n for n in notifications if n.kind in KINDS and n.pk is not None]
    if not wanted:
        return
    flags = {seat.player_id: seat.player.has_notify_target for seat in seats}
    unknown = {n.player_id for n in wanted} - flags.keys()
    if unknown:
        flags.update(dict.fromkeys(
            Player.objects.filter(pk__in=unknown, has_notify_target=True).values_list("pk", flat=True), True))
    ids = [n.pk for n in wanted if flags.get(n.player_id)]
    if ids:
        Outbox.objects.bulk_create([Outbox(notification_id=pk) for pk in ids])
        tasks.outbox_written()


def _your_turns_judged(notes: list[Notification], ids: list[int]) -> tuple[dict[int, str], list[int]]:
    """For the batch's your_turn notifications: why each is not sent (``watching``: a stream or
    long-poll of theirs on the game, or a move of theirs in it just now; ``coalesced``: a your_turn of
    this game was sent, or is on its way, since the player last acted in it), and the older unsent
    your_turns (retrying, not in flight) that the newest of their game replaces. A cache read and one
    statement for the whole batch (:func:`notify.sql.turns_told`); times in seconds since the epoch."""
    turns = [n for n in notes if n.kind == "your_turn" and n.game_id]
    if not turns:
        return {}, []
    pairs = {(n.player_id, n.game_id) for n in turns}
    watched = presence.watching_many(sorted(pairs))
    acted: dict[tuple[int, int], float] = {}
    last_sent: dict[tuple[int, int], float] = {}
    waiting: dict[tuple[int, int], list[tuple[int, str, bool, float]]] = {}
    for what, pk, player_id, game_id, outcome, leased, told in notify_sql.turns_told(pairs, ids):
        if what == "waiting":
            waiting.setdefault((player_id, game_id), []).append((pk, outcome, leased, told))
        else:
            (acted if what == "moved" else last_sent)[(player_id, game_id)] = told
    recent = time.time() - settings.NOTIFY_RECENT_MOVE_SECONDS
    why: dict[int, str] = {}
    replaced: list[int] = []
    for note in turns:
        pair = (note.player_id, note.game_id)
        last = acted.get(pair)
        if pair in watched or (last is not None and last >= recent
                               and not presence.left_lately(note.player_id, note.game_id)):
            why[note.pk] = "watching"
            continue
        rows = waiting.get(pair, ())
        sent = last_sent.get(pair)
        if (sent is not None and (last is None or sent > last)) or any(
                leased and (last is None or told > last) for _pk, _outcome, leased, told in rows):
            why[note.pk] = "coalesced"
        else:  # every older one waiting for its retry, told before the player acted or not
            replaced += [pk for pk, outcome, leased, _told in rows if outcome == "retrying" and not leased]
    return why, replaced


def _targets_of(players: set[int]) -> dict[int, list[tuple[str, str, dict[str, Any]]]]:
    """(channel, target, row fields) of every target of these players (one statement for the three
    kinds). The subscription and device objects carry what a send reads (and their ids); the e-mail
    entry is read again when its batch is sent."""
    found: dict[int, list[tuple[str, str, dict[str, Any]]]] = {p: [] for p in players}
    if not players:
        return found
    for channel, pk, player_id, text, p256dh, auth in notify_sql.targets_of(players):
        if channel == "web_push":
            sub = PushSubscription(id=pk, player_id=player_id, endpoint=text, p256dh=p256dh, auth=auth)
            found[player_id].append(("web_push", f"web_push:{pk}", {"subscription": sub}))
        elif channel == "email":
            found[player_id].append(("email", f"email:{pk}", {}))
        else:
            device = Device(id=pk, player_id=player_id, platform=channel, token=text)
            found[player_id].append((channel, f"{channel}:{pk}", {"device": device}))
    return found


def _outcome_before_sending(note: Notification, channel: str, prefs: Preferences, now: Any, why: str | None) -> str:
    if not channels.channel_on(channel):
        return "off"
    if why is not None:
        return why
    if prefs.quiet_at(now):
        return "quiet"
    return "pending"


def fan_out(*, notification_ids: list[int], committed_at: float | None = None, wait: bool = True) -> list[int]:
    """The deliveries of these notifications: one row per wanted target, then each pending one sent.
    The rows are written already leased to this worker, so it sends them without claiming them again;
    a second run of the same fan-out (a redelivered task) writes none (the rows are unique) and sends
    only what is still pending and unleased. A batch (many moves' notifications) costs the same
    handful of queries as one. ``wait``: return when every send is recorded (else the worker's desk
    records them as they end). Returns the ids of the rows it sent."""
    ids = list(notification_ids)
    done_before = set(Delivery.objects.filter(notification_id__in=ids).values_list("notification_id", flat=True))
    try:
        rows, languages = _deliveries_written([i for i in ids if i not in done_before])
    except IntegrityError:  # another run of this fan-out wrote them meanwhile
        rows, languages, done_before = [], {}, set(ids)
    if done_before:  # this fan-out ran before (its task was delivered twice): send what is left
        left = Delivery.objects.filter(notification_id__in=done_before, outcome="pending", lease_until__isnull=True)
        claimed = [row for row in (_claimed(pk) for pk in left.values_list("pk", flat=True)) if row is not None]
        rows += claimed
        languages.update({row.player_id: _preferences(row.player_id).language for row in claimed})
    deliveries_send(rows, languages, committed_at=committed_at, wait=wait)
    return [row.pk for row in rows]


@database_retry.written_once_more
def _deliveries_written(ids: list[int]) -> tuple[list[Delivery], dict[int, str]]:
    return _deliveries_rows(ids)


def _deliveries_rows(ids: list[int]) -> tuple[list[Delivery], dict[int, str]]:
    """The Delivery rows of these notifications (none written before), in the caller's transaction;
    the pending ones leased to this worker, with the players' languages."""
    if not ids:
        return [], {}
    notes, prefs = notify_sql.notes_unwritten(ids)
    players = {n.player_id for n in notes}
    for pid in players - prefs.keys():
        prefs[pid] = Preferences(player_id=pid)
    languages = {pid: prefs[pid].language for pid in players}
    targets = _targets_of(players)
    why, replaced = _your_turns_judged(notes, ids)
    now = timezone.now()
    rows: list[Delivery] = []
    for note in notes:
        prefer = prefs[note.player_id]
        for channel, target, fields in targets.get(note.player_id, ()):
            if not prefer.wants(note.kind, channel):
                continue
            rows.append(Delivery(notification=note, player_id=note.player_id, game_id=note.game_id, kind=note.kind,
                                 channel=channel, target=target, **fields,
                                 outcome=_outcome_before_sending(note, channel, prefer, now, why.get(note.pk))))
    with transaction.atomic(savepoint=False):  # the caller's transaction: a refused row undoes it all
        if replaced:  # the newest your_turn of a game replaces older ones not sent yet (and not in flight)
            count = Delivery.objects.filter(pk__in=replaced, outcome="retrying", lease_until__isnull=True).update(
                outcome="replaced", next_attempt_at=None)
            for _n in range(count):
                observability.notify_delivered("web_push", "replaced")
        notify_sql.deliveries_insert(rows, now, now + timedelta(seconds=settings.NOTIFY_LEASE_SECONDS))
    for row in rows:
        if row.outcome != "pending":
            observability.notify_delivered(row.channel, row.outcome)
    return [row for row in rows if row.outcome == "pending"], languages


# --- the deliveries process's reader: the outbox and the due retries, in batches ------------------


def outbox_read(*, limit: int = 500, wait: bool = False) -> int:
    """Take up to ``limit`` notifications from the outbox, write their deliveries (judged for the
    whole batch: watching, coalesced, quiet hours, preferences; leased to this worker) in the
    transaction that deletes them from it, and hand the pending ones to the outbound loop. ``wait``:
    return when every send is recorded. Returns how many were taken (``limit``: there may be more).

    On PostgreSQL the rows are claimed with ``FOR UPDATE SKIP LOCKED``: readers of several processes
    take disjoint batches; a reader killed before its commit leaves its batch to the next."""
    try:
        rows, languages, taken = _outbox_taken(limit)
    except IntegrityError:  # a fan-out task of the code before the outbox wrote some meanwhile: it sends
        log.warning("notify: an outbox batch met deliveries written meanwhile; read again", exc_info=True)
        rows, languages, taken = _outbox_taken(limit)  # those are left out now
    deliveries_send(rows, languages, wait=wait)
    return taken


@database_retry.written_once_more
def _outbox_taken(limit: int) -> tuple[list[Delivery], dict[int, str], int]:
    entries = _outbox_claimed(limit)
    if not entries:
        return [], {}, 0
    rows, languages = _deliveries_rows(sorted({n for _pk, n in entries}))  # none made before: left out
    return rows, languages, len(entries)


def _outbox_claimed(limit: int) -> list[tuple[int, int]]:
    """(id, notification id) of up to ``limit`` outbox rows, deleted in the caller's transaction: one
    statement (on PostgreSQL the rows another reader holds are skipped)."""
    table = connection.ops.quote_name(Outbox._meta.db_table)
    skip = " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} ORDER BY id LIMIT %s{skip}) "
                       "RETURNING id, notification_id", [limit])
        return cursor.fetchall()


def retries_read(*, limit: int = 500, wait: bool = False, ahead: float = 0.0) -> int:
    """Take up to ``limit`` deliveries whose retry is due (within ``ahead`` seconds: a push service
    that failed is back), one claim for the batch; record as ``replaced`` the your_turns a newer one
    of their game has followed, and send the rest. Returns how many were taken."""
    ids = _retries_claimed(limit, ahead)
    if not ids:
        return 0
    rows = list(Delivery.objects.select_related("notification", "subscription", "device").filter(pk__in=ids))
    stale = _your_turns_followed(rows)
    outcomes_record([(row, outbound.Done(replaced=True)) for row in rows if row.pk in stale])
    left = [row for row in rows if row.pk not in stale]
    languages = dict(Preferences.objects.filter(player_id__in={r.player_id for r in left})
                     .values_list("player_id", "language"))
    deliveries_send(left, languages, wait=wait)
    return len(ids)


@database_retry.written_once_more
def _retries_claimed(limit: int, ahead: float) -> list[int]:
    now = timezone.now()
    ids = list(Delivery.objects.select_for_update(skip_locked=True)
               .filter(outcome="retrying", next_attempt_at__lte=now + timedelta(seconds=ahead),
                       lease_until__isnull=True)
               .order_by("next_attempt_at").values_list("pk", flat=True)[:limit])
    if ids:
        Delivery.objects.filter(pk__in=ids).update(lease_until=now + timedelta(seconds=settings.NOTIFY_LEASE_SECONDS))
    return ids


def _your_turns_followed(rows: list[Delivery]) -> set[int]:
    """The your_turn rows among ``rows`` whose game has a newer your_turn for the player (waiting, in
    flight or sent): that one says it now. One query for the batch."""
    turns = [r for r in rows if r.kind == "your_turn" and r.game_id]
    if not turns:
        return set()
    newest = {(row["player_id"], row["game_id"]): row["newest"] for row in (
        Delivery.objects.filter(player_id__in={r.player_id for r in turns}, game_id__in={r.game_id for r in turns},
                                kind="your_turn", outcome__in=("pending", "retrying", "sent"))
        .values("player_id", "game_id").annotate(newest=Max("notification_id")))}
    return {r.pk for r in turns if newest.get((r.player_id, r.game_id), 0) > r.notification_id}


def _claimed(delivery_id: int) -> Delivery | None:
    """Take the row's lease (one worker at a time); None when another holds it or it is settled."""
    now = timezone.now()
    claimable = Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    taken = (Delivery.objects.filter(claimable, pk=delivery_id, outcome__in=("pending", "retrying"))
             .update(lease_until=now + timedelta(seconds=settings.NOTIFY_LEASE_SECONDS)))
    if not taken:
        return None
    return (Delivery.objects.select_related("notification", "subscription", "device")
            .filter(pk=delivery_id).first())


def _ttl(note: Notification) -> int:
    """How long a push service keeps the message: until the turn's deadline, else a day."""
    deadline = (note.data or {}).get("deadline")
    if deadline:
        try:
            left = (timezone.datetime.fromisoformat(deadline.replace("Z", "+00:00")) - timezone.now()).total_seconds()
            return max(60, int(left))
        except ValueError:
            pass
    return 24 * 3600


def _job(delivery: Delivery, language: str) -> outbound.Job | channels.Sent:
    """The request of one push (made ready here: encrypted, signed), or why there is none."""
    note = delivery.notification
    body = texts.payload(note, language)
    if delivery.channel == "web_push":
        sub = delivery.subscription
        if sub is None:
            return channels.Sent(None, "subscription removed", gone=True)
        request = channels.web_push_request(endpoint=sub.endpoint, p256dh=sub.p256dh, auth=sub.auth,
                                            payload=json.dumps(body, separators=(",", ":")).encode(),
                                            topic=body["tag"], ttl=_ttl(note))
    else:
        device = delivery.device
        if device is None:
            return channels.Sent(None, "device removed", gone=True)
        data = {k: "" if v is None else str(v) for k, v in body.items() if k not in ("title", "body")}
        make = channels.fcm_request if delivery.channel == "fcm" else channels.apns_request
        request = make(token=device.token, title=body["title"], body=body["body"], data=data, collapse=body["tag"])
    if isinstance(request, channels.Sent):
        return request
    return outbound.Job(target=delivery.target, origin=request.origin, player=delivery.player_id,
                        send=functools.partial(channels.posted, request), failed=channels.far_end_failed,
                        collapse=f"your_turn:{note.game_id}" if note.kind == "your_turn" else None,
                        one_at_a_time=True, deadline=time.monotonic() + 0.8 * settings.NOTIFY_LEASE_SECONDS)


def _mail_job(rows: list[Delivery], languages: dict[int, str]) -> outbound.Job:
    """Every mail of a batch in one job: one connection to the mail server for all of them."""
    messages = []
    for delivery in rows:
        note = delivery.notification
        entry = delivery.email_entry
        stop = signed("unsubscribe", p=delivery.player_id, k=note.kind)
        link = f"{settings.MAUMAU_PUBLIC_URL}/email/unsubscribe/{stop}"
        messages.append(mail.notification_message(
            address=entry.address, payload=texts.payload(note, languages.get(delivery.player_id, "en")),
            unsubscribe=link, language=languages.get(delivery.player_id, "en"),
            message_id=f"<delivery-{delivery.pk}@maumau>"))

    async def send() -> list[channels.Sent]:
        return await asyncio.get_running_loop().run_in_executor(None, mail.messages_send, messages)

    return outbound.Job(target=f"email-batch:{rows[0].pk}", origin=f"smtp://{settings.EMAIL_HOST}", player=-1,
                        send=send, failed=lambda sent: all(s.retry for s in sent),
                        deadline=time.monotonic() + 0.8 * settings.NOTIFY_LEASE_SECONDS)


def deliveries_send(rows: list[Delivery], languages: dict[int, str], *, committed_at: float | None = None,
                    wait: bool = True) -> None:
    """Send rows this worker holds the leases of, all at once through the process's outbound loop.
    ``wait``: record the outcomes before returning; else the worker's desk records them as they end."""
    if not rows:
        return
    results: list[tuple[Delivery, Any]] = []
    jobs: list[tuple[list[Delivery], outbound.Job]] = []
    mails = []
    entries = {e.player_id: e for e in EmailAddress.objects.filter(
        player_id__in={r.player_id for r in rows if r.channel == "email"}, verified_at__isnull=False)}
    sender = outbound.outbound()
    for row in rows:
        row.started = time.perf_counter()
        # The commit of a batch's notifications: the task's stamp, else the row's creation.
        row.committed_at = None if row.attempts else (
            committed_at if committed_at is not None else row.notification.created_at.timestamp())
        if row.channel == "email":
            row.email_entry = entries.get(row.player_id)
            if row.email_entry is None:
                results.append((row, channels.Sent(None, "address removed or not verified", gone=True)))
            else:
                mails.append(row)
            continue
        try:
            job = _job(row, languages.get(row.player_id, "en"))
        except Exception as exc:  # a bug or an unforeseen library error: recorded, retried
            log.exception("notify: delivery %s failed", row.pk)
            job = channels.Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=True)
        if isinstance(job, channels.Sent):
            results.append((row, job))
        else:
            jobs.append(([row], job))
    if mails:
        jobs.append((mails, _mail_job(mails, languages)))
    pending = list(zip([batch for batch, _job in jobs], sender.submit_all([job for _batch, job in jobs]), strict=True))
    if not wait:
        if results:
            _desk().put(("done", results))
        for batch, future in pending:
            future.add_done_callback(functools.partial(_handed_to_desk, batch))
        return
    for batch, future in pending:
        results += _results(batch, future)
    outcomes_record(results)


def _results(batch: list[Delivery], future: concurrent.futures.Future) -> list[tuple[Delivery, Any]]:
    try:
        done = future.result()
    except Exception as exc:  # a bug or an unforeseen library error: recorded, retried
        log.error("notify: deliveries %s failed: %r", [r.pk for r in batch], exc)
        done = outbound.Done(value=channels.Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=True))
    if len(batch) > 1 or isinstance(done.value, list):  # a mail batch: one outcome per message
        values = done.value if isinstance(done.value, list) else [done.value] * len(batch)
        return [(row, outbound.Done(value=value, seconds=done.seconds, replaced=done.replaced,
                                    expired=done.expired)) for row, value in zip(batch, values, strict=True)]
    return [(batch[0], done)]


def _handed_to_desk(batch: list[Delivery], future: concurrent.futures.Future) -> None:
    _desk().put(("done", _results(batch, future)))


def outcomes_record(results: list[tuple[Delivery, Any]]) -> None:
    """Record what the sends came to (one UPDATE for the batch): sent, gone (the target is deleted),
    retrying with backoff, failed, or replaced (a newer your_turn of the game took its place)."""
    if not results:
        return
    now = timezone.now()
    changed: list[Delivery] = []
    retries: list[Delivery] = []
    gone: list[Delivery] = []
    for delivery, result in results:
        done = result if isinstance(result, outbound.Done) else outbound.Done(value=result)
        delivery.lease_until = None
        if done.replaced:
            delivery.outcome, delivery.next_attempt_at = "replaced", None
            changed.append(delivery)
            observability.notify_delivered(delivery.channel, "replaced")
            continue
        if done.expired:  # waited too long unsent: the sweep sends it (no attempt counted)
            delivery.outcome, delivery.next_attempt_at = "retrying", now
            changed.append(delivery)
            continue
        sent = done.value if isinstance(done.value, channels.Sent) else channels.Sent(None, "no outcome", retry=True)
        since = getattr(delivery, "committed_at", None)
        observability.notify_latency(delivery.channel, done.seconds, None if since is None else time.time() - since)
        delivery.attempts += 1
        delivery.response_status = sent.status
        delivery.last_error = sent.error[:300]
        if sent.ok:
            delivery.outcome, delivery.sent_at, delivery.next_attempt_at = "sent", now, None
            observability.delivery_lag(delivery.channel, (now - delivery.notification.created_at).total_seconds())
        elif sent.gone:
            delivery.outcome, delivery.next_attempt_at = "gone", None
            gone.append(delivery)
        elif sent.retry and done.newer_waiting:
            delivery.outcome, delivery.next_attempt_at = "replaced", None
        elif sent.retry and delivery.attempts < settings.NOTIFY_MAX_ATTEMPTS:
            delivery.outcome = "retrying"
            delivery.next_attempt_at = now + timedelta(seconds=min(
                settings.NOTIFY_BACKOFF_SECONDS * 2 ** (delivery.attempts - 1), settings.NOTIFY_BACKOFF_MAX_SECONDS))
            retries.append(delivery)
        else:
            delivery.outcome, delivery.next_attempt_at = "failed", None
        changed.append(delivery)
        observability.notify_delivered(delivery.channel, delivery.outcome)
    _rows_saved(changed, now)
    for delivery in gone:
        _target_gone(delivery)
    for delivery in retries:
        tasks.retry_queue(delivery.pk, delivery.next_attempt_at)


def _rows_saved(changed: list[Delivery], now: Any) -> None:
    """The batch's rows written back: the common case (sent at the first attempt) as one UPDATE per
    answer status, the rest with one bulk UPDATE."""
    plain: dict[int | None, list[int]] = {}
    rest: list[Delivery] = []
    for row in changed:
        if row.outcome == "sent" and row.attempts == 1 and row.sent_at == now:
            plain.setdefault(row.response_status, []).append(row.pk)
        else:
            rest.append(row)
    for status, ids in plain.items():
        Delivery.objects.filter(pk__in=ids).update(outcome="sent", attempts=1, response_status=status, last_error="",
                                                   lease_until=None, sent_at=now, next_attempt_at=None)
    if rest:
        Delivery.objects.bulk_update(rest, ["attempts", "response_status", "last_error", "lease_until", "outcome",
                                            "sent_at", "next_attempt_at"], batch_size=500)


def _target_gone(delivery: Delivery) -> None:
    """404/410 from a push service, an unregistered token: the target is deleted."""
    if delivery.subscription_id:
        PushSubscription.objects.filter(pk=delivery.subscription_id).delete()
    if delivery.device_id:
        Device.objects.filter(pk=delivery.device_id).delete()
    flag_refresh(delivery.player_id)


def delivery_attempt(*, delivery_id: int, committed_at: float | None = None, wait: bool = True) -> Delivery | None:
    """One attempt of a retry or a swept row: claim its lease, send, record (``wait``: before returning)."""
    delivery = _claimed(delivery_id)
    if delivery is None:
        return None
    if _your_turns_followed([delivery]):
        outcomes_record([(delivery, outbound.Done(replaced=True))])  # a newer one of the game is out
        return delivery
    deliveries_send([delivery], {delivery.player_id: _preferences(delivery.player_id).language},
                    committed_at=committed_at, wait=wait)
    return delivery


# --- a worker process's desk: fan-outs and outcomes in batches, off the task's thread -------------


_desks: dict[str, outbound.Desk] = {}


def _desk() -> outbound.Desk:
    return outbound.desk_of(_desks, "notify-desk", _desk_batch)


def fan_out_later(*, notification_ids: list[int], committed_at: float | None = None) -> None:
    """A worker's fan-out: handed to the process's desk, which writes many moves' rows at once."""
    _desk().put(("fan_out", list(notification_ids), committed_at))


def delivery_attempt_later(*, delivery_id: int) -> None:
    _desk().put(("attempt", delivery_id))


def _desk_batch(items: list[tuple[Any, ...]]) -> None:
    results = [pair for item in items if item[0] == "done" for pair in item[1]]
    try:
        outcomes_record(results)
    except Exception:  # the rows keep their leases; the sweep sends them again when those run out
        log.exception("notify: could not record %s outcomes", len(results))
    fan_outs = [item for item in items if item[0] == "fan_out"]
    if fan_outs:
        ids = [pk for item in fan_outs for pk in item[1]]
        stamps = [item[2] for item in fan_outs if item[2] is not None]
        fan_out(notification_ids=ids, committed_at=stamps[0] if len(fan_outs) == 1 and stamps else None, wait=False)
    for item in items:
        if item[0] == "attempt":
            delivery_attempt(delivery_id=item[1], wait=False)


def due_deliveries(*, limit: int = 500) -> list[int]:
    """For the sweep: retries whose time came, and rows whose worker died (lease ran out)."""
    now = timezone.now()
    due = Q(outcome="retrying", next_attempt_at__lte=now, lease_until__isnull=True) | Q(
        outcome__in=("pending", "retrying"), lease_until__lt=now)
    stale = Q(outcome="pending", lease_until__isnull=True, created_at__lt=now - timedelta(seconds=60))
    return list(Delivery.objects.filter(due | stale).values_list("pk", flat=True)[:limit])
