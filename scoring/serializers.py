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


class StandingsOutput(serializers.Serializer):
    league = LeagueOutput()
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
