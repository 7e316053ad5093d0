"""The league's scoresheet: rounds played with real cards, recorded by a scorekeeper.

A recorded round is scored by the engine's own `round_result` (the same code as a played round), from
the cards left in each hand or from a hand's value in points, and written to the round results marked
`recorded`. The sheet must be possible for the league's deck (`round_scored`).

The players a round scores decide it (all but the winner: each holds cards worth points, or in tavern
scoring takes a lost round): it counts in the league's standings and seasons once every one of them has
confirmed it (the recorder's own line needs no confirmation; a round that scores nobody
else needs one other player of it), or at once when the league lets its scorekeeper alone count rounds.
A confirmation that leaves someone still to confirm is an `agree` mark, the one that completes the round
a `confirm` mark: the replay counts the round at the `confirm`. Any player of a pending round may dispute
it, and a disputed round never counts; a scored player may also dispute a round that counted without
their confirmation (the scorekeeper alone, or a round from before this rule) until its season ends, which
takes it out of the standings again. Nothing is edited in place: a wrong entry is corrected by a new entry
that names it (`corrects`), which needs the people scored by both entries; once it counts, the entry it
corrects no longer does (and counts again if the correction is disputed). Only current members record,
confirm or dispute. Recorded rounds never move ratings, statistics or scoreboards.

Every write locks the league row first, so two scorekeepers recording at once both land, one after the
other, and the round results' order is the order in which things counted (`scoring.seasons`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import engine
from games.models import League, LeagueMember, Player
from maumau import database_retry
from maumau.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError
from scoring import members, seasons
from scoring.models import PlayerResult, RoundResult, Season, SheetMark
from streams import services as stream_services

#: A hand typed in at most: the largest deck (french52 and 8 jokers).
HAND_MAX = 60


@dataclass
class SheetLine:
    """One player of a recorded round, in seat order: their cards left, or their hand's value in points."""

    player: int
    cards: list[str] | None = None
    points: int | None = None


def _refused(code: str, message: Any, **details: Any) -> DomainError:
    return DomainError(code, message, 400, details)


def _league_locked(league_id: int, player: Player) -> tuple[League, LeagueMember | None]:
    """The league, locked, and the caller's membership; 404 for a private league to a non-member."""
    league = League.objects.select_for_update().filter(pk=league_id).first()
    mine = members.membership(league=league, player=player) if league is not None else None
    members.league_visible_check(league=league, role=mine.role if mine else None)
    return league, mine


def round_scored(*, league: League, lines: list[SheetLine], winner: int, extra_jacks: int) -> dict[str, Any]:
    """Check a recorded round against the league's deck and score it with the engine's `round_result`."""
    rules = engine.RuleSet.from_json(league.options)
    if not 2 <= len(lines) <= rules.max_players:
        raise _refused("too_few_players", _("A round has at least two players, and no more than the rules seat."),
                       min=2, max=rules.max_players)
    ids = [line.player for line in lines]
    if len(set(ids)) != len(ids):
        raise _refused("player_twice", _("A player sits at one seat of a round only."), field="players")
    if winner not in ids:
        raise _refused("winner_not_in_round", _("The winner must be one of the round's players."), field="winner")
    deck = engine.build_deck(rules.deck, rules.jokers)
    in_deck = Counter(deck)
    value = engine.house_points if rules.scoring == "points" else engine.ranking_points
    hand_max = sum(value(card) for card in deck)
    used: Counter[str] = Counter()
    for line in lines:
        if (line.cards is None) == (line.points is None):
            raise _refused("sheet_line", _("Give each player's cards left or their hand's points, one of the two."),
                           player=line.player)
        if line.player == winner and (line.cards or line.points):
            raise _refused("winner_has_cards", _("The winner has no cards left."), player=line.player)
        if line.player != winner and not line.cards and not line.points:
            raise _refused("empty_hand", _("Only the winner has no cards left: every other player holds at least "
                                           "one card."), player=line.player)
        for card in line.cards or []:
            if card not in in_deck:
                raise _refused("card_not_in_deck", _("This card is not in the league's deck."), player=line.player,
                               card=card, deck=rules.deck, jokers=rules.jokers)
        used.update(line.cards or [])
        if line.points is not None and not 0 <= line.points <= hand_max:
            raise _refused("points_out_of_range", _("A hand's points are between 0 and what the whole deck holds."),
                           player=line.player, min=0, max=hand_max)
    twice = sorted(card for card, count in used.items() if count > in_deck[card])
    if twice:
        raise _refused("card_twice", _("A card is in more hands than the deck holds it."), cards=twice)
    jacks = sum(count for card, count in used.items() if card.startswith("J"))
    deck_jacks = sum(1 for card in deck if card.startswith("J"))
    hands_in_points = [line for line in lines if line.points is not None and line.player != winner]
    if sum(used.values()) + len(hands_in_points) > len(deck) - 1:
        raise _refused("too_many_cards", _("More cards than the deck holds (one is on the pile)."),
                       max=len(deck) - 1)
    # The hands given in points hold cards nobody listed, and one card at least lies on the pile.
    left = sorted(value(card) for card in (in_deck - used).elements())
    possible = sum(left) - left[0]
    given = sum(line.points or 0 for line in hands_in_points)
    if given > possible:
        raise _refused("points_exceed_deck", _("The hands' points together are more than the cards nobody listed "
                                               "can be worth."), points=given, max=possible)
    if extra_jacks and (rules.scoring != "points" or extra_jacks + 1 + jacks > deck_jacks):
        raise _refused("extra_jacks", _("Extra jacks multiply in house scoring only, and no more than the deck "
                                        "holds besides the last card."), max=max(0, deck_jacks - 1 - jacks))
    seat_of = {pid: seat for seat, pid in enumerate(ids)}
    return engine.round_result([line.cards or [] for line in lines], rules.scoring, seat_of[winner], "recorded",
                               1 + extra_jacks if rules.scoring == "points" else 1,
                               hand_points=[line.points for line in lines])


@database_retry.written_once_more
@transaction.atomic
def round_record(*, league_id: int, player: Player, lines: list[SheetLine], winner: int, extra_jacks: int = 0,
                 corrects: int | None = None) -> RoundResult:
    """A scorekeeper (or the owner) records a round played with real cards; it is pending until confirmed,
    or counted at once when the league lets its scorekeeper alone count rounds."""
    league, mine = _league_locked(league_id, player)
    if mine is None or not mine.keeps_score:
        raise PermissionDeniedError("not_scorekeeper", _("Only the league's owner and scorekeepers record rounds."),
                                    details={"league": league.pk})
    if league.status == League.STATUS_FINISHED:
        raise DomainError("league_finished", _("This league's season is over: the owner starts the next one."),
                          409, {"league": league.pk, "season": league.season})
    ids = [line.player for line in lines]
    active = set(LeagueMember.objects.filter(league=league, player_id__in=ids, left_at__isnull=True)
                 .values_list("player_id", flat=True))
    outsiders = [pid for pid in ids if pid not in active]
    if outsiders:
        raise _refused("player_not_member", _("Every player of a recorded round is a member of the league."),
                       players=outsiders)
    result = round_scored(league=league, lines=lines, winner=winner, extra_jacks=extra_jacks)
    corrected = None
    if corrects is not None:
        corrected = RoundResult.objects.filter(pk=corrects, league=league).first()
        if corrected is None:
            raise NotFoundError(details={"field": "corrects"})
        _correction_check(league, corrected)
    now = timezone.now()
    recorded = RoundResult.objects.create(
        league=league, number=0, rules=league.rules, scoring=league.scoring, reason="recorded",
        winner_id=winner, multiplier=result["multiplier"], counted=False, practice=False, rated=False,
        finished_at=now, source="recorded", season=league.season, status=RoundResult.PENDING,
        recorded_by=player, corrects=corrected)
    PlayerResult.objects.bulk_create([
        PlayerResult(round=recorded, player_id=ids[line["seat"]], league=league, rules=league.rules,
                     seat=line["seat"], rank=line["rank"], cards_left=line["cards_left"],
                     raw_points=line["raw_points"], multiplier=line["multiplier"], points=line["points"],
                     won=bool(line["won"]), multiplier_bonus=result["multiplier"] - 1 if line["won"] else 0,
                     finished_at=now)
        for line in result["players"]
    ])
    if league.scorekeeper_alone:
        _confirmed(league, recorded, player)
    return recorded


def _correction_check(league: League, corrected: RoundResult) -> None:
    """A correction names a recorded round of the current season that still stands (pending or counted)."""
    if corrected.source != "recorded":
        raise ConflictError("correction_stale", _("Only a recorded round is corrected on the sheet."),
                            details={"corrects": corrected.pk, "source": corrected.source})
    if corrected.season != league.season or corrected.status not in (RoundResult.PENDING, RoundResult.COUNTED):
        raise ConflictError("correction_stale", _("The entry it corrects no longer stands."),
                            details={"corrects": corrected.pk, "status": corrected.status,
                                     "season": corrected.season})


def _round_of(league: League, round_id: int) -> RoundResult:
    found = RoundResult.objects.select_for_update().filter(pk=round_id, league=league, source="recorded").first()
    if found is None:
        raise NotFoundError()
    return found


def _pending_check(round_result: RoundResult) -> None:
    if round_result.status != RoundResult.PENDING:
        raise ConflictError("round_not_pending", _("This round is no longer pending: it was confirmed, disputed, "
                                                   "corrected or its season ended."),
                            details={"round": round_result.pk, "status": round_result.status})


def _confirmed(league: League, recorded: RoundResult, player: Player) -> None:
    """Write the confirmation and count the round (and take out the entry it corrects)."""
    removed: list[PlayerResult] = []
    if recorded.corrects_id is not None:
        corrected = RoundResult.objects.select_for_update().get(pk=recorded.corrects_id)
        _correction_check(league, corrected)
        if corrected.counted:
            removed = list(corrected.players.all())
        corrected.status, corrected.counted = RoundResult.CORRECTED, False
        corrected.save(update_fields=["status", "counted"])
    SheetMark.objects.create(league=league, kind="confirm", round=recorded, player=player,
                             after_round_id=seasons.last_round_id(league), at=timezone.now())
    recorded.status, recorded.counted = RoundResult.COUNTED, True
    recorded.save(update_fields=["status", "counted"])
    step = seasons.step_count(league=league, round_result=recorded, lines=list(recorded.players.all()),
                              removed=removed)
    step.race_step.save()
    stream_services.notifications_create(step.season_over)


def _member_check(league: League, mine: LeagueMember | None) -> None:
    """Only a current member confirms or disputes: one who left has no say on the sheet any more."""
    if mine is None:
        raise PermissionDeniedError("not_a_league_member", _("Only the league's current members confirm or "
                                                             "dispute its rounds."), details={"league": league.pk})


def _scored(round_id: int | None) -> set[int]:
    """The players a round scores: all but its winner. In house and classic scoring each of them holds a card
    and so takes points (`round_scored`); in tavern scoring (wins only) each takes a lost round."""
    if round_id is None:
        return set()
    return set(PlayerResult.objects.filter(round_id=round_id, won=False).values_list("player_id", flat=True))


def _sheet_people(recorded: RoundResult) -> tuple[set[int], set[int], set[int]]:
    """Who may confirm or dispute an entry (its players and those scored by the entry it corrects), whose
    confirmation it needs (everyone either entry scores, but its recorder), and who confirmed it."""
    players = set(recorded.players.values_list("player_id", flat=True))
    scored = _scored(recorded.pk) | _scored(recorded.corrects_id)
    agreed = set(SheetMark.objects.filter(round=recorded, kind__in=("agree", "confirm"))
                 .values_list("player_id", flat=True))
    return players | scored, scored - {recorded.recorded_by_id}, agreed


@database_retry.written_once_more
@transaction.atomic
def round_confirm(*, league_id: int, round_id: int, player: Player) -> RoundResult:
    """A player of the round confirms it; it counts once everyone it scores has (`agree` marks
    until the last one, whose mark is the `confirm` that counts it)."""
    league, mine = _league_locked(league_id, player)
    _member_check(league, mine)
    recorded = _round_of(league, round_id)
    people, needed, agreed = _sheet_people(recorded)
    if recorded.recorded_by_id == player.pk or player.pk not in people:
        raise PermissionDeniedError("confirm_not_allowed", _("A round is confirmed by another player of it than "
                                                             "the one who recorded it."),
                                    details={"round": recorded.pk})
    _pending_check(recorded)
    if player.pk in agreed:
        raise ConflictError("already_confirmed", _("You have confirmed this round already: it waits for the "
                                                   "others it scores."),
                            details={"round": recorded.pk, "waiting_for": sorted(needed - agreed)})
    if needed <= agreed | {player.pk}:
        _confirmed(league, recorded, player)
        return recorded
    if recorded.corrects_id is not None:
        _correction_check(league, RoundResult.objects.get(pk=recorded.corrects_id))
    SheetMark.objects.create(league=league, kind="agree", round=recorded, player=player,
                             after_round_id=seasons.last_round_id(league), at=timezone.now())
    return recorded


@database_retry.written_once_more
@transaction.atomic
def round_dispute(*, league_id: int, round_id: int, player: Player) -> RoundResult:
    """A player of the round disputes it before it counts: it never will (a new entry records it again).
    A player it scores who did not confirm it disputes it after it counted, until its season
    ends: it leaves the standings, and the entry it corrected counts again."""
    league, mine = _league_locked(league_id, player)
    _member_check(league, mine)
    recorded = _round_of(league, round_id)
    people, needed, agreed = _sheet_people(recorded)
    if player.pk not in people:
        raise PermissionDeniedError("confirm_not_allowed", _("Only a player of the round disputes it."),
                                    details={"round": recorded.pk})
    counted_without_you = (recorded.status == RoundResult.COUNTED and player.pk in needed - agreed
                           and recorded.season == league.season and league.status == League.STATUS_ACTIVE)
    if not counted_without_you:
        _pending_check(recorded)
    SheetMark.objects.create(league=league, kind="dispute", round=recorded, player=player,
                             after_round_id=seasons.last_round_id(league), at=timezone.now())
    recorded.status, recorded.counted = RoundResult.DISPUTED, False
    recorded.save(update_fields=["status", "counted"])
    if counted_without_you:
        _counted_round_disputed(league, recorded)
    return recorded


def _counted_round_disputed(league: League, recorded: RoundResult) -> None:
    """Take a disputed round out of the standings (a step of the race), and put back the entry it corrected
    as it stood: counted again if it had counted (it has the `confirm` mark that counted it), else pending."""
    restored: list[PlayerResult] = []
    if recorded.corrects_id is not None:
        corrected = RoundResult.objects.select_for_update().get(pk=recorded.corrects_id)
        if corrected.status == RoundResult.CORRECTED:
            if SheetMark.objects.filter(round=corrected, kind="confirm").exists():
                corrected.status, corrected.counted = RoundResult.COUNTED, True
                restored = list(corrected.players.all())
            else:
                corrected.status = RoundResult.PENDING
            corrected.save(update_fields=["status", "counted"])
    step = seasons.step_count(league=league, round_result=recorded, lines=restored,
                              removed=list(recorded.players.all()))
    step.race_step.save()
    stream_services.notifications_create(step.season_over)


@database_retry.written_once_more
@transaction.atomic
def season_next(*, league_id: int, player: Player) -> Season:
    """The owner starts the next season: after one that ended at the limit (a league whose owner starts
    seasons), or by closing the current one of a league without a limit (it must have counted rounds)."""
    league, mine = _league_locked(league_id, player)
    if mine is None or mine.role != "owner":
        raise PermissionDeniedError("not_league_owner", _("Only the league's owner starts a season."),
                                    details={"league": league.pk})
    current = seasons.season_of(league)
    now = timezone.now()
    if league.status == League.STATUS_ACTIVE:
        if league.league_limit:
            raise ConflictError("season_running", _("A season with a limit ends when a player reaches it."),
                                details={"season": current.number, "league_limit": league.league_limit})
        if not current.steps:
            raise ConflictError("season_empty", _("This season has no counted round yet."),
                                details={"season": current.number})
    SheetMark.objects.create(league=league, kind="season", player=player,
                             after_round_id=seasons.last_round_id(league), at=now)
    if league.status == League.STATUS_FINISHED:  # ended at the limit: its season_over was told then
        return seasons.season_start(league=league, at=now)
    stream_services.notifications_create(
        seasons.season_end(league=league, season=current, loser_id=None, at=now, start_next=True))
    return Season.objects.get(league=league, number=league.season)
