"""What a season's end says away from the board: which season, who won, what comes next, in the
player's language; it opens the league."""

from __future__ import annotations

import pytest

from notify import texts
from streams.models import Notification


def season_over(next_season: int | None) -> Notification:
    return Notification(player_id=1, kind="season_over", table_id=7, data={
        "league": 12, "name": "Stammtisch", "season": 3, "loser": 2, "next_season": next_season,
        "winners": [{"id": 1, "name": "Ada", "bot": False}, {"id": 4, "name": "Cleo", "bot": False}]})


@pytest.mark.parametrize(("language", "next_season", "title", "body"), [
    ("en", 4, "Season over", "Season 3 of the league Stammtisch is over. Won by Ada, Cleo. Season 4 has begun."),
    ("de", None, "Saison vorbei",
     "Saison 3 der Liga Stammtisch ist vorbei. Gewonnen von Ada, Cleo. Der Besitzer startet die nächste."),
    ("fr", 4, "Saison terminée",
     "La saison 3 de la ligue Stammtisch est terminée. Gagnée par Ada, Cleo. La saison 4 a commencé."),
])
def test_a_season_end_is_told_in_the_players_language(settings, language, next_season, title, body):
    settings.MAUMAU_PUBLIC_URL = "https://maumau.example"
    note = season_over(next_season)

    assert texts.title_and_body(note, language) == (title, body)
    assert texts.game_url(note) == "https://maumau.example/#/league/12"
    assert texts.topic(note) == "seasonover-12"
