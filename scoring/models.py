"""Round results, league standings and ratings.

`RoundResult` + `PlayerResult` are the round results: written once per finished round, in the
transaction of the last move, never updated (a round recorded on a league's scoresheet is written
by `scoring.sheet`; only its derived `status` and `counted` move). `Standing` is a materialized sum
of the results per (league, season, player), kept in step by `scoring.seasons.step_count` so the
standings read is one query; `standings_recompute` rebuilds it from the round results and
`verify_standings` proves that the two agree. `LeagueResignation` and `SheetMark` (a recorded
round's confirmation or dispute, the owner's next season) are the results' other rows, in order
with the rounds; `Season` and `RaceStep` are derived like the standings.

`Rating` (one per player and rule set) and `RatingPoint` (one per player and rated round) are
derived from the round results the same way: `scoring.ratings` rates a round in the transaction that
records it, `ratings_recompute` replays every rated round in id order and `verify_ratings` compares.

`League` itself is a model of the stored game (``games.models``): tables point at it, and foreign
keys point downwards only. Its table kept its name, ``scoring_league``, when it moved there.
"""

from __future__ import annotations

from django.db import models

from games.models import RULE_SET_CHOICES


class RoundResult(models.Model):
    """One finished round (game): the header row of the round results.

    `counted` is False for a round that ended after its league was already finished
    (it started before the limit was reached): it stays in the round results but the frozen
    standings do not move. It is False for a `practice` round too (a chosen seed or setup):
    such a round is recorded and shown, marked, but never counts in standings, scoreboards'
    totals, statistics or ratings (`rated` is False for it).
    """

    COUNTED, PENDING, DISPUTED, CORRECTED, VOID = "counted", "pending", "disputed", "corrected", "void"
    SOURCES = [("played", "played"), ("recorded", "recorded")]
    SHEET_STATUSES = [("counted", "counted"), ("pending", "pending"), ("disputed", "disputed"),
                      ("corrected", "corrected"), ("void", "void")]

    #: Null for a `recorded` round (played with real cards, written on the league's scoresheet).
    game = models.OneToOneField("games.Game", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="round_result")
    table = models.ForeignKey("games.Table", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="round_results")
    league = models.ForeignKey("games.League", null=True, blank=True, on_delete=models.PROTECT,
                               related_name="round_results")
    #: `played` through the service, or `recorded` by a scorekeeper (`scoring.sheet`). Recorded rounds
    #: count in league standings and seasons, never in ratings, statistics or scoreboards.
    source = models.CharField(max_length=8, choices=SOURCES, default="played")
    #: The league season the round belongs to (1 outside a league).
    season = models.PositiveIntegerField(default=1)
    #: Where the round stands on the sheet, derived from the round results (its `SheetMark`s and corrections):
    #: a played round is `counted` (or, ended after its season, `void`); a recorded one is `pending` until
    #: confirmed or disputed, `corrected` once a correction of it counts, `void` if its season ended first.
    status = models.CharField(max_length=10, choices=SHEET_STATUSES, default="counted")
    #: A recorded round's scorekeeper.
    recorded_by = models.ForeignKey("games.Player", null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="rounds_recorded")
    #: The recorded round this entry corrects: once this one counts, that one no longer does.
    corrects = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="corrections")
    number = models.PositiveIntegerField(default=0)
    rules = models.CharField(max_length=16, choices=RULE_SET_CHOICES)
    scoring = models.CharField(max_length=16)
    reason = models.CharField(max_length=16)
    winner = models.ForeignKey(
        "games.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="rounds_won"
    )
    multiplier = models.PositiveIntegerField(default=1)
    counted = models.BooleanField(default=True)
    practice = models.BooleanField(default=False)
    #: Whether the round moved ratings: decided once when it was recorded (not practice, and no bot
    #: played most of a person's turns: see `scoring.ratings.ratings_locked`); the recompute replays these.
    rated = models.BooleanField(default=False)
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["league", "id"], name="scoring_round_league_id"),
                   models.Index(fields=["league", "season", "id"], name="scoring_round_league_season")]

    def __str__(self) -> str:
        return f"round {self.number} of table {self.table_id} ({self.reason})"


class PlayerResult(models.Model):
    """One player's line of a finished round, copied from the engine's `state.result`.

    `table`, `league`, `rules` and `finished_at` repeat the round's values so that the
    scoreboard, the player statistics and the recompute each read one table.
    """

    round = models.ForeignKey(RoundResult, on_delete=models.CASCADE, related_name="players")
    player = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="results")
    table = models.ForeignKey("games.Table", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="player_results")
    league = models.ForeignKey("games.League", null=True, blank=True, on_delete=models.PROTECT,
                               related_name="player_results")
    rules = models.CharField(max_length=16, choices=RULE_SET_CHOICES)
    seat = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField()
    cards_left = models.PositiveSmallIntegerField()
    raw_points = models.PositiveIntegerField()
    multiplier = models.PositiveIntegerField(default=1)
    points = models.PositiveIntegerField()
    won = models.BooleanField(default=False)
    multiplier_bonus = models.PositiveIntegerField(default=0)
    #: The round's `practice` mark, repeated so that totals leave practice out reading one table.
    practice = models.BooleanField(default=False)
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["round_id", "rank", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["round", "seat"], name="scoring_playerresult_round_seat"),
        ]
        indexes = [
            models.Index(fields=["table", "player"], name="scoring_result_table_player"),
            models.Index(fields=["player", "rules"], name="scoring_result_player_rules"),
            models.Index(fields=["player", "-finished_at"], name="scoring_result_player_recent"),
        ]

    def __str__(self) -> str:
        return f"player {self.player_id} seat {self.seat}: rank {self.rank}, {self.points} points"


class Standing(models.Model):
    """Materialized league total of one player in one season: the sum of their counted `PlayerResult` rows.

    A season's rows stay when the next one starts: they are its final standings.
    """

    league = models.ForeignKey("games.League", on_delete=models.CASCADE, related_name="standings")
    season = models.PositiveIntegerField(default=1)
    player = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="standings")
    rounds = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0)
    multiplier_bonus = models.PositiveIntegerField(default=0)
    #: The most points the player took in one counted round of the season.
    biggest_round = models.PositiveIntegerField(default=0)
    #: The player resigned the league (`LeagueResignation`): ranked last, no later line of theirs counts.
    resigned = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["league_id", "points"]
        constraints = [
            models.UniqueConstraint(fields=["league", "season", "player"],
                                    name="scoring_standing_league_season_player"),
        ]

    def __str__(self) -> str:
        return f"league {self.league_id} player {self.player_id}: {self.points} points"


class LeagueResignation(models.Model):
    """A player's resignation from a league: a row of the round results of its own.

    Written under the league row lock, as the rounds are, so `after_round` (the league's last
    round in the results at that moment; None if it had none) places it among them exactly: the
    replay applies it after that round and before every later one. What it means depends on the
    league (`scoring.services.league_resign`): with a limit, the resigner loses the league at once;
    without one, they are withdrawn and none of their later lines counts in it. One per player.
    """

    league = models.ForeignKey("games.League", on_delete=models.PROTECT, related_name="resignations")
    #: The season it resigned: a player withdrawn from one season plays the next one afresh.
    season = models.PositiveIntegerField(default=1)
    player = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="league_resignations")
    after_round = models.ForeignKey(RoundResult, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    resigned_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["league", "season", "player"], name="scoring_resignation_season_player"),
        ]

    def __str__(self) -> str:
        return f"player {self.player_id} resigned league {self.league_id} after round {self.after_round_id}"


class Season(models.Model):
    """One season of a league: from its start until a player reaches the limit (that player lost it) or
    the owner closes it. Its `Standing` rows are its standings, kept when the next one starts.

    `players` lists (id, name, bot) of everyone with a line in the season, in order of their first round,
    so that the race chart reads its names with the season row."""

    STATUSES = [("active", "active"), ("finished", "finished")]

    league = models.ForeignKey("games.League", on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=8, choices=STATUSES, default="active")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    loser = models.ForeignKey("games.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    #: Counted rounds (steps of the race) so far.
    steps = models.PositiveIntegerField(default=0)
    players = models.JSONField(default=list)

    class Meta:
        ordering = ["league_id", "number"]
        constraints = [models.UniqueConstraint(fields=["league", "number"], name="scoring_season_league_number")]

    def __str__(self) -> str:
        return f"league {self.league_id} season {self.number} ({self.status})"


class SheetMark(models.Model):
    """A round-results row that changes what counts on a league's sheet, besides a played round: the confirmation
    or dispute of a recorded round, or the owner starting the next season.

    Written under the league row lock; `after_round` (the league's last round result at that moment) and
    the row's id place it among the rounds, so the replay (`scoring.seasons.sheet_replay`) applies it at the
    same place. A league whose scorekeeper alone counts a round writes the confirmation with the recording.
    """

    #: `agree`: a player's confirmation that leaves others to confirm; `confirm`: the one that makes the round
    #: count (the last confirmation it needed, or the scorekeeper alone); `dispute`: of a pending round, or of
    #: a counted one by a scored player who did not confirm it (it leaves the standings).
    KINDS = [("agree", "agree"), ("confirm", "confirm"), ("dispute", "dispute"), ("season", "season")]

    league = models.ForeignKey("games.League", on_delete=models.CASCADE, related_name="sheet_marks")
    kind = models.CharField(max_length=8, choices=KINDS)
    round = models.ForeignKey(RoundResult, null=True, blank=True, on_delete=models.PROTECT, related_name="marks")
    player = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="+")
    after_round = models.ForeignKey(RoundResult, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["league", "id"], name="scoring_sheetmark_league")]

    def __str__(self) -> str:
        return f"{self.kind} of round {self.round_id} by player {self.player_id}"


class RaceStep(models.Model):
    """Every season player's total after one counted round (or correction) of the season: the race chart.

    Derived from the round results and written with the standings; `totals` maps player ids (as strings) to points.
    """

    league = models.ForeignKey("games.League", on_delete=models.CASCADE, related_name="+", db_index=False)
    season = models.PositiveIntegerField()
    step = models.PositiveIntegerField()
    round = models.ForeignKey(RoundResult, on_delete=models.CASCADE, related_name="+", db_constraint=False,
                              db_index=False)
    totals = models.JSONField(default=dict)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["league", "season", "step"], name="scoring_race_step")]

    def __str__(self) -> str:
        return f"league {self.league_id} season {self.season} step {self.step}"


class Rating(models.Model):
    """A player's skill under one rule set: OpenSkill's Plackett-Luce `mu` and `sigma` after their
    `rounds` rated rounds, and the displayed conservative value `rating` = mu - 3 sigma (OpenSkill's
    ordinal), stored so that the leaderboard reads it from an index. `bot` repeats the player's mark
    (it never changes) so that the index keeps people and bots apart."""

    #: No index of its own: the unique (player, rules) leads with it. A rated round rewrites its rows
    #: with a new `rating`, which is indexed (the leaderboard), so every index of the table takes a new
    #: entry per player and round; two that others made redundant cost that for nothing.
    player = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="ratings", db_index=False)
    rules = models.CharField(max_length=16, choices=RULE_SET_CHOICES)
    bot = models.BooleanField(default=False)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField()
    rounds = models.PositiveIntegerField(default=0)
    #: The last round that moved it (its result id): the history's newest point. No database constraint
    #: (see `RatingPoint`) and no index: nothing looks ratings up by it (a round result is never deleted).
    last_round = models.ForeignKey(RoundResult, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                   db_constraint=False, db_index=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "rules"], name="scoring_rating_player_rules")]
        #: One index serves both leaderboards: people only is one range of it, everyone is the merge of
        #: its two ranges (`scoring.selectors.leaderboard`). Two indexes (everyone's and a partial one of
        #: people) would make every rated round's move write one index entry more per player (bench.ratings).
        indexes = [models.Index(fields=["rules", "bot", "-rating", "player"], name="scoring_rating_boards")]

    def __str__(self) -> str:
        return f"player {self.player_id} {self.rules}: {self.rating:.2f} ({self.rounds} rounds)"


class RatingPoint(models.Model):
    """One player's rating after one rated round: the history, one point per rated round.

    Its references (and `Rating.last_round`) have no database constraint: PostgreSQL checks each
    referenced row when the transaction commits, twelve checks for a four-player round, which the move
    that ends it would pay for (bench.ratings; the round's result lines check the same rows). The rows
    are derived from the round results and counted only by `scoring.ratings`; `verify_ratings` finds a
    point or rating that disagrees with the round results, and Django still applies `on_delete`.
    Their own indexes: the unique (round, player) and the history's (player, rules, round) lead with them."""

    round = models.ForeignKey(RoundResult, on_delete=models.CASCADE, related_name="rating_points",
                              db_constraint=False, db_index=False)
    player = models.ForeignKey("games.Player", on_delete=models.PROTECT, related_name="rating_points",
                               db_constraint=False, db_index=False)
    rules = models.CharField(max_length=16, choices=RULE_SET_CHOICES)
    rank = models.PositiveSmallIntegerField()
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "player"], name="scoring_ratingpoint_round_player")]
        indexes = [models.Index(fields=["player", "rules", "-round"], name="scoring_ratingpoint_history")]

    def __str__(self) -> str:
        return f"player {self.player_id} after round {self.round_id}: {self.rating:.2f}"
