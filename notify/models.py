"""Where a player can be reached outside the service, what they want to hear, and each delivery.

A subscription or device remembers the id of the access token that registered it (``token_id``, no
foreign key: tokens are the accounts app's, a layer above), so that revoking the token removes it.
"""

from __future__ import annotations

import datetime as dt

from django.db import models

#: The notification kinds that may leave the service (the ones /me/stream sends that matter away from the board).
KINDS = ["your_turn", "deadline_soon", "challenge_received", "game_started", "round_over", "league_over",
         "season_over"]
CHANNELS = ["web_push", "fcm", "apns", "email"]
#: What became of a delivery. ``pending``/``retrying``: to be sent; ``sent``; ``failed`` (gave up or
#: refused); ``gone`` (the push service said 404/410: the subscription is deleted); the rest were not
#: sent on purpose: ``watching`` (the player looks at the game), ``coalesced`` (one your_turn per game
#: until they act), ``quiet`` (quiet hours), ``off`` (the channel is not configured), ``replaced``
#: (a newer your_turn of the same game took its place before it was sent).
OUTCOMES = ["pending", "retrying", "sent", "failed", "gone", "watching", "coalesced", "quiet", "off", "replaced"]
PLATFORMS = ["fcm", "apns"]


class PushSubscription(models.Model):
    """A browser's ``PushSubscription`` (RFC 8030 endpoint, RFC 8291 keys)."""

    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="push_subscriptions")
    token_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=40)
    name = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Push subscription {self.pk} of player {self.player_id}"


class Device(models.Model):
    """A native app's registration token: FCM's, or an APNs device token."""

    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="devices")
    token_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    platform = models.CharField(max_length=8, choices=[(p, p) for p in PLATFORMS])
    token = models.CharField(max_length=512)
    name = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["platform", "token"], name="device_unique_token")]

    def __str__(self) -> str:
        return f"{self.platform} device {self.pk} of player {self.player_id}"


class EmailAddress(models.Model):
    """The player's address; nothing but the verification mail goes to it before ``verified_at``."""

    player = models.OneToOneField("games.Player", on_delete=models.CASCADE, related_name="email_address")
    address = models.EmailField(max_length=254)
    verified_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"E-mail of player {self.player_id}"


class VerificationMailLog(models.Model):
    """The verification mails sent in the last hour under one key (an address, a player, a client
    address). A request counts them with the row locked, so concurrent requests count one after another
    and a limit holds under a flood (a cache counter's read-then-increment does not)."""

    key = models.CharField(max_length=300, unique=True)
    #: Unix times of the mails, oldest first; those older than an hour are dropped when counted.
    sent = models.JSONField(default=list)
    #: The last mail's time: rows quiet for an hour count nothing and are deleted.
    last_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"Verification mails of {self.key}"


class Preferences(models.Model):
    """Per kind and channel on/off (``choices`` holds what differs from the defaults), quiet hours in
    the player's time zone, and the language of texts."""

    player = models.OneToOneField("games.Player", on_delete=models.CASCADE, related_name="notify_preferences")
    choices = models.JSONField(default=dict)
    quiet_start = models.TimeField(null=True, blank=True)
    quiet_end = models.TimeField(null=True, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    language = models.CharField(max_length=8, default="en")

    def __str__(self) -> str:
        return f"Notification preferences of player {self.player_id}"

    def wants(self, kind: str, channel: str) -> bool:
        value = (self.choices.get(kind) or {}).get(channel)
        return default_on(channel) if value is None else bool(value)

    def quiet_at(self, now: dt.datetime) -> bool:
        if self.quiet_start is None or self.quiet_end is None or self.quiet_start == self.quiet_end:
            return False
        from zoneinfo import ZoneInfo

        local = now.astimezone(ZoneInfo(self.time_zone)).time()
        if self.quiet_start < self.quiet_end:
            return self.quiet_start <= local < self.quiet_end
        return local >= self.quiet_start or local < self.quiet_end  # over midnight


def default_on(channel: str) -> bool:
    """Push on for every kind, e-mail off."""
    return channel != "email"


class Delivery(models.Model):
    """One notification to one target. Unique per (notification, target): a fan-out that runs twice
    writes no second row, and a worker sends a row only while it holds its lease."""

    notification = models.ForeignKey("streams.Notification", on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=32)
    channel = models.CharField(max_length=10, choices=[(c, c) for c in CHANNELS])
    #: "web_push:<id>", "fcm:<id>", "apns:<id>" or "email:<address id>"; kept when the target is deleted.
    target = models.CharField(max_length=40)
    subscription = models.ForeignKey(PushSubscription, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    device = models.ForeignKey(Device, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    outcome = models.CharField(max_length=10, choices=[(o, o) for o in OUTCOMES], default="pending")
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    #: Set while a worker sends it; past it that worker is taken for dead and the sweep sends it again.
    lease_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["notification", "target"], name="delivery_unique_target")]
        indexes = [models.Index(fields=["outcome", "next_attempt_at"], name="notify_delivery_due"),
                   models.Index(fields=["player", "game", "kind"], name="notify_delivery_game")]

    def __str__(self) -> str:
        return f"{self.channel} delivery {self.pk} ({self.kind}, {self.outcome})"


class Outbox(models.Model):
    """A notification whose deliveries are still to be written and sent: written in the move's own
    transaction (so a committed move always has it, whatever the broker does), taken in batches by the
    deliveries process's reader (notify.reader), deleted in the transaction that writes its
    :class:`Delivery` rows. No foreign key: an insert on the move path checks nothing more, and a
    notification deleted meanwhile is skipped by the reader."""

    notification_id = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"notification {self.notification_id} to fan out"
