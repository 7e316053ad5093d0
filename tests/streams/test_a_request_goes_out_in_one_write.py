"""A delivery's HTTP/1.1 request leaves in one write (its head and body together: one system call,
one TLS record), and on HTTP/2, where other streams share the connection, each write at once."""

from __future__ import annotations

import asyncio
from typing import Any

from streams import outbound


class Recorded:
    """A network stream that keeps what was written and answers reads with a canned answer."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.writes.append(buffer)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return b"HTTP/1.1 201 Created\r\n\r\n"

    async def aclose(self) -> None:
        pass

    def get_extra_info(self, info: str) -> Any:
        return None


def test_an_http1_requests_head_and_body_are_written_together_when_its_answer_is_read() -> None:
    async def exchange() -> Recorded:
        inner = Recorded()
        stream = outbound.KeptStream(inner, one_request=True)
        await stream.write(b"POST /push HTTP/1.1\r\nContent-Length: 4\r\n\r\n")
        await stream.write(b"body")
        await stream.write(b"")
        assert inner.writes == [], "nothing is written before the answer is read"
        await stream.read(65536)
        return inner

    assert asyncio.run(exchange()).writes == [b"POST /push HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody"]


def test_on_http2_each_write_goes_out_at_once() -> None:
    async def exchange() -> Recorded:
        inner = Recorded()
        stream = outbound.KeptStream(inner, one_request=False)
        await stream.write(b"frame one")
        await stream.write(b"frame two")
        return inner

    assert asyncio.run(exchange()).writes == [b"frame one", b"frame two"]
