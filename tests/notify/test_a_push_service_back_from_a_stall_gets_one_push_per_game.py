"""A push service that stalls holds what it was sent and delivers it on its return. So a failing
push service gets one request at a time (a probe), not one per waiting subscription, and when the probe
is answered the origin's waiting pushes go only after the reader has read the outbox once more: a
your_turn committed before the return replaces its older one first. The service then gets one push
per player and game for the stalled period (bench.push --stall measures it end to end)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from notify import reader
from streams import outbound


@pytest.fixture
def sender(settings: Any) -> Iterator[outbound.Outbound]:
    settings.DELIVERY_PER_TARGET = 1
    settings.DELIVERY_BACKOFF_MAX_SECONDS = 0.5
    sender = outbound.outbound()
    attached = sender.reader_attached
    yield sender
    sender.reader_attached = attached


class FarEnd:
    """A push service of the test's own, at the job level: it fails (503) until ``up``, and records
    when each request began and ended."""

    def __init__(self, origin: str, *, push: bool = True) -> None:
        self.origin, self.push = origin, push
        self.up = threading.Event()
        self.requests: list[tuple[str, float, float]] = []

    def job(self, target: str, name: str, collapse: str | None = None) -> outbound.Job:
        async def send() -> str:
            began = time.monotonic()
            await asyncio.sleep(0.05)
            self.requests.append((name, began, time.monotonic()))
            return "ok" if self.up.is_set() else "503"

        return outbound.Job(target=target, origin=self.origin, player=hash(target) % 1000, send=send,
                            failed=lambda value: value != "ok", collapse=collapse, one_at_a_time=self.push)


def _most_at_once(requests: list[tuple[str, float, float]]) -> int:
    moments = sorted([(began, 1) for _n, began, _e in requests] + [(ended, -1) for _n, _b, ended in requests])
    most = now = 0
    for _at, step in moments:
        now += step
        most = max(most, now)
    return most


def test_a_failing_origin_gets_one_request_at_a_time_until_it_answers(sender: outbound.Outbound) -> None:
    sender.reader_attached = False
    far = FarEnd("https://one-at-a-time.example:443")
    assert sender.submit(far.job("web_push:900", "first")).result(10).value == "503"
    failing = [sender.submit(far.job(f"web_push:{901 + n}", f"while failing {n}")) for n in range(3)]
    time.sleep(0.3)
    far.up.set()
    later = [sender.submit(far.job(f"web_push:{911 + n}", f"after {n}")) for n in range(6)]
    for future in failing + later:
        future.result(10)
    probe, *rest = sorted(far.requests[1:], key=lambda r: r[1])  # whichever went first after the pause
    assert all(probe[2] <= began for _n, began, _e in rest), "the probe went alone"
    assert _most_at_once(rest) > 1, "once it answered, the waiting ones went at once"


def test_webhooks_of_a_failing_origin_do_not_wait_for_a_probe(sender: outbound.Outbound) -> None:
    """A webhook origin may be shared by many players: one player's failing receiver must not make
    the others' deliveries wait for probes (its own, that fail). They back off, then go together."""
    sender.reader_attached = True
    far = FarEnd("https://hooks.example:443", push=False)
    assert sender.submit(far.job("webhook:940", "first")).result(10).value == "503"
    far.up.set()
    waiting = [sender.submit(far.job(f"webhook:{941 + n}", f"hook {n}")) for n in range(4)]
    assert all(future.result(10).value == "ok" for future in waiting)
    assert _most_at_once(far.requests[1:]) == 4, "all four at once after the back-off"


def test_an_origin_back_from_failing_waits_for_the_readers_read_and_the_newest_turn_goes(
    sender: outbound.Outbound,
) -> None:
    sender.reader_attached = True
    far = FarEnd("https://back-from-a-stall.example:443")
    assert sender.submit(far.job("web_push:920", "down")).result(10).value == "503"
    far.up.set()
    count = sender.back_count
    probe = sender.submit(far.job("web_push:921", "probe"))
    assert probe.result(10).value == "ok"
    assert sender.back_count == count + 1 and sender.origin_back.is_set()
    older = sender.submit(far.job("web_push:922", "older turn", collapse="your_turn:7"))
    time.sleep(0.3)
    assert [r[0] for r in far.requests] == ["down", "probe"], "held until the reader has read"
    newer = sender.submit(far.job("web_push:922", "newer turn", collapse="your_turn:7"))  # the reader's read
    assert older.result(10).replaced
    sender.held_released(sender.back_count)
    assert newer.result(10).value == "ok"
    assert [r[0] for r in far.requests] == ["down", "probe", "newer turn"], "one push for the game"


def test_an_origin_back_is_let_go_after_a_while_when_no_reader_reads(sender: outbound.Outbound) -> None:
    sender.reader_attached = True
    far = FarEnd("https://no-reader.example:443")
    sender.submit(far.job("web_push:930", "down")).result(10)
    far.up.set()
    sender.submit(far.job("web_push:931", "probe")).result(10)
    began = time.monotonic()
    assert sender.submit(far.job("web_push:932", "waiting")).result(10).value == "ok"
    assert outbound.HELD_SECONDS - 0.5 <= time.monotonic() - began <= outbound.HELD_SECONDS + 2


def test_when_an_origin_came_back_the_reader_reads_the_outbox_before_letting_it_go(
    sender: outbound.Outbound, monkeypatch: pytest.MonkeyPatch, settings: Any,
) -> None:
    from notify import services

    steps: list[str] = []
    monkeypatch.setattr(services, "outbox_read", lambda limit: steps.append("outbox") or 0)
    monkeypatch.setattr(services, "retries_read", lambda limit, ahead=0.0: steps.append(f"retries ahead {ahead}") or 0)
    monkeypatch.setattr(sender, "held_released", lambda count: steps.append(f"released {count}"))
    sender.origin_back.clear()  # the process's sender: an origin of an earlier test may have come back
    reader.read_once(retries=False)
    assert steps == ["outbox"], "no origin came back: nothing to let go"
    steps.clear()
    sender.back_count += 1
    sender.origin_back.set()
    reader.read_once(retries=False)
    assert steps == ["outbox", f"retries ahead {settings.NOTIFY_BACKOFF_MAX_SECONDS}", f"released {sender.back_count}"]
    assert not sender.origin_back.is_set()
