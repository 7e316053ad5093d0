"""The fault drill's judgements (``bench.drill_checks``) catch what they are there to catch: a doubled
or lost move, a timeout twice or never, a delivery stuck, a connection cut nobody explains."""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime, timedelta

from bench.drill import FAULTS, Receiver, schedule
from bench.drill_checks import (
    Ack,
    ClockMark,
    PlayerRow,
    Timeline,
    Unanswered,
    acknowledged_moves_check,
    cuts_split,
    deadlines_check,
    deliveries_check,
    server_errors_split,
)

DRAW = {"type": "draw"}
PLAY = {"type": "play", "cards": ["9H"]}
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def ack(seen: int, version: int, action: dict, key: str, game: int = 1, player: int = 7) -> Ack:
    return Ack(game=game, player=player, seen_version=seen, version=version, action=action, key=key)


def row(seq: int, action: dict, game: int = 1, player: int = 7) -> PlayerRow:
    return PlayerRow(game=game, seq=seq, player=player, action=action)


def test_moves_answered_once_and_in_the_ledger_once_pass() -> None:
    acks = [ack(0, 2, PLAY, "a"), ack(2, 5, DRAW, "b")]  # bots answered after each: versions 2 and 5
    report = acknowledged_moves_check(acks, [row(1, PLAY), row(3, DRAW)])
    assert report.problems == []
    assert report.counts["acknowledged"] == 2 and report.counts["unacknowledged_rows"] == 0


def test_a_duplicated_ledger_row_of_an_acknowledged_move_is_caught() -> None:
    report = acknowledged_moves_check([ack(0, 4, DRAW, "a")], [row(1, DRAW), row(3, DRAW)])
    assert any("in the ledger 2 times" in p for p in report.problems)


def test_an_acknowledged_move_missing_from_the_ledger_is_caught() -> None:
    report = acknowledged_moves_check([ack(0, 2, PLAY, "a"), ack(2, 3, DRAW, "b")], [row(1, PLAY)])
    assert report.problems == [
        "acknowledged move missing from the ledger: game 1 player 7 (key b, versions 2..3) {'type': 'draw'}"]


def test_a_ledger_row_with_another_action_than_the_answered_one_is_caught() -> None:
    report = acknowledged_moves_check([ack(0, 1, PLAY, "a")], [row(1, DRAW)])
    assert any("holds {'type': 'draw'}" in p for p in report.problems)


def test_a_person_move_no_client_was_answered_for_is_caught_unless_a_request_was_given_up() -> None:
    rows = [row(1, PLAY), row(3, DRAW)]
    report = acknowledged_moves_check([ack(0, 2, PLAY, "a")], rows)
    assert any("1 ledger row(s) no client was answered for (seq 3)" in p for p in report.problems)
    given_up = acknowledged_moves_check([ack(0, 2, PLAY, "a")], rows, [Unanswered(1, 7, 2, "b")])
    assert given_up.problems == [] and given_up.counts["unacknowledged_rows"] == 1


def test_a_key_acknowledged_twice_is_caught() -> None:
    report = acknowledged_moves_check([ack(0, 1, PLAY, "a"), ack(1, 2, DRAW, "a")], [row(1, PLAY), row(2, DRAW)])
    assert "Idempotency-Key a was acknowledged 2 times" in report.problems


def mark(seq: int, seconds: float, actor: str = "player", kind: str = "play", turns: int = 0,
         passed: bool = True, hermann: bool = False, active: bool = True) -> ClockMark:
    return ClockMark(seq=seq, actor=actor, kind=kind, created_at=T0 + timedelta(seconds=seconds), turns_before=turns,
                     turn_passed=passed, hermann_open_after=hermann, active_after=active)


def timeline(*marks: ClockMark, active: bool = False, deadline: datetime | None = None) -> Timeline:
    return Timeline(game=1, started_at=T0, turn_seconds=3, hermann_seconds=2, marks=list(marks), active=active,
                    deadline=deadline)


def check(line: Timeline, now_seconds: float = 60) -> list[str]:
    return deadlines_check([line], now=T0 + timedelta(seconds=now_seconds), grace=timedelta(seconds=5)).problems


def test_a_timeout_after_each_stalled_turn_passes() -> None:
    line = timeline(mark(1, 1.0), mark(2, 1.0, "bot", turns=1),  # the person played, the bot answered
                    mark(3, 4.2, "clock", "timeout", turns=2), mark(4, 4.2, "bot", turns=3),
                    mark(5, 5.0, turns=4),
                    mark(6, 5.5, "bot", turns=5, active=False))
    report = deadlines_check([line], now=T0 + timedelta(seconds=60), grace=timedelta(seconds=5))
    assert report.problems == []
    assert report.counts["timeouts"] == 1 and report.counts["lag_ms"] == {"p50": 200, "p99": 200, "max": 200}


def test_a_second_timeout_for_one_turn_is_caught() -> None:
    line = timeline(mark(1, 3.1, "clock", "timeout", turns=0, passed=False),
                    mark(2, 3.3, "clock", "timeout", turns=0))
    assert any("a second timeout for the same turn" in p for p in check(line))


def test_a_move_applied_after_its_deadline_without_a_timeout_is_caught() -> None:
    line = timeline(mark(1, 1.0), mark(2, 4.5, "player", turns=1))
    assert check(line) == [
        "game 1 seq 2: the turn deadline passed 0.500s before this player row, with no timeout first"]


def test_a_timeout_before_its_deadline_is_caught() -> None:
    line = timeline(mark(1, 1.0), mark(2, 2.0, "clock", "timeout", turns=1))
    assert check(line) == ["game 1 seq 2: timeout applied 2.000s before its deadline"]


def test_a_hermann_race_is_timed_from_its_opening() -> None:
    opened = mark(1, 1.0, "bot", kind="play", hermann=True)
    assert check(timeline(opened, mark(2, 3.5, "clock", "hermann_timeout", turns=1, passed=False),
                          mark(3, 3.6, turns=1, active=False))) == []
    late = check(timeline(opened, mark(2, 3.5, "player", "say", turns=1, passed=False, hermann=True)))
    assert late == ["game 1 seq 2: the Hermann deadline passed 0.500s before this player row, with no timeout first"]


def test_a_round_left_with_a_long_passed_deadline_is_caught() -> None:
    line = timeline(mark(1, 1.0), active=True, deadline=T0 + timedelta(seconds=4))
    assert check(line, now_seconds=5) == []
    assert check(line, now_seconds=30) == ["game 1: the turn deadline passed 26.0s ago and is still not resolved"]


def test_a_stored_deadline_that_differs_from_the_replay_is_caught() -> None:
    line = timeline(mark(1, 1.0), active=True, deadline=T0 + timedelta(seconds=9))
    assert any("differ from the replayed" in p for p in check(line, now_seconds=2))


def test_stuck_deliveries_and_deliveries_nobody_received_are_caught() -> None:
    report = deliveries_check({1: "delivered", 2: "failed", 3: "pending", 4: "retrying", 5: "delivered"}, [1, 1])
    assert report.problems == ["2 webhook deliveries stuck (not delivered or failed): ids 3, 4",
                               "1 deliveries marked delivered that the receiver never got: ids 5"]
    assert report.counts["accepted_more_than_once"] == 1
    assert deliveries_check({1: "delivered", 2: "failed"}, [1]).problems == []


def test_a_webhook_request_cut_before_its_body_is_counted_apart_from_bad_signatures() -> None:
    """A Celery worker killed between writing a delivery's headers and its body leaves a short body:
    that is a cut request, not a forged one."""
    receiver = Receiver({7: "secret"})
    try:
        with socket.create_connection(("127.0.0.1", receiver.port)) as cut:
            cut.sendall(b"POST /hook/7 HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n"
                        b"X-MauMau-Signature: sha256=00\r\n\r\n{\"event\"")
            cut.shutdown(socket.SHUT_WR)
            assert cut.recv(100) == b""  # no answer: the connection just closes
        with socket.create_connection(("127.0.0.1", receiver.port)) as forged:
            forged.sendall(b"POST /hook/7 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                           b"X-MauMau-Signature: sha256=00\r\n\r\n{}")
            assert forged.recv(100).startswith(b"HTTP/1.0 401")
        deadline = time.monotonic() + 5
        while receiver.cut_requests + receiver.bad_signatures < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert (receiver.cut_requests, receiver.bad_signatures) == (1, 1)
    finally:
        receiver.close()


def test_a_cut_webhook_request_is_a_problem_only_when_no_celery_worker_was_killed() -> None:
    assert deliveries_check({1: "delivered"}, [1], cut_requests=1, worker_kills=1).problems == []
    assert deliveries_check({1: "delivered"}, [1], cut_requests=1).problems == [
        "1 webhook requests cut before their body ended, with no Celery worker killed"]


def test_connection_errors_count_as_the_kills_only_just_after_a_kill_of_that_server() -> None:
    cuts = [(101.0, "uvicorn", "reset"), (101.0, "gunicorn", "reset"), (150.0, "uvicorn", "reset")]
    explained, unexplained = cuts_split(cuts, [(100.0, "uvicorn")], window=10)
    assert explained == ["uvicorn: reset"]
    assert unexplained == ["gunicorn: reset", "uvicorn: reset"]


def test_the_short_schedule_brings_every_fault() -> None:
    plan = schedule(30, 30)
    assert {name for _at, name in plan} == {name for _share, name in FAULTS}
    assert all(0 < at < 30 for at, _name in plan)
    assert len(schedule(240, 40)) == 6 * len(FAULTS)
    assert {name for _at, name in schedule(30, 30, {"uvicorn_worker_kill"})} == {"uvicorn_worker_kill"}
    assert schedule(30, 30, set()) == []


def test_a_503_while_redis_or_the_database_is_away_is_told_apart_from_a_500() -> None:
    errors = [(5.0, 503, "during"), (5.5, 500, "a 500 during"), (30.0, 503, "after the bound")]
    during, wrong = server_errors_split(errors, [(4.0, 20.0)])
    assert during == [(5.0, "during")]
    assert wrong == [(5.5, "a 500 during"), (30.0, "after the bound")]
