"""The fault drill's judgements (``bench.drill``), as plain functions of what the clients were told
and what the database holds: no Django, no I/O, so the tests can feed them a doubled ledger row or
a stuck delivery and see them fail.

Each check returns its counts and a list of problems (empty: the assertion holds).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

#: A clock row may be stamped this much before the deadline the drill works out for it: the first
#: turn's deadline is rebuilt from the round's ``created_at``, a moment after the service set it.
EARLY_TOLERANCE = timedelta(seconds=1)


@dataclass(frozen=True)
class Ack:
    """A move a client was answered 200 for (once per Idempotency-Key, a replayed answer included)."""

    game: int
    player: int
    seen_version: int  # the version of the view the client chose the action from
    version: int  # the version of the answer
    action: dict[str, Any]  # as the engine normalizes it (the ledger stores that form)
    key: str


@dataclass(frozen=True)
class Unanswered:
    """A move whose request never got an answer before the client gave up: it may or may not be applied."""

    game: int
    player: int
    seen_version: int
    key: str


@dataclass(frozen=True)
class PlayerRow:
    """A ledger row of a person's own action (actor ``player``)."""

    game: int
    seq: int
    player: int
    action: dict[str, Any]


@dataclass
class Report:
    counts: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def acknowledged_moves_check(acks: Iterable[Ack], rows: Iterable[PlayerRow],
                             unanswered: Iterable[Unanswered] = ()) -> Report:
    """Every acknowledged move is in the ledger exactly once, and the ledger holds no person's move
    that no client was told about (beyond the requests given up, whose fate the client never learnt).

    An answer of version ``v`` to an action chosen at version ``s`` means: between ``s`` and ``v``
    the ledger holds exactly one row of that player, with that action (a late move may follow the
    clock's rows, and the bots answer after it). A client has one request in flight per round, so
    these ranges never overlap.
    """
    report = Report()
    by_owner: dict[tuple[int, int], list[PlayerRow]] = defaultdict(list)
    for row in rows:
        by_owner[(row.game, row.player)].append(row)
    covered: set[tuple[int, int]] = set()
    acks = list(acks)
    keys = Counter(ack.key for ack in acks)
    for key, times in keys.items():
        if times > 1:
            report.problems.append(f"Idempotency-Key {key} was acknowledged {times} times")
    for ack in acks:
        found = [r for r in by_owner[(ack.game, ack.player)] if ack.seen_version < r.seq <= ack.version]
        where = f"game {ack.game} player {ack.player} (key {ack.key}, versions {ack.seen_version}..{ack.version})"
        if not found:
            report.problems.append(f"acknowledged move missing from the ledger: {where} {ack.action}")
        elif len(found) > 1:
            report.problems.append(f"acknowledged move in the ledger {len(found)} times (seq "
                                   f"{', '.join(str(r.seq) for r in found)}): {where}")
        elif found[0].action != ack.action:
            report.problems.append(f"the ledger row seq {found[0].seq} holds {found[0].action}, the client was "
                                   f"answered for {ack.action}: {where}")
        covered.update((r.game, r.seq) for r in found)
    given_up = Counter((u.game, u.player) for u in unanswered)
    unacknowledged = 0
    for owner, owned in sorted(by_owner.items()):
        extra = [r for r in owned if (r.game, r.seq) not in covered]
        unacknowledged += len(extra)
        if len(extra) > given_up[owner]:
            report.problems.append(
                f"game {owner[0]} player {owner[1]}: {len(extra)} ledger row(s) no client was answered for "
                f"(seq {', '.join(str(r.seq) for r in extra)}), {given_up[owner]} request(s) given up")
    report.counts = {
        "acknowledged": len(acks),
        "person_rows_in_ledger": sum(len(v) for v in by_owner.values()),
        "unacknowledged_rows": unacknowledged,
        "given_up_requests": sum(given_up.values()),
    }
    return report


@dataclass(frozen=True)
class ClockMark:
    """One ledger row with what the replay knows after it (what sets the next deadlines)."""

    seq: int
    actor: str
    kind: str  # the action's type: timeout, hermann_timeout, play, draw, ...
    created_at: datetime
    turns_before: int
    turn_passed: bool
    hermann_open_after: bool
    active_after: bool


@dataclass(frozen=True)
class Timeline:
    """A round's ledger for the deadline check, and its row as it stands now."""

    game: int
    started_at: datetime
    turn_seconds: int
    hermann_seconds: int
    marks: list[ClockMark]
    active: bool = False
    deadline: datetime | None = None
    hermann_deadline: datetime | None = None


def deadlines_check(timelines: Iterable[Timeline], *, now: datetime, grace: timedelta) -> Report:
    """Every passed deadline resolved exactly once: replay when each turn's and each Hermann race's
    deadline fell (set as ``play.services`` sets them: a turn's clock restarts when a new turn
    begins, the race's when it opens) and require

    - no row but the clock's applied once a deadline had passed (a missing timeout),
    - no clock row before its deadline, none without one, and never two for one turn or race,
    - no round still running with a deadline passed more than ``grace`` ago (a turn left stalled),
    - the game row's deadlines equal the replayed ones.
    """
    report = Report()
    lags: list[float] = []
    resolved: Counter[str] = Counter()
    for line in timelines:
        turn = timedelta(seconds=line.turn_seconds) if line.turn_seconds else None
        deadline = line.started_at + turn if turn else None
        estimated = True  # the first turn's deadline, rebuilt from created_at: not exact
        hermann: datetime | None = None
        seen: set[tuple[str, Any]] = set()
        for mark in line.marks:
            where = f"game {line.game} seq {mark.seq}"
            at = mark.created_at
            if mark.actor == "clock":
                due = deadline if mark.kind == "timeout" else hermann
                what = ("turn", mark.turns_before) if mark.kind == "timeout" else ("hermann", hermann)
                if due is None:
                    report.problems.append(f"{where}: a clock row ({mark.kind}) with no deadline running")
                elif due > at + EARLY_TOLERANCE:
                    report.problems.append(f"{where}: {mark.kind} applied {(due - at).total_seconds():.3f}s "
                                           "before its deadline")
                else:
                    lags.append(max(0.0, (at - due).total_seconds()))
                if what in seen:
                    report.problems.append(f"{where}: a second {mark.kind} for the same "
                                           f"{'turn' if what[0] == 'turn' else 'Hermann race'}")
                seen.add(what)
                resolved[mark.kind] += 1
            else:
                for name, due in (("Hermann", hermann), ("turn", deadline)):
                    if due is not None and due <= at:
                        report.problems.append(f"{where}: the {name} deadline passed "
                                               f"{(at - due).total_seconds():.3f}s before this {mark.actor} row, "
                                               "with no timeout first")
            if not mark.active_after:
                deadline = hermann = None
                continue
            if mark.turn_passed or deadline is None:
                deadline, estimated = (at + turn if turn else None), False
            hermann = (hermann or at + timedelta(seconds=line.hermann_seconds)) if mark.hermann_open_after else None
        if line.active:
            for name, due in (("turn", deadline), ("Hermann", hermann)):
                if due is not None and due < now - grace:
                    report.problems.append(f"game {line.game}: the {name} deadline passed "
                                           f"{(now - due).total_seconds():.1f}s ago and is still not resolved")
            if (line.deadline, line.hermann_deadline) != (deadline, hermann) and not estimated:
                report.problems.append(f"game {line.game}: the row's deadlines {line.deadline}, "
                                       f"{line.hermann_deadline} differ from the replayed {deadline}, {hermann}")
    lags.sort()
    report.counts = {
        "timeouts": resolved["timeout"],
        "hermann_timeouts": resolved["hermann_timeout"],
        "lag_ms": {"p50": round(lags[len(lags) // 2] * 1000) if lags else None,
                   "p99": round(lags[min(len(lags) - 1, math.ceil(0.99 * len(lags)) - 1)] * 1000) if lags else None,
                   "max": round(lags[-1] * 1000) if lags else None},
    }
    return report


def deliveries_check(statuses: dict[int, str], received: Iterable[int] = (), bad_signatures: int = 0, *,
                     cut_requests: int = 0, worker_kills: int = 0) -> Report:
    """Webhook deliveries all end delivered or failed (none stuck); every delivered one reached the
    receiver (``received``: the ids it answered 2xx, once per request), and every signature held.

    A request cut before its body ended (``cut_requests``) is a sender that died mid-request: allowed
    only when the drill killed a Celery worker (``worker_kills``), and its delivery must still settle."""
    report = Report()
    by_status = Counter(statuses.values())
    stuck = sorted(pk for pk, status in statuses.items() if status not in ("delivered", "failed"))
    if stuck:
        report.problems.append(f"{len(stuck)} webhook deliveries stuck (not delivered or failed): ids "
                               f"{', '.join(map(str, stuck[:20]))}{' ...' if len(stuck) > 20 else ''}")
    got = Counter(received)
    unseen = sorted(pk for pk, status in statuses.items() if status == "delivered" and not got[pk])
    if unseen:
        report.problems.append(f"{len(unseen)} deliveries marked delivered that the receiver never got: ids "
                               f"{', '.join(map(str, unseen[:20]))}")
    if bad_signatures:
        report.problems.append(f"{bad_signatures} webhook requests with a bad signature")
    if cut_requests and not worker_kills:
        report.problems.append(f"{cut_requests} webhook requests cut before their body ended, "
                               "with no Celery worker killed")
    report.counts = {
        "deliveries": len(statuses),
        "stuck_after_the_receiver_accepted_them": sum(1 for pk in stuck if got[pk]),
        "by_status": dict(sorted(by_status.items())),
        "receiver_requests": sum(got.values()),
        "accepted_more_than_once": sum(1 for n in got.values() if n > 1),
        "requests_cut_short": cut_requests,
    }
    return report


def cuts_split(cuts: list[tuple[float, str, str]], kills: list[tuple[float, str]],
               window: float) -> tuple[list[str], list[str]]:
    """Connection errors within ``window`` seconds after a kill of a worker of that server, and the rest."""
    explained, unexplained = [], []
    for at, server, error in cuts:
        within = any(server == killed and 0 <= at - when <= window for when, killed in kills)
        (explained if within else unexplained).append(f"{server}: {error}")
    return explained, unexplained


def server_errors_split(errors: list[tuple[float, int, str]], outages: list[tuple[float, float]]
                        ) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
    """5xx answers: 503s while Redis or the database was away (or within the recovery bound after),
    which tell the client to come back, and the rest (a 500 at any time), each as (time, what)."""
    during, wrong = [], []
    for at, status, what in errors:
        within = status == 503 and any(start <= at <= end for start, end in outages)
        (during if within else wrong).append((at, what))
    return during, wrong
