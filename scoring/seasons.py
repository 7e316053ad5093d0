"""League seasons: counting a round (played or recorded) into its season, ending and starting seasons,
and the replay of a league's round results that ``verify_standings`` and ``standings_recompute`` use.

A season is counted in steps: every round that counts, and every correction that counts, is one step of
the race chart (`RaceStep`) and moves the season's `Standing` rows. The caller holds the league row lock.

- A season with a limit ends when a player reaches it (`limit_loser` names them: they lost the season);
  a season without one ends when the owner closes it (`season_next`). Either way the rounds of the
  season still pending on the sheet become `void`, and every member of the league and every person of the
  season is told (`season_over`) in the transaction that ended it.
- The next season starts at once when the league says ``next_season: auto``; otherwise the league is
  `finished` (it takes no rounds) until the owner starts it.
- Order of the round results, for the replay: a round's own row at its id; a `SheetMark` (confirmation,
  dispute, season) and a `LeagueResignation` after the round they name, in the order they were written.
  A recorded round counts at its `confirm` mark (an `agree` mark changes nothing); a `dispute` of a
  counted round is a step that takes it out and puts back the entry it corrected as that entry stood.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import F, Max, Q
from django.db.models.functions import Greatest
from django.utils import timezone

from games.models import League, LeagueMember, Player
from scoring import selectors
from scoring.models import LeagueResignation, PlayerResult, RaceStep, RoundResult, Season, SheetMark, Standing
from streams import services as stream_services
from streams.models import Notification

#: Standing totals that the replay rebuilds, in one place.
TOTALS = ("rounds", "wins", "points", "multiplier_bonus", "biggest_round", "resigned")


def limit_loser(limit: int, crossing: Iterable[tuple[int, int, int, int, int]]) -> int | None:
    """Pick the season's loser among the players of one step whose total reached `limit`.

    `crossing` holds (total, round_points, rank, seat, player_id) for the players of the round
    just counted; only they can have reached the limit, since nobody had before (the season
    would be over). "Reached" means total >= limit. When a round takes several players
    past the limit, the one with the most points in total loses; on equal totals the one who
    scored more in that round (they pushed hardest past the line), then the worse rank of the
    round, then the higher seat, so the outcome never depends on query order.
    """
    reached = [line for line in crossing if limit and line[0] >= limit]
    if not reached:
        return None
    return max(reached)[4]


def season_of(league: League) -> Season:
    """The league's current season row (made when a league from before seasons has none)."""
    season = Season.objects.filter(league=league, number=league.season).first()
    if season is None:
        season, _ = Season.objects.get_or_create(league=league, number=league.season,
                                                 defaults={"started_at": league.created_at or timezone.now()})
    return season


def _players_named(season: Season, player_ids: Iterable[int]) -> bool:
    """Add the step's new players to the season's name list; whether it changed."""
    known = {row["id"] for row in season.players}
    new = [pid for pid in dict.fromkeys(player_ids) if pid not in known]
    if not new:
        return False
    names = {p.pk: p for p in Player.objects.filter(pk__in=new)}
    season.players = [*season.players, *({"id": pid, "name": names[pid].name, "bot": names[pid].is_bot}
                                         for pid in new if pid in names)]
    return True


@dataclass
class Step:
    """A counted step: its race row, unsaved (its round may be unsaved too: a played round's end writes
    both, ``play.writes``), and the season_over notifications of the season it ended, unsaved (none
    when it did not), for the caller to write in the same transaction."""

    race_step: RaceStep
    season_over: list[Notification] = field(default_factory=list)


def step_count(*, league: League, round_result: RoundResult, lines: list[PlayerResult],
               removed: list[PlayerResult] | None = None) -> Step:
    """Count one step of the current season: add `lines` (a round, or a correction) and take out `removed`
    (the lines of the round a correction replaces, when it had counted). Ends the season when a player of
    the step reached the limit. The caller holds the league row lock."""
    season = season_of(league)
    number = season.number
    Standing.objects.bulk_create(
        [Standing(league=league, season=number, player_id=line.player_id) for line in lines], ignore_conflicts=True
    )
    now = timezone.now()
    for line in removed or []:
        Standing.objects.filter(league=league, season=number, player_id=line.player_id, resigned=False).update(
            rounds=F("rounds") - 1, wins=F("wins") - int(line.won), points=F("points") - line.points,
            multiplier_bonus=F("multiplier_bonus") - line.multiplier_bonus, updated_at=now)
    if removed:
        biggest = dict(
            PlayerResult.objects.filter(league=league, round__season=number, round__status=RoundResult.COUNTED,
                                        player_id__in=[line.player_id for line in removed])
            .exclude(round_id=round_result.pk).values("player_id").annotate(most=Max("points"))
            .values_list("player_id", "most"))
        for line in removed:
            Standing.objects.filter(league=league, season=number, player_id=line.player_id, resigned=False).update(
                biggest_round=biggest.get(line.player_id) or 0)
    for line in lines:
        # A player who resigned the season is withdrawn: no later line of theirs counts in it.
        Standing.objects.filter(league=league, season=number, player_id=line.player_id, resigned=False).update(
            rounds=F("rounds") + 1,
            wins=F("wins") + int(line.won),
            points=F("points") + line.points,
            multiplier_bonus=F("multiplier_bonus") + line.multiplier_bonus,
            biggest_round=Greatest(F("biggest_round"), line.points),
            updated_at=now,
        )
    totals = dict(Standing.objects.filter(league=league, season=number).values_list("player_id", "points"))
    season.steps += 1
    step = RaceStep(league=league, season=number, step=season.steps, round=round_result,
                    totals={str(pid): points for pid, points in sorted(totals.items())})
    _players_named(season, [line.player_id for line in lines])
    season.save(update_fields=["steps", "players"])
    loser = limit_loser(league.league_limit,
                        [(totals[line.player_id], line.points, line.rank, line.seat, line.player_id) for line in lines])
    if loser is None:
        return Step(step)
    return Step(step, season_end(league=league, season=season, loser_id=loser, at=lines[0].finished_at,
                                 table_id=round_result.table_id))


def season_end(*, league: League, season: Season, loser_id: int | None, at: Any, start_next: bool = False,
               table_id: int | None = None) -> list[Notification]:
    """End the current season (its loser, or None when the owner closed it); start the next one at once
    when the league says so (or the owner who closes it, `start_next`), else the league is finished until
    its owner starts it. Returns the season_over notifications, unsaved, for the caller to write in its
    transaction (`table_id`: the table whose round ended it)."""
    season.status, season.loser_id, season.finished_at = "finished", loser_id, at
    season.save(update_fields=["status", "loser", "finished_at"])
    RoundResult.objects.filter(league=league, season=season.number, status=RoundResult.PENDING).update(
        status=RoundResult.VOID)
    if league.next_season == "auto" or start_next:
        next_season: int | None = season_start(league=league, at=at).number
    else:
        next_season = None
        league.status, league.loser_id, league.finished_at = League.STATUS_FINISHED, loser_id, at
        league.save(update_fields=["status", "loser", "finished_at"])
    return season_over(league=league, season=season.number, loser_id=loser_id, next_season=next_season,
                       table_id=table_id)


def season_over(*, league: League, season: int, loser_id: int | None, next_season: int | None,
                table_id: int | None) -> list[Notification]:
    """The season_over of an ended season, unsaved: to every active member of the league and every person
    with a standing in that season, with the season's final table as the standings show it."""
    standings = selectors.league_standings(league=league, season=season)
    members = LeagueMember.objects.filter(league=league, left_at__isnull=True).values("player_id")
    in_season = Standing.objects.filter(league=league, season=season).values("player_id")
    recipients = (Player.objects.filter(Q(pk__in=members) | Q(pk__in=in_season), user__isnull=False)
                  .order_by("pk").values_list("pk", flat=True))
    return stream_services.season_over(league=league, season=season, loser_id=loser_id, standings=standings,
                                       recipients=recipients, next_season=next_season, table_id=table_id)


def season_start(*, league: League, at: Any) -> Season:
    """The league's next season: same members, fresh standings."""
    league.season += 1
    league.status, league.loser_id, league.finished_at = League.STATUS_ACTIVE, None, None
    league.save(update_fields=["season", "status", "loser", "finished_at"])
    return Season.objects.create(league=league, number=league.season, started_at=at)


def last_round_id(league: League) -> int | None:
    """The league's last round result: where a mark or resignation written now stands."""
    return RoundResult.objects.filter(league=league).order_by("-id").values_list("id", flat=True).first()


# --- replay -----------------------------------------------------------------------------------------


def _zero() -> dict[str, Any]:
    return {"rounds": 0, "wins": 0, "points": 0, "multiplier_bonus": 0, "biggest_round": 0, "resigned": False}


@dataclass
class SeasonReplay:
    number: int
    started_at: Any
    status: str = "active"
    loser_id: int | None = None
    finished_at: Any = None
    totals: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: Points per counted round, per player: the biggest round after a correction took one out.
    by_round: dict[int, dict[int, int]] = field(default_factory=dict)
    withdrawn: set[int] = field(default_factory=set)
    steps: list[tuple[int, dict[str, int]]] = field(default_factory=list)
    players: list[int] = field(default_factory=list)


@dataclass
class Replay:
    """A league's seasons, standings, race and sheet rebuilt from the round results alone."""

    seasons: dict[int, SeasonReplay] = field(default_factory=dict)
    #: round id -> (season, status, counted)
    rounds: dict[int, tuple[int, str, bool]] = field(default_factory=dict)
    status: str = League.STATUS_ACTIVE
    loser_id: int | None = None
    finished_at: Any = None

    @property
    def season(self) -> SeasonReplay:
        return self.seasons[max(self.seasons)]

    @property
    def totals(self) -> dict[int, dict[str, Any]]:
        """The current season's totals."""
        return self.season.totals


class _Replayer:
    def __init__(self, league: League) -> None:
        self.league = league
        self.replay = Replay(seasons={1: SeasonReplay(1, league.created_at)})

    def open(self) -> bool:
        return self.replay.status == League.STATUS_ACTIVE

    def end(self, loser_id: int | None, at: Any) -> None:
        season = self.replay.season
        season.status, season.loser_id, season.finished_at = "finished", loser_id, at
        for round_id, (number, status, counted) in list(self.replay.rounds.items()):
            if number == season.number and status == RoundResult.PENDING:
                self.replay.rounds[round_id] = (number, RoundResult.VOID, counted)
        if self.league.next_season == "auto":
            self.start(at)
        else:
            self.replay.status, self.replay.loser_id, self.replay.finished_at = League.STATUS_FINISHED, loser_id, at

    def start(self, at: Any) -> None:
        number = self.replay.season.number + 1
        self.replay.seasons[number] = SeasonReplay(number, at)
        self.replay.status, self.replay.loser_id, self.replay.finished_at = League.STATUS_ACTIVE, None, None

    def step(self, round_id: int, lines: list[tuple[Any, ...]], removed: list[tuple[Any, ...]]) -> None:
        season = self.replay.season
        for line in removed:
            pid = line[0]
            if pid in season.withdrawn:
                continue
            total = season.totals[pid]
            total["rounds"] -= 1
            total["wins"] -= int(line[1])
            total["points"] -= line[2]
            total["multiplier_bonus"] -= line[3]
            season.by_round.get(pid, {}).pop(line[6], None)
            total["biggest_round"] = max(season.by_round.get(pid, {}).values(), default=0)
        for line in lines:
            pid = line[0]
            total = season.totals.setdefault(pid, _zero())
            if pid not in season.players:
                season.players.append(pid)
            if pid in season.withdrawn:
                continue
            total["rounds"] += 1
            total["wins"] += int(line[1])
            total["points"] += line[2]
            total["multiplier_bonus"] += line[3]
            total["biggest_round"] = max(total["biggest_round"], line[2])
            season.by_round.setdefault(pid, {})[line[6]] = line[2]
        season.steps.append((round_id, {str(pid): t["points"] for pid, t in sorted(season.totals.items())}))
        loser = limit_loser(self.league.league_limit,
                            [(season.totals[line[0]]["points"], line[2], line[4], line[5], line[0]) for line in lines])
        if loser is not None:
            self.end(loser, lines[0][7])


def sheet_replay(*, league: League) -> Replay:
    """Replay a league's round results in order: played rounds, recorded rounds and their confirmations, disputes and
    corrections, resignations and the owner's season marks (see the module docstring)."""
    replayer = _Replayer(league)
    replay = replayer.replay
    #: Whether an entry a correction took out had counted: a dispute of the correction puts it back so.
    had_counted: dict[int, bool] = {}
    heads = {row[0]: row for row in RoundResult.objects.filter(league=league).order_by("id").values_list(
        "id", "source", "practice", "corrects_id")}
    lines: dict[int, list[tuple[Any, ...]]] = {}
    rows = (PlayerResult.objects.filter(league=league).order_by("round_id", "seat")
            .values_list("player_id", "won", "points", "multiplier_bonus", "rank", "seat", "round_id", "finished_at"))
    for row in rows.iterator(chunk_size=5000):
        lines.setdefault(row[6], []).append(row)
    # (place, 0 for a round's own row or 1 for what follows it, when, id, kind, reference, player, at)
    events: list[tuple[Any, ...]] = [(round_id, 0, 0.0, round_id, "round", round_id, None, None)
                                     for round_id in heads]
    for mark_id, kind, round_id, after, at in SheetMark.objects.filter(league=league).values_list(
            "id", "kind", "round_id", "after_round_id", "at"):
        events.append((after or 0, 1, at.timestamp(), mark_id, kind, round_id, None, at))
    for res_id, player_id, after, at, number in LeagueResignation.objects.filter(league=league).values_list(
            "id", "player_id", "after_round_id", "resigned_at", "season"):
        events.append((after or 0, 1, at.timestamp(), res_id, "resign", number, player_id, at))
    events.sort(key=lambda event: event[:4])
    for *_place, kind, ref, player_id, at in events:
        current = replay.season
        if kind == "round":
            _id, source, practice, _corrects = heads[ref]
            if practice:
                replay.rounds[ref] = (current.number, RoundResult.VOID, False)
            elif source == "played":
                if replayer.open() and lines.get(ref):
                    replay.rounds[ref] = (current.number, RoundResult.COUNTED, True)
                    replayer.step(ref, lines[ref], [])
                else:
                    replay.rounds[ref] = (current.number, RoundResult.VOID, False)
            else:
                replay.rounds[ref] = (current.number, RoundResult.PENDING if replayer.open() else RoundResult.VOID,
                                      False)
        elif kind in ("confirm", "dispute"):
            number, status, _counted = replay.rounds.get(ref, (0, "", False))
            if (kind == "dispute" and status == RoundResult.COUNTED and number == current.number
                    and replayer.open()):  # a counted round disputed by a scored player who never confirmed it
                replay.rounds[ref] = (number, RoundResult.DISPUTED, False)
                restored: list[tuple[Any, ...]] = []
                corrects = heads[ref][3]
                if corrects is not None and replay.rounds[corrects][1] == RoundResult.CORRECTED:
                    if had_counted.get(corrects):
                        replay.rounds[corrects] = (replay.rounds[corrects][0], RoundResult.COUNTED, True)
                        restored = lines.get(corrects, [])
                    else:
                        replay.rounds[corrects] = (replay.rounds[corrects][0], RoundResult.PENDING, False)
                replayer.step(ref, restored, lines.get(ref, []))
                continue
            if status != RoundResult.PENDING or number != current.number or not replayer.open():
                continue
            if kind == "dispute":
                replay.rounds[ref] = (number, RoundResult.DISPUTED, False)
                continue
            corrects = heads[ref][3]
            removed: list[tuple[Any, ...]] = []
            if corrects is not None:
                c_number, c_status, c_counted = replay.rounds[corrects]
                if c_status not in (RoundResult.PENDING, RoundResult.COUNTED) or c_number != number:
                    continue
                replay.rounds[corrects] = (c_number, RoundResult.CORRECTED, False)
                had_counted[corrects] = c_counted
                removed = lines.get(corrects, []) if c_counted else []
            replay.rounds[ref] = (number, RoundResult.COUNTED, True)
            replayer.step(ref, lines.get(ref, []), removed)
        elif kind == "season":
            if replayer.open():
                replayer.end(None, at)
            if not replayer.open():
                replayer.start(at)
        elif kind == "resign" and ref == current.number:
            current.totals.setdefault(player_id, _zero())["resigned"] = True
            current.withdrawn.add(player_id)
            if league.league_limit and replayer.open():
                replayer.end(player_id, at)
    return replay


def sheet_compare(*, league: League, replay: Replay) -> list[str]:
    """Differences between what is stored (standings, seasons, race, the rounds' marks) and a replay."""
    problems: list[str] = []
    stored = {(row[0], row[1]): dict(zip(TOTALS, row[2:], strict=True)) for row in Standing.objects.filter(
        league=league).values_list("season", "player_id", *TOTALS)}
    wanted = {(number, pid): totals for number, season in replay.seasons.items()
              for pid, totals in season.totals.items()}
    for key in sorted(set(stored) | set(wanted)):
        if stored.get(key) != wanted.get(key):
            problems.append(f"league {league.pk} season {key[0]} player {key[1]}: stored {stored.get(key)}, "
                            f"results {wanted.get(key)}")
    current = max(replay.seasons)
    if (league.season, league.status, league.loser_id) != (current, replay.status, replay.loser_id):
        problems.append(f"league {league.pk}: stored season {league.season} {league.status} loser {league.loser_id},"
                        f" results season {current} {replay.status} loser {replay.loser_id}")
    seasons = {row[0]: row[1:] for row in Season.objects.filter(league=league).values_list(
        "number", "status", "loser_id", "steps")}
    for number, season in replay.seasons.items():
        want = (season.status, season.loser_id, len(season.steps))
        if seasons.pop(number, None) != want:
            problems.append(f"league {league.pk} season {number}: stored {seasons.get(number)}, results {want}")
    problems += [f"league {league.pk} season {number}: not in the round results" for number in seasons]
    for round_id, season, status, counted in RoundResult.objects.filter(league=league).values_list(
            "id", "season", "status", "counted"):
        if replay.rounds.get(round_id) != (season, status, counted):
            problems.append(f"league {league.pk} round {round_id}: stored {(season, status, counted)}, "
                            f"results {replay.rounds.get(round_id)}")
    steps = {(row[0], row[1]): (row[2], row[3]) for row in RaceStep.objects.filter(league=league).values_list(
        "season", "step", "round_id", "totals")}
    for number, season in replay.seasons.items():
        for index, (round_id, totals) in enumerate(season.steps, start=1):
            if steps.pop((number, index), None) != (round_id, totals):
                problems.append(f"league {league.pk} season {number} race step {index}: differs from the round results")
    problems += [f"league {league.pk} season {key[0]} race step {key[1]}: not in the round results" for key in steps]
    return problems


def sheet_write(*, league: League, replay: Replay) -> None:
    """Replace everything derived (standings, seasons, race, the rounds' marks) by the replay. The caller
    holds the league row lock."""
    Standing.objects.filter(league=league).delete()
    RaceStep.objects.filter(league=league).delete()
    old = {s.number: s for s in Season.objects.filter(league=league)}
    Season.objects.filter(league=league).delete()
    names = {p.pk: p for p in Player.objects.filter(
        pk__in={pid for season in replay.seasons.values() for pid in season.players})}
    for number, season in replay.seasons.items():
        Standing.objects.bulk_create([Standing(league=league, season=number, player_id=pid, **totals)
                                      for pid, totals in season.totals.items()], batch_size=1000)
        RaceStep.objects.bulk_create([RaceStep(league=league, season=number, step=index, round_id=round_id,
                                               totals=totals)
                                      for index, (round_id, totals) in enumerate(season.steps, start=1)],
                                     batch_size=1000)
        started = old[number].started_at if number in old else season.started_at
        Season.objects.create(league=league, number=number, status=season.status, loser_id=season.loser_id,
                              started_at=started or timezone.now(), finished_at=season.finished_at,
                              steps=len(season.steps),
                              players=[{"id": pid, "name": names[pid].name, "bot": names[pid].is_bot}
                                       for pid in season.players if pid in names])
    league.season = max(replay.seasons)
    league.status, league.loser_id = replay.status, replay.loser_id
    league.finished_at = replay.finished_at
    league.save(update_fields=["season", "status", "loser", "finished_at"])
    groups: dict[tuple[int, str, bool], list[int]] = {}
    for round_id, value in replay.rounds.items():
        groups.setdefault(value, []).append(round_id)
    for (season, status, counted), ids in groups.items():
        for start in range(0, len(ids), 1000):
            RoundResult.objects.filter(id__in=ids[start:start + 1000]).update(season=season, status=status,
                                                                             counted=counted)
