"""A recorded round's hands together are possible for the league's deck: the points given for all hands at
most what the cards nobody listed can be worth (one of them lies on the pile), every hand given in points
holds a card, and only the winner has no cards left."""

from __future__ import annotations

import pytest
from sheet_helpers import league_night, record

from games import engine
from games.models import League
from scoring.models import RoundResult

pytestmark = pytest.mark.django_db


def deck_of(league_id: int) -> list[str]:
    rules = engine.RuleSet.from_json(League.objects.get(pk=league_id).options)
    return engine.build_deck(rules.deck, rules.jokers)


def test_two_hands_each_worth_the_whole_deck_are_refused(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    whole = sum(engine.house_points(card) for card in deck_of(league["id"]))

    answer = record(ada, league["id"], [{"player": ada.player_id, "cards": []},
                                        {"player": bert.player_id, "points": whole},
                                        {"player": cleo.player_id, "points": whole}], ada.player_id, extra_jacks=3)

    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "points_exceed_deck"
    assert answer.json()["error"]["details"]["max"] == whole - min(map(engine.house_points, deck_of(league["id"])))
    assert RoundResult.objects.count() == 0


def test_the_points_of_a_hand_reach_what_the_cards_left_can_be_worth_and_no_more(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    deck = deck_of(league["id"])
    listed = [card for card in deck if card.startswith(("J", "X"))]  # every jack and joker in Cleo's hand
    left = sorted(engine.house_points(card) for card in deck if card not in listed)
    most = sum(left) - left[0]  # the cheapest card left lies on the pile

    over = record(ada, league["id"], [{"player": ada.player_id, "cards": []},
                                      {"player": bert.player_id, "points": most + 1},
                                      {"player": cleo.player_id, "cards": listed}], ada.player_id)
    exact = record(ada, league["id"], [{"player": ada.player_id, "cards": []},
                                       {"player": bert.player_id, "points": most},
                                       {"player": cleo.player_id, "cards": listed}], ada.player_id)

    assert (over.status_code, over.json()["error"]["code"]) == (400, "points_exceed_deck")
    assert exact.status_code == 201, exact.content


@pytest.mark.parametrize("empty", [{"cards": []}, {"points": 0}], ids=["no-cards", "no-points"])
def test_only_the_winner_has_no_cards_left(make_player, empty):
    league, (ada, bert, cleo) = league_night(make_player, 3)

    answer = record(ada, league["id"], [{"player": ada.player_id, "cards": []},
                                        {"player": bert.player_id, **empty},
                                        {"player": cleo.player_id, "points": 3}], ada.player_id)

    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "empty_hand"
    assert answer.json()["error"]["details"]["player"] == bert.player_id
    assert RoundResult.objects.count() == 0


def test_a_hand_in_points_holds_a_card_the_listed_hands_did_not(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    deck = deck_of(league["id"])

    answer = record(ada, league["id"], [{"player": ada.player_id, "cards": []},
                                        {"player": bert.player_id, "cards": deck[:-1]},
                                        {"player": cleo.player_id, "points": 2}], ada.player_id)

    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "too_many_cards")
    assert RoundResult.objects.count() == 0
