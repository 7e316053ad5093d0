"""Finding opponents and talking at a table: seeks (quick play), challenges, table chat and mutes.

Kept apart from ``games`` because none of it is a round: the lobby only brings players to a table,
and creates tables and starts rounds through ``play.services`` like any client would.
"""

from __future__ import annotations

from django.db import models


class Seek(models.Model):
    """One player waiting for others who want the same game (``pool``: rules, options, players, league).

    ``open`` until matched (``table``/``game`` set), cancelled by its player (or the deletion of their
    account), filled with bots once ``fill_at`` has passed (when it asked for that), or expired after
    ``MAUMAU_SEEK_EXPIRES_SECONDS`` without people (when it did not)."""

    STATUS = [(s, s) for s in ("open", "matched", "cancelled", "expired")]

    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="seeks")
    rules = models.CharField(max_length=16)
    options = models.JSONField()
    players = models.PositiveSmallIntegerField()
    league = models.ForeignKey("games.League", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    #: sha256 of what must be equal for two seeks to be matched (see ``lobby.services.pool_of``).
    pool = models.CharField(max_length=64)
    fill_with_bots_after = models.PositiveIntegerField(null=True, blank=True)
    fill_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=STATUS, default="open")
    table = models.ForeignKey("games.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    matched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "pool", "id"], name="seek_open_pool"),
                   models.Index(fields=["status", "fill_at"], name="seek_fill_due")]
        constraints = [models.UniqueConstraint(fields=["player", "pool"], condition=models.Q(status="open"),
                                               name="seek_one_open_per_pool")]

    def __str__(self) -> str:
        return f"Seek {self.pk} ({self.rules} x{self.players}, {self.status})"


class Challenge(models.Model):
    """An invitation of named players to a new table; it starts when all accepted."""

    STATUS = [(s, s) for s in ("open", "started", "declined", "expired", "cancelled")]

    challenger = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="challenges_sent")
    rules = models.CharField(max_length=16)
    options = models.JSONField()
    max_players = models.PositiveSmallIntegerField()
    visibility = models.CharField(max_length=8, default="private")
    status = models.CharField(max_length=10, choices=STATUS, default="open")
    expires_at = models.DateTimeField()
    table = models.ForeignKey("games.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["status", "expires_at"], name="challenge_expiry")]

    def __str__(self) -> str:
        return f"Challenge {self.pk} ({self.status})"


class ChallengeInvitee(models.Model):
    ANSWERS = [(s, s) for s in ("pending", "accepted", "declined")]

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="invitees")
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="challenges_received")
    answer = models.CharField(max_length=8, choices=ANSWERS, default="pending")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["challenge", "player"], name="challenge_invitee_once")]
        ordering = ["id"]


class TableMessage(models.Model):
    """A chat line at a table: to its players, or (``spectators``) among its spectators."""

    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="messages")
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="+")
    spectators = models.BooleanField(default=False)
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["table", "spectators", "id"], name="message_table_id"),
                   models.Index(fields=["table", "player", "created_at"], name="message_rate")]
        ordering = ["id"]


class TableMute(models.Model):
    """The host muted this player's chat at this table."""

    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "player"], name="mute_once")]
