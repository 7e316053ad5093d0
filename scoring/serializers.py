"""Request and response shapes of the scoring endpoints (also their OpenAPI description)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.serializers import EffectiveOptionsField, RuleOptionsField
from maumau.names import NameField
from maumau.strict import StrictChoiceField, StrictSerializer

RULE_SETS = ["classic", "tavern", "house"]


class LeagueCreateInput(StrictSerializer):
    name = NameField(max_length=100, help_text="Shown in standings and in the player's leagues.")
    rules = StrictChoiceField(choices=RULE_SETS, help_text="Rule set of every table in the league.")
    options = RuleOptionsField(
        required=False,
        default=dict,
        help_text='Overrides of the rule set\'s options (as for tables), e.g. {"league_limit": 300}.',
    )
    visibility = StrictChoiceField(choices=["public", "private"], required=False, default="public",
                                   help_text="`private`: the league, its standings and its sheet are shown to its "
                                             "members only (404 to anyone else).")
    next_season = StrictChoiceField(choices=["owner", "auto"], required=False, default="owner",
                                    help_text="When a season ends at the limit: `owner` starts the next one "
                                              "(`POST leagues/{id}/seasons`), or it starts at once (`auto`).")
    scorekeeper_alone = serializers.BooleanField(required=False, default=False,
                                                 help_text="A recorded round counts at once, without another "
                                                           "player's confirmation.")


class LeagueResignInput(StrictSerializer):
    """No fields: the caller resigns (an empty body or `{}`; anything else is refused)."""


class PlayerRef(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.BooleanField()


def player_ref(player: Any) -> dict[str, Any] | None:
    if player is None:
        return None
    return {"id": player.pk, "name": player.name, "bot": player.is_bot}


class LeagueOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    rules = serializers.ChoiceField(choices=RULE_SETS)
    options = EffectiveOptionsField()
    scoring = serializers.ChoiceField(choices=["ranking", "wins", "points"])
    league_limit = serializers.IntegerField(help_text="Points that lose the league (house: 500); 0 = no limit.")
    status = serializers.ChoiceField(choices=["active", "finished"])
    loser = PlayerRef(allow_null=True, help_text="The player who reached the limit first, or resigned the league "
                                                 "(house).")
    created_by = PlayerRef(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    visibility = serializers.ChoiceField(choices=["public", "private"])
    next_season = serializers.ChoiceField(choices=["owner", "auto"])
    scorekeeper_alone = serializers.BooleanField()
    season = serializers.IntegerField(help_text="The current season, from 1. `status` and `loser` are its own.")
    members = serializers.IntegerField(help_text="Current members.")
    your_role = serializers.ChoiceField(choices=["owner", "scorekeeper", "member"], allow_null=True,
                                        help_text="The caller's role; null for a non-member.")
    invite_code = serializers.CharField(allow_null=True, help_text="Join with it (`POST leagues/{id}/join`); shown "
                                                                   "to members only, else null.")


def league_data(league: Any) -> dict[str, Any]:
    return {
        "id": league.pk,
        "name": league.name,
        "rules": league.rules,
        "options": league.options,
        "scoring": league.scoring,
        "league_limit": league.league_limit,
        "status": league.status,
        "loser": player_ref(league.loser),
        "created_by": player_ref(league.created_by),
        "created_at": league.created_at,
        "finished_at": league.finished_at,
        "visibility": league.visibility,
        "next_season": league.next_season,
        "scorekeeper_alone": league.scorekeeper_alone,
        "season": league.season,
        "members": getattr(league, "member_count", 0),
        "your_role": getattr(league, "your_role", None),
        "invite_code": league.invite_code if getattr(league, "your_role", None) else None,
    }


class StandingLine(serializers.Serializer):
    position = serializers.IntegerField(help_text="1 = best; equal points (wins in tavern) share a position.")
    player = PlayerRef()
    rounds = serializers.IntegerField()
    wins = serializers.IntegerField()
    points = serializers.IntegerField()
    multiplier_bonus = serializers.IntegerField(
        help_text="Sum over the player's wins of (multiplier - 1): extra jacks laid on the last card (house)."
    )
    reached_limit = serializers.BooleanField(help_text="points >= league_limit (house).")
    lost = serializers.BooleanField(help_text="This player lost the league: reached the limit first, or resigned "
                                              "a league with a limit.")
    resigned = serializers.BooleanField(help_text="This player resigned the league: ranked last; without a limit, "
                                                  "none of their later rounds counts in it.")
    rating = serializers.FloatField(allow_null=True, help_text="The member's rating under the league's rules "
                                                             "(mu - 3 sigma); null before a rated round.")
    display_rating = serializers.IntegerField(allow_null=True, help_text="round(1500 + 30 x rating): the familiar "
                                                                         "scale; null before a rated round.")
    rating_provisional = serializers.BooleanField(help_text="The rating rests on fewer than 10 rated rounds.")
    average_points = serializers.FloatField(help_text="points / rounds (0 before a round).")
    biggest_round = serializers.IntegerField(help_text="The most points the player took in one counted round.")


class StandingsOutput(serializers.Serializer):
    league = LeagueOutput()
    season = serializers.IntegerField(help_text="The season these standings are of.")
    standings = StandingLine(many=True)


class ScoreboardLine(serializers.Serializer):
    position = serializers.IntegerField()
    player = PlayerRef()
    rounds = serializers.IntegerField()
    wins = serializers.IntegerField()
    points = serializers.IntegerField()
    multiplier_bonus = serializers.IntegerField()


class ScoreboardOutput(serializers.Serializer):
    table = serializers.IntegerField()
    rules = serializers.ChoiceField(choices=RULE_SETS)
    scoring = serializers.ChoiceField(choices=["ranking", "wins", "points"])
    rounds = serializers.IntegerField(help_text="Rounds finished at this table (practice rounds left out).")
    practice_rounds = serializers.IntegerField(help_text="Practice rounds (a chosen seed or setup): never counted.")
    players = ScoreboardLine(many=True)


class StatsSummary(serializers.Serializer):
    rounds = serializers.IntegerField()
    wins = serializers.IntegerField()
    win_rate = serializers.FloatField(help_text="wins / rounds, 0 when no round was played.")
    points = serializers.IntegerField()
    average_points = serializers.FloatField()
    multiplier_bonus = serializers.IntegerField()


class StatsByRules(serializers.Serializer):
    classic = StatsSummary()
    tavern = StatsSummary()
    house = StatsSummary()


class StatsOutput(serializers.Serializer):
    player = PlayerRef()
    practice_rounds = serializers.IntegerField(help_text="Practice rounds played: left out of every total.")
    overall = StatsSummary()
    by_rules = StatsByRules()


class HistoryLine(serializers.Serializer):
    game = serializers.IntegerField(source="round.game_id")
    table = serializers.IntegerField(source="table_id")
    league = serializers.IntegerField(source="league_id", allow_null=True)
    round = serializers.IntegerField(source="round.number", help_text="Round number at its table.")
    rules = serializers.ChoiceField(choices=RULE_SETS)
    reason = serializers.ChoiceField(choices=["mau_mau", "stalemate", "max_turns", "resigned"],
                                     source="round.reason")
    rated = serializers.BooleanField(source="round.rated", help_text="Whether the round moved ratings.")
    seat = serializers.IntegerField()
    rank = serializers.IntegerField()
    cards_left = serializers.IntegerField()
    raw_points = serializers.IntegerField()
    multiplier = serializers.IntegerField()
    points = serializers.IntegerField()
    won = serializers.BooleanField()
    practice = serializers.BooleanField(help_text="A practice round (a chosen seed or setup): never counted.")
    finished_at = serializers.DateTimeField()


class HistoryOutput(serializers.Serializer):
    count = serializers.IntegerField()
    results = HistoryLine(many=True)


class LeaderboardLine(serializers.Serializer):
    position = serializers.IntegerField(help_text="1 = best, counted in this listing (people only or everyone).")
    player = PlayerRef()
    rating = serializers.FloatField(help_text="mu - 3 sigma (OpenSkill's ordinal): ranked by it.")
    display_rating = serializers.IntegerField(help_text="The rating on a familiar scale: round(1500 + 30 x rating), "
                                                      "1500 for a new player.")
    mu = serializers.FloatField(help_text="Estimated skill (OpenSkill Plackett-Luce; starts at 25).")
    sigma = serializers.FloatField(help_text="Uncertainty of mu (starts at 25/3, falls with rated rounds).")
    rounds = serializers.IntegerField(help_text="Rated rounds under this rule set.")
    provisional = serializers.BooleanField(help_text="Fewer rated rounds than `provisional_rounds` (10).")


class LeaderboardOutput(serializers.Serializer):
    rules = serializers.ChoiceField(choices=RULE_SETS)
    people_only = serializers.BooleanField()
    min_rounds = serializers.IntegerField(help_text="A player is listed from this many rated rounds under the rule "
                                          "set on (`MAUMAU_LEADERBOARD_MIN_ROUNDS`): a newer one is not yet.")
    provisional_rounds = serializers.IntegerField(help_text="A rating is provisional below this many rated rounds.")
    results = LeaderboardLine(many=True)
    next = serializers.CharField(allow_null=True, help_text="Pass as `after` for the next page; null on the last.")


class RatingPointOutput(serializers.Serializer):
    game = serializers.IntegerField(help_text="The rated round.")
    finished_at = serializers.DateTimeField()
    rank = serializers.IntegerField(help_text="The player's rank in that round (ties share one).")
    rating = serializers.FloatField(help_text="mu - 3 sigma after the round.")
    display_rating = serializers.IntegerField(help_text="The rating on a familiar scale: round(1500 + 30 x rating), "
                                                      "1500 for a new player.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()


class RuleSetRating(serializers.Serializer):
    rating = serializers.FloatField(help_text="mu - 3 sigma (0 before any rated round).")
    display_rating = serializers.IntegerField(help_text="The rating on a familiar scale: round(1500 + 30 x rating), "
                                                      "1500 for a new player.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rounds = serializers.IntegerField()
    provisional = serializers.BooleanField()
    history = RatingPointOutput(many=True, help_text="The newest points (one per rated round), oldest first.")


class RatingsByRules(serializers.Serializer):
    classic = RuleSetRating()
    tavern = RuleSetRating()
    house = RuleSetRating()


class PlayerRatingsOutput(serializers.Serializer):
    player = PlayerRef()
    provisional_rounds = serializers.IntegerField(help_text="A rating is provisional below this many rated rounds.")
    ratings = RatingsByRules()


# --- members, seasons and the scoresheet ----------------------------------------------------------

#: Bounds of what a client sends to the scoresheet (the deck decides the rest: `scoring.sheet`).
SHEET_POINTS_MAX = 10_000
SHEET_JACKS_MAX = 16
SHEET_PAGE_MAX = 1000
ID_MAX = 999_999_999_999_999_999


class LeagueJoinInput(StrictSerializer):
    code = serializers.CharField(max_length=64, help_text="The league's invite code (from its invite link).")


class LeagueLeaveInput(StrictSerializer):
    """No fields: the caller leaves."""


class MemberRoleInput(StrictSerializer):
    role = StrictChoiceField(choices=["scorekeeper", "member"], help_text="The owner's role does not change.")


class MemberLine(serializers.Serializer):
    player = PlayerRef()
    role = serializers.ChoiceField(choices=["owner", "scorekeeper", "member"])
    joined_at = serializers.DateTimeField()


class MembersOutput(serializers.Serializer):
    results = MemberLine(many=True)


class SeasonOutput(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["active", "finished"])
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    loser = PlayerRef(allow_null=True, help_text="Who reached the limit (or resigned it): lost the season.")
    rounds = serializers.IntegerField(help_text="Rounds played (or recorded) that count, as the standings count "
                                      "them: a correction replaces a round, it is not one more.")
    corrections = serializers.IntegerField(help_text="Corrections that count: each is a step of the race.")
    steps = serializers.IntegerField(help_text="Steps of the race: `rounds` + `corrections`.")


class SeasonsOutput(serializers.Serializer):
    results = SeasonOutput(many=True)


class SeasonStartInput(StrictSerializer):
    """No fields: the owner closes the current season (without a limit) and/or starts the next one."""


class SheetLineInput(StrictSerializer):
    player = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    cards = serializers.ListField(child=serializers.CharField(max_length=4), max_length=60, required=False,
                                  help_text="Cards left in hand (card codes of the league's deck).")
    points = serializers.IntegerField(min_value=0, max_value=SHEET_POINTS_MAX, required=False,
                                      help_text="Or the hand's value in points, before any multiplier.")


class RoundRecordInput(StrictSerializer):
    players = SheetLineInput(many=True, max_length=16,
                             help_text="In seat order; the winner with no cards (or 0 points).")
    winner = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    extra_jacks = serializers.IntegerField(min_value=0, max_value=SHEET_JACKS_MAX, required=False, default=0,
                                           help_text="Extra jacks laid on the last card (house): multiplier = 1 + "
                                                     "extra jacks.")
    corrects = serializers.IntegerField(min_value=1, max_value=ID_MAX, required=False, allow_null=True,
                                        default=None, help_text="The recorded round this entry corrects.")


class RoundActionInput(StrictSerializer):
    """No fields: confirm or dispute the round."""


class SheetPlayerLine(serializers.Serializer):
    player = PlayerRef()
    seat = serializers.IntegerField()
    rank = serializers.IntegerField()
    cards_left = serializers.IntegerField(help_text="0 when the scorekeeper gave points instead of cards.")
    raw_points = serializers.IntegerField(help_text="The hand's value before the multiplier.")
    points = serializers.IntegerField()
    won = serializers.BooleanField()


class SheetMarkOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["confirm", "dispute"])
    player = PlayerRef()
    at = serializers.DateTimeField()


class LeagueRoundOutput(serializers.Serializer):
    id = serializers.IntegerField()
    season = serializers.IntegerField()
    source = serializers.ChoiceField(choices=["played", "recorded"])
    status = serializers.ChoiceField(choices=["counted", "pending", "disputed", "corrected", "void"],
                                     help_text="`counted` rounds are in the standings; `void`: its season ended "
                                               "before it counted.")
    game = serializers.IntegerField(allow_null=True, help_text="The played round (null for a recorded one).")
    recorded_by = PlayerRef(allow_null=True)
    corrects = serializers.IntegerField(allow_null=True)
    winner = serializers.IntegerField(allow_null=True, help_text="The winner's player id.")
    multiplier = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    players = SheetPlayerLine(many=True)
    confirmations = SheetMarkOutput(many=True)
    waiting_for = PlayerRef(many=True, help_text="A pending recorded round: the players it (or the entry it "
                                                 "corrects) scores, all but the winner, who have not confirmed it "
                                                 "yet; empty when it scores nobody but its recorder (then one other "
                                                 "player of it confirms), and for any other round.")


class LeagueRoundsOutput(serializers.Serializer):
    results = LeagueRoundOutput(many=True)
    next = serializers.IntegerField(allow_null=True, help_text="Pass as `after` for the next page; null on the last.")


class RacePlayer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.BooleanField()


class RaceStepOutput(serializers.Serializer):
    round = serializers.IntegerField(help_text="The step: the season's k-th counted round (or correction).")
    id = serializers.IntegerField(help_text="The round (or correcting entry) counted at this step.")
    totals = serializers.DictField(child=serializers.IntegerField(), help_text="Points per player id after it.")
    corrects = serializers.IntegerField(allow_null=True, help_text="Set when the step is a correction: the entry "
                                        "it corrects (a step of the race, not a round played); null for a round.")


class RaceOutput(serializers.Serializer):
    season = serializers.IntegerField()
    limit = serializers.IntegerField(allow_null=True, help_text="The league's limit (null: none).")
    players = RacePlayer(many=True)
    results = RaceStepOutput(many=True)
    next = serializers.IntegerField(allow_null=True, help_text="Pass as `after` for the next page; null on the last.")


class SeasonExportOutput(serializers.Serializer):
    league = serializers.IntegerField()
    season = SeasonOutput()
    standings = StandingLine(many=True)
    rounds = LeagueRoundOutput(many=True)
