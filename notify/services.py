"""Writes of the notify app: targets (push subscriptions, devices, the e-mail address), preferences,
and the deliveries of notifications to them.

The move pipeline never waits for any of it. The streams app sends ``notifications_written`` inside
the move's transaction; :func:`notifications_written` only looks at the seats' loaded players'
``has_notify_target`` flags (no query for the common case: nobody reachable) and, when someone is,
queues one Celery task on commit. The task (:func:`fan_out`) decides per target (watching, coalesced,
quiet hours, preferences), writes one :class:`Delivery` per notification and target (unique), and
sends each under a lease (:func:`delivery_attempt`).

Duplicates: a row is sent only by the worker holding its lease. A worker that dies after the push
service took the message but before the row says ``sent`` leaves the lease to run out; the sweep then
sends it again: at most one more copy per lease, and at most ``NOTIFY_MAX_ATTEMPTS`` in all. The copy
carries the same Topic (Web Push), collapse id (APNs, FCM) and notification tag, so the device shows
one notification.
"""

from __future__ import annotations

import base64
import binascii
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
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import presence
from games.models import Move, Player, Seat
from maumau import database_retry, observability
from maumau.errors import ConflictError, DomainError, NotFoundError, ValidationFailed
from notify import channels, mail, tasks, texts
from notify.models import (
    CHANNELS,
    KINDS,
    Delivery,
    Device,
    EmailAddress,
    Preferences,
    PushSubscription,
    VerificationMailLog,
    default_on,
)
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
    """streams' signal, in the notifications' transaction: queue the fan-out on commit, only for the
    players with a target. The seats' players are loaded with their flag, so a move whose players have
    none costs nothing here; notifications of others (the lobby's, reminders) cost one query."""
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
        transaction.on_commit(functools.partial(tasks.fan_out_queue, ids, time.time()))


def _looking_or_told(note: Notification) -> tuple[bool, bool]:
    """(watching, coalesced) of a your_turn. Watching: a stream or long-poll of theirs on the game, or a
    move of theirs in it just now. Coalesced: a your_turn of this game was sent (or is on its way) since
    the player last acted in it. Two queries and a cache read."""
    acted = (Move.objects.filter(game_id=note.game_id, player_id=note.player_id)
             .order_by("-seq").values_list("created_at", flat=True).first())
    recent = timezone.now() - timedelta(seconds=settings.NOTIFY_RECENT_MOVE_SECONDS)
    if presence.watching(note.player_id, note.game_id) or (acted is not None and acted >= recent):
        return True, False
    earlier = Delivery.objects.filter(player_id=note.player_id, game_id=note.game_id, kind="your_turn",
                                      outcome__in=("pending", "retrying", "sent")).exclude(notification_id=note.pk)
    if acted is not None:
        earlier = earlier.filter(created_at__gt=acted)
    return False, earlier.exists()


def _targets(note: Notification) -> list[tuple[str, str, dict[str, Any]]]:
    """(channel, target, row fields) of every target of the notification's player."""
    found: list[tuple[str, str, dict[str, Any]]] = []
    for sub in PushSubscription.objects.filter(player_id=note.player_id):
        found.append(("web_push", f"web_push:{sub.pk}", {"subscription": sub}))
    for device in Device.objects.filter(player_id=note.player_id):
        found.append((device.platform, f"{device.platform}:{device.pk}", {"device": device}))
    entry = EmailAddress.objects.filter(player_id=note.player_id, verified_at__isnull=False).first()
    if entry is not None:
        found.append(("email", f"email:{entry.pk}", {}))
    return found


def _outcome_before_sending(note: Notification, channel: str, prefs: Preferences, now: Any,
                            watching: bool, coalesced: bool) -> str:
    if not channels.channel_on(channel):
        return "off"
    if watching:
        return "watching"
    if coalesced:
        return "coalesced"
    if prefs.quiet_at(now):
        return "quiet"
    return "pending"


def fan_out(*, notification_ids: list[int], committed_at: float | None = None) -> list[int]:
    """The deliveries of these notifications: one row per wanted target, then each pending one sent.
    The rows are written already leased to this worker, so it sends them without claiming them again;
    a second run of the same fan-out (a redelivered task) writes none (the rows are unique) and sends
    only what is still pending and unleased. Returns the ids of the rows it sent."""
    rows: list[Delivery] = []
    languages: dict[int, str] = {}
    now = timezone.now()
    lease = now + timedelta(seconds=settings.NOTIFY_LEASE_SECONDS)
    for note in Notification.objects.filter(pk__in=notification_ids):
        prefs = _preferences(note.player_id)
        languages[note.player_id] = prefs.language
        targets = [t for t in _targets(note) if prefs.wants(note.kind, t[0])]
        if not targets:
            continue
        watching = coalesced = False
        if note.kind == "your_turn" and note.game_id:
            watching, coalesced = _looking_or_told(note)
        for channel, target, fields in targets:
            outcome = _outcome_before_sending(note, channel, prefs, now, watching, coalesced)
            rows.append(Delivery(notification=note, player_id=note.player_id, game_id=note.game_id, kind=note.kind,
                                 channel=channel, target=target, outcome=outcome, next_attempt_at=now,
                                 lease_until=lease if outcome == "pending" else None, **fields))
            if outcome != "pending":
                observability.notify_delivered(channel, outcome)
    try:
        with transaction.atomic():
            written = Delivery.objects.bulk_create(rows)
    except IntegrityError:  # this fan-out ran before (its task was delivered twice): send what is left
        return [pk for pk in Delivery.objects.filter(notification_id__in=notification_ids, outcome="pending",
                                                     lease_until__isnull=True).values_list("pk", flat=True)
                if delivery_attempt(delivery_id=pk, committed_at=committed_at) is not None]
    pending = [row for row in written if row.outcome == "pending"]
    for row in pending:
        _attempt(row, committed_at, languages.get(row.player_id, "en"))
    return [row.pk for row in pending]


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


def _send(delivery: Delivery, language: str) -> channels.Sent:
    note = delivery.notification
    body = texts.payload(note, language)
    if delivery.channel == "web_push":
        sub = delivery.subscription
        if sub is None:
            return channels.Sent(None, "subscription removed", gone=True)
        try:
            target = endpoint_checked(sub.endpoint)  # again at each delivery: DNS may say otherwise now
        except ValidationFailed as exc:
            return channels.Sent(None, f"endpoint refused: {exc.details.get('reason')}")
        return channels.web_push_send(endpoint=sub.endpoint, target=target, p256dh=sub.p256dh, auth=sub.auth,
                                      payload=json.dumps(body, separators=(",", ":")).encode(),
                                      topic=body["tag"], ttl=_ttl(note))
    if delivery.channel in ("fcm", "apns"):
        device = delivery.device
        if device is None:
            return channels.Sent(None, "device removed", gone=True)
        data = {k: "" if v is None else str(v) for k, v in body.items() if k not in ("title", "body")}
        send = channels.fcm_send if delivery.channel == "fcm" else channels.apns_send
        return send(token=device.token, title=body["title"], body=body["body"], data=data, collapse=body["tag"])
    entry = EmailAddress.objects.filter(player_id=delivery.player_id, verified_at__isnull=False).first()
    if entry is None:
        return channels.Sent(None, "address removed or not verified", gone=True)
    link = f"{settings.MAUMAU_PUBLIC_URL}/email/unsubscribe/{signed('unsubscribe', p=delivery.player_id, k=note.kind)}"
    return mail.notification_send(address=entry.address, payload=body, unsubscribe=link, language=language,
                                  message_id=f"<delivery-{delivery.pk}@maumau>")


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


def delivery_attempt(*, delivery_id: int, committed_at: float | None = None) -> Delivery | None:
    """One attempt of a retry or a swept row: claim its lease, send, record."""
    delivery = _claimed(delivery_id)
    if delivery is None:
        return None
    return _attempt(delivery, committed_at, _preferences(delivery.player_id).language)


def _attempt(delivery: Delivery, committed_at: float | None, language: str) -> Delivery:
    """Send a row this worker holds the lease of; the outcome is recorded, a retry planned with backoff."""
    started = time.perf_counter()
    try:
        sent = _send(delivery, language)
    except Exception as exc:  # a bug or an unforeseen library error: recorded, retried
        log.exception("notify: delivery %s failed", delivery.pk)
        sent = channels.Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=True)
    observability.notify_latency(delivery.channel, time.perf_counter() - started,
                                 None if committed_at is None or delivery.attempts else time.time() - committed_at)
    now = timezone.now()
    delivery.attempts += 1
    delivery.response_status = sent.status
    delivery.last_error = sent.error[:300]
    delivery.lease_until = None
    if sent.ok:
        delivery.outcome, delivery.sent_at, delivery.next_attempt_at = "sent", now, None
    elif sent.gone:
        delivery.outcome, delivery.next_attempt_at = "gone", None
        _target_gone(delivery)
    elif sent.retry and delivery.attempts < settings.NOTIFY_MAX_ATTEMPTS:
        delivery.outcome = "retrying"
        delivery.next_attempt_at = now + timedelta(
            seconds=settings.NOTIFY_BACKOFF_SECONDS * 2 ** (delivery.attempts - 1))
    else:
        delivery.outcome, delivery.next_attempt_at = "failed", None
    delivery.save(update_fields=["attempts", "response_status", "last_error", "lease_until", "outcome", "sent_at",
                                 "next_attempt_at"])
    observability.notify_delivered(delivery.channel, delivery.outcome)
    return delivery


def _target_gone(delivery: Delivery) -> None:
    """404/410 from a push service, an unregistered token: the target is deleted."""
    if delivery.subscription_id:
        PushSubscription.objects.filter(pk=delivery.subscription_id).delete()
    if delivery.device_id:
        Device.objects.filter(pk=delivery.device_id).delete()
    flag_refresh(delivery.player_id)


def due_deliveries(*, limit: int = 500) -> list[int]:
    """For the sweep: retries whose time came, and rows whose worker died (lease ran out)."""
    now = timezone.now()
    due = Q(outcome="retrying", next_attempt_at__lte=now, lease_until__isnull=True) | Q(
        outcome__in=("pending", "retrying"), lease_until__lt=now)
    stale = Q(outcome="pending", lease_until__isnull=True, created_at__lt=now - timedelta(seconds=60))
    return list(Delivery.objects.filter(due | stale).values_list("pk", flat=True)[:limit])
