"""Players, tables, seats, games (rounds) and the append-only move ledger.

The game row holds the engine's state snapshot and ``version`` (= ledger rows applied), so
a move needs one locked row, not a replay. The ledger (:class:`Move`) is the truth for audits:
each row carries ``hash = sha256(prev_hash + canonical JSON of the row)``, and
``manage.py verify_ledger`` replays every game from its rules, seed/setup and ledger.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from django.conf import settings
from django.db import models
from django.utils import timezone

from games import engine

RULE_SET_CHOICES = [("classic", "classic"), ("tavern", "tavern"), ("house", "house")]


class Player(models.Model):
    """A person or a bot account (with an auth user and tokens), or a server bot (no user).

    ``is_bot``: a program plays this player (a server bot, or an account marked as a bot at sign-up),
    shown as ``bot`` in every view. Whether someone is there to be told things (notifications, the
    host's role) goes by having a user."""

    BOT_LEVELS = [("random", "random"), ("easy", "easy"), ("medium", "medium"), ("hard", "hard")]

    name = models.CharField(max_length=64)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="player"
    )
    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=16, blank=True, default="")
    #: Whether the player has an active webhook, kept by the streams app's webhook services, so that
    #: a move knows whom to look up deliveries for without joining the streams app's tables.
    has_webhook = models.BooleanField(default=False)
    #: Whether the player has a push subscription, a device or a verified e-mail address, kept by the
    #: notify app's services, so that a move queues notify work only for players it could reach.
    has_notify_target = models.BooleanField(default=False)
    #: The player's last authenticated request, written at most once per ``MAUMAU_PRESENCE_WRITE_SECONDS``
    #: (``games.presence``): each seat shows it, so the others know whether to wait.
    last_seen_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.name} ({'bot' if self.is_bot else 'player'} {self.pk})"


class League(models.Model):
    """Rounds of many tables that share one rule set and one running total per player.

    `options` are the effective options (``RuleSet.to_json()``); `league_limit` among them
    ends a `house` league: the first player to reach it loses (see `services`).
    """

    STATUS_ACTIVE = "active"
    STATUS_FINISHED = "finished"
    STATUS_CHOICES = [(STATUS_ACTIVE, "active"), (STATUS_FINISHED, "finished")]
    VISIBILITY = [("public", "public"), ("private", "private")]
    NEXT_SEASON = [("auto", "auto"), ("owner", "owner")]

    name = models.CharField(max_length=100)
    rules = models.CharField(max_length=16, choices=RULE_SET_CHOICES)
    options = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=STATUS_ACTIVE)
    loser = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.PROTECT, related_name="leagues_lost"
    )
    created_by = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="leagues_created"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: ``private``: the league, its standings and its sheet are shown to its members only (404 to others).
    visibility = models.CharField(max_length=8, choices=VISIBILITY, default="public")
    #: The secret of the invite link: a player who has it joins; shown to members only.
    invite_code = models.CharField(max_length=32, blank=True, default="")
    #: The current season (from 1). `status`, `loser` and `finished_at` above are the current season's.
    season = models.PositiveIntegerField(default=1)
    #: Whether the next season starts by itself when one ends at the limit (``auto``) or when the owner starts it.
    next_season = models.CharField(max_length=8, choices=NEXT_SEASON, default="owner")
    #: Whether a recorded round counts once its scorekeeper recorded it, without another player's confirmation.
    scorekeeper_alone = models.BooleanField(default=False)

    class Meta:
        db_table = "scoring_league"  # the table kept its name when the model moved down from scoring
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.rules})"

    @property
    def league_limit(self) -> int:
        """Points that lose the league (`house`: 500); 0 means the league never ends."""
        return int(self.options.get("league_limit") or 0)

    @property
    def scoring(self) -> str:
        """How rounds are compared: "ranking" (classic), "wins" (tavern) or "points" (house)."""
        return str(self.options.get("scoring") or {"classic": "ranking", "tavern": "wins"}.get(self.rules, "points"))

    @property
    def is_finished(self) -> bool:
        return self.status == self.STATUS_FINISHED


class LeagueMember(models.Model):
    """A player's membership of a league: who plays at its tables and appears on its sheet.

    The creator is the ``owner``; the owner names ``scorekeeper``s (they record rounds played with real
    cards); everyone else is a ``member``. Leaving sets ``left_at``: the row stays, as do their rounds;
    joining again clears it.
    """

    ROLES = [("owner", "owner"), ("scorekeeper", "scorekeeper"), ("member", "member")]

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="members")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="league_memberships")
    role = models.CharField(max_length=12, choices=ROLES, default="member")
    joined_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["league", "player"], name="games_leaguemember_league_player")]

    def __str__(self) -> str:
        return f"player {self.player_id} {self.role} of league {self.league_id}"

    @property
    def keeps_score(self) -> bool:
        return self.left_at is None and self.role in ("owner", "scorekeeper")


class Table(models.Model):
    """A room: rule set with effective options, a host, seats, rounds played one after another."""

    STATUS = [("open", "open"), ("playing", "playing"), ("closed", "closed")]
    VISIBILITY = [("public", "public"), ("private", "private")]
    SPECTATORS = [("anyone", "anyone"), ("invited", "invited"), ("nobody", "nobody")]

    host = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="hosted_tables")
    #: ``private``: listed and shown only to its seated players; joined only with ``invite_code``; never watched.
    visibility = models.CharField(max_length=8, choices=VISIBILITY, default="public")
    #: The secret that lets a person join a private table, or watch a public one whose ``spectators``
    #: is ``invited``; shown to the table's seated players only.
    invite_code = models.CharField(max_length=32, blank=True, default="")
    spectators = models.CharField(max_length=8, choices=SPECTATORS, default="anyone")
    #: Spectators see a running round this many moves behind.
    spectator_delay = models.PositiveSmallIntegerField(default=0)
    rules = models.CharField(max_length=16)
    options = models.JSONField()
    max_players = models.PositiveSmallIntegerField()
    league = models.ForeignKey(
        League, null=True, blank=True, on_delete=models.PROTECT, related_name="tables"
    )
    status = models.CharField(max_length=8, choices=STATUS, default="open")
    rounds_started = models.PositiveIntegerField(default=0)
    #: The secret server seed of the next fair round, fixed before the players' entropy is final;
    #: only its SHA-256 (``next_commitment``) is shown until that round is over (``games.fairness``).
    next_seed = models.CharField(max_length=64, blank=True, default="")
    next_commitment = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"])]

    def invite_code_matches(self, code: object) -> bool:
        """Whether ``code`` is this table's invite code, in constant time. Compared as UTF-8 bytes:
        ``compare_digest`` refuses a ``str`` with non-ASCII characters, and such a code simply does not match."""
        return (isinstance(code, str) and bool(self.invite_code)
                and secrets.compare_digest(code.encode("utf-8", "surrogatepass"), self.invite_code.encode()))

    def __str__(self) -> str:
        return f"Table {self.pk} ({self.rules}, {self.status})"


class Seat(models.Model):
    """A place at a table. ``bot_controlled``: a bot moves for it (a bot, or a person who left)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    bot_controlled = models.BooleanField(default=False)
    left = models.BooleanField(default=False)
    consecutive_timeouts = models.PositiveIntegerField(default=0)
    #: The player's own entropy for the next fair round ("" = none given; used up by a round).
    entropy = models.CharField(max_length=64, blank=True, default="")
    #: The server nonce recorded when the seat was taken, mixed in for a seat that gave no entropy.
    nonce = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "position"], name="seat_unique_position")]
        ordering = ["position"]

    def __str__(self) -> str:
        return f"Seat {self.position} at table {self.table_id}"


class Game(models.Model):
    """One round. ``state`` is the engine's state without its rules (they are in ``rules``, once;
    see :meth:`engine_state`); ``seed`` and the state are secret until the round is over.

    A fair round keeps the server seed in ``seed``, its SHA-256 in ``commitment`` and each game
    seat's entropy in ``entropy``; it is dealt from ``engine.deal_seed(seed, entropy values)``. A
    practice round (a chosen ``seed`` or a ``setup``) has ``practice`` set and never counts. Rounds
    from before fair dealing have neither (``entropy`` null): they are dealt from ``seed`` itself.
    """

    STATUS = [("active", "active"), ("finished", "finished")]

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField()
    rules = models.JSONField()
    seed = models.CharField(max_length=128)
    practice = models.BooleanField(default=False)
    commitment = models.CharField(max_length=64, blank=True, default="")
    #: Per game seat: {"value": the string mixed in, "source": "player" | "server"}; null before fair dealing.
    entropy = models.JSONField(null=True, blank=True)
    #: The practice deal (hands, starter, stock, first) when the round started from a setup.
    setup = models.JSONField(null=True, blank=True)
    first = models.PositiveSmallIntegerField(default=0)
    #: Table seat positions in game-seat order: game seat i is table position positions[i].
    positions = models.JSONField(default=list)
    state = models.JSONField()
    version = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=8, choices=STATUS, default="active")
    turn = models.PositiveSmallIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    hermann_deadline = models.DateTimeField(null=True, blank=True)
    #: When the turn's "deadline soon" reminder is due (streams.services.reminder_at); the clock sweep
    #: sends it and clears this, a new turn sets it anew.
    reminder_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    #: Hash of the last ledger row ("" before the first): saves a query per move.
    ledger_head = models.CharField(max_length=64, default="", blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="game_unique_number")]
        # The clock sweep's queries (play.clocks.deadlines_sweep): passed turn deadlines, open Hermann
        # races and due reminders; only a few rows carry the last two.
        indexes = [models.Index(fields=["status", "deadline"]),
                   models.Index(fields=["hermann_deadline"], name="game_hermann_deadline",
                                condition=models.Q(hermann_deadline__isnull=False)),
                   models.Index(fields=["reminder_at"], name="game_reminder_at",
                                condition=models.Q(reminder_at__isnull=False))]

    def __str__(self) -> str:
        return f"Game {self.pk} (table {self.table_id} round {self.number}, v{self.version})"

    def deal_seed(self) -> str:
        """The seed the deck was shuffled from: mixed from the server seed and the seats' entropy in a
        fair round, the seed itself in a practice round or one from before fair dealing."""
        if self.entropy is None:
            return self.seed
        return engine.deal_seed(self.seed, [part["value"] for part in self.entropy])

    def engine_state(self) -> engine.GameState:
        """The snapshot as the engine's state, with this round's rules."""
        return engine.GameState.from_json(self.state, engine.RuleSet.from_json(self.rules))

    def state_set(self, state: engine.GameState) -> None:
        """Store ``state`` as the snapshot, without the rules ``rules`` already holds."""
        self.state = state.to_json(with_rules=False)

    def seats_in_order(self, table_seats: Iterable[Seat]) -> list[Seat]:
        """This round's seats in game-seat order, from its table's seats (seats are never deleted)."""
        at = {seat.position: seat for seat in table_seats}
        return [at[position] for position in self.positions]


class Move(models.Model):
    """One applied action: append-only, hash-chained. ``events`` are UNREDACTED (redact on read)."""

    ACTORS = [("player", "player"), ("bot", "bot"), ("clock", "clock"), ("system", "system")]

    #: No index of its own: the unique (game, seq) index serves every look-up by game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    actor = models.CharField(max_length=8, choices=ACTORS)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="moves")
    action = models.JSONField()
    events = models.JSONField()
    created_at = models.DateTimeField()
    prev_hash = models.CharField(max_length=64, blank=True, default="")
    hash = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="move_unique_seq")]
        ordering = ["game", "seq"]

    def __str__(self) -> str:
        return f"Move {self.seq} of game {self.game_id}"

    def save(self, *args: object, **kwargs: object) -> None:
        """Append-only: a row that already exists is never written again."""
        if self.pk is not None and not self._state.adding:
            raise ValueError("ledger rows are append-only")
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise ValueError("ledger rows are append-only")


class IdempotencyRecord(models.Model):
    """The first answer to a write sent with an Idempotency-Key, replayed to retries."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="idempotency_records")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "key"], name="idempotency_unique_key")]
