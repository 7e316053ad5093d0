"""Notifications (what a player is told), webhooks (where else to tell it) and their deliveries.

A :class:`Notification` is written once per player and event; ``/me/stream`` sends them with
``id`` = the row id, so ``Last-Event-ID`` resumes exactly. Each matching :class:`Webhook`
gets one :class:`WebhookDelivery` per notification, whose status the player can list.
"""

from __future__ import annotations

import secrets

from django.db import models

KINDS = ["your_turn", "round_started", "round_over", "deadline_soon", "league_over", "season_over", "player_joined",
         # the lobby's (lobby.services): a seek or challenge seated you; a challenge to you and its answers
         "game_started", "challenge_received", "challenge_accepted", "challenge_declined", "challenge_cancelled",
         "challenge_expired"]


class Notification(models.Model):
    #: No index of its own: the (player, id) index serves every look-up by player.
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="notifications",
                               db_index=False)
    kind = models.CharField(max_length=32, choices=[(k, k) for k in KINDS])
    table = models.ForeignKey("games.Table", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["player", "id"], name="notification_player_id")]
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} for player {self.player_id}"

    def payload(self) -> dict[str, object]:
        """What the stream and the webhooks send: the same JSON in both places."""
        return {
            "id": self.pk,
            "kind": self.kind,
            "table": self.table_id,
            "game": self.game_id,
            "data": self.data,
            "created_at": self.created_at.isoformat().replace("+00:00", "Z"),
        }


def new_secret() -> str:
    return "whsec_" + secrets.token_hex(24)


class WebhookSecret(models.Model):
    """The player's signing secret: one per player, shared by their webhooks, rotatable."""

    player = models.OneToOneField("games.Player", on_delete=models.CASCADE, related_name="webhook_secret")
    secret = models.CharField(max_length=80, default=new_secret)
    created_at = models.DateTimeField(auto_now=True)


class Webhook(models.Model):
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    #: Notification kinds to deliver; ["*"] means all.
    events = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Webhook {self.pk} of player {self.player_id}"

    def wants(self, kind: str) -> bool:
        return "*" in self.events or kind in self.events


class WebhookDelivery(models.Model):
    STATUS = [(s, s) for s in ("pending", "retrying", "delivered", "failed")]

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32)
    #: The exact JSON body sent on every attempt (the signature covers it with a fresh timestamp).
    body = models.TextField()
    status = models.CharField(max_length=10, choices=STATUS, default="pending")
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    #: Set while a worker attempts it: past this time that worker is taken for dead and the sweep
    #: queues the delivery again (streams.webhooks.delivery_attempt).
    lease_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="delivery_due"),
                   models.Index(fields=["status", "lease_until"], name="delivery_leased")]

    def __str__(self) -> str:
        return f"Delivery {self.pk} ({self.event}, {self.status})"
