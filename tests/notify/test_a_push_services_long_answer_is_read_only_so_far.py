"""A push endpoint is any HTTPS server a subscription names: one that answers with an endless body
costs the deliveries process no more than ``outbound.ANSWER_BYTES`` of it (the text only names an
error), and the push is recorded with its status."""

from __future__ import annotations

import socket
import threading
from typing import Any

from notify import channels
from streams import outbound

BODY_BYTES = 64 * 1024 * 1024


def test_an_answer_without_a_length_is_read_only_so_far(settings: Any) -> None:
    settings.PUSH_ALLOW_LOOPBACK = True
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    written: list[int] = []

    def serve() -> None:
        connection, _address = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
            sent, chunk = 0, b"x" * 65536
            try:
                while sent < BODY_BYTES:
                    sent += connection.send(chunk)
            except OSError:  # the client had read enough and closed
                pass
            written.append(sent)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    try:
        url = f"http://127.0.0.1:{port}/push/1"
        request = channels.Request(url, channels.origin_of(url), {"TTL": "60"}, b"sealed",
                                   refusal=outbound.push_refusal)
        sent = channels.sent_now(lambda: channels.posted(request))
        server.join(10)
        assert sent.status == 400 and not sent.ok and sent.error.startswith("x")
        assert written and written[0] < BODY_BYTES // 4, f"the far end got {written[0]} bytes out, not all of it"
    finally:
        listener.close()
        outbound.reset()
