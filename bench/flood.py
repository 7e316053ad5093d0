"""A webhook flood, as finding 1 of the clock issue made it: one guest registers its ten webhooks to a
receiver that accepts connections and never answers, then plays practice moves against a bot; each
move queues a delivery per webhook, each of which holds a delivery process for the whole webhook
timeout. Shared by ``bench.clocks --flood``, the fault drill and tests/clocks (which check that no
turn clock waits behind it).
"""

from __future__ import annotations

import random
import socket
import threading
import time
from contextlib import suppress
from typing import Any

import httpx


class SilentReceiver:
    """A TCP server on 127.0.0.1 that accepts every connection, reads nothing and answers never."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self.port = self.listener.getsockname()[1]
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.connections.append(client)

    def close(self) -> None:
        self.listener.close()
        for client in self.connections:
            with suppress(OSError):
                client.close()


class WebhookFlood:
    """The attacking guest, in a thread: ``start()``, then ``stop()`` returns what it did."""

    def __init__(self, base_url: str, receiver_port: int, *, hooks: int = 10, think: float = 0.05,
                 seed: int = 1) -> None:
        self.client = httpx.Client(base_url=base_url.rstrip("/") + "/api/v1", timeout=30)
        self.receiver_port, self.hooks, self.think = receiver_port, hooks, think
        self.rng = random.Random(seed)
        self.moves = 0
        self.rounds = 0
        self.errors: list[str] = []
        self.player = 0
        self.webhooks: list[int] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="webhook-flood", daemon=True)

    def sign_up(self) -> None:
        """The guest, its webhooks (every kind of notification) and a table with a bot."""
        made = self.client.post("/players", json={"name": "Flood"}).raise_for_status().json()
        self.player = made["id"]
        self.client.headers["Authorization"] = f"Token {made['token']}"
        self.webhooks = [
            self.client.post("/webhooks", json={"url": f"http://127.0.0.1:{self.receiver_port}/hook/{index}",
                                                "events": ["*"]}).raise_for_status().json()["id"]
            for index in range(self.hooks)]
        self.table = self.client.post("/tables", json={"rules": "classic", "options": {"turn_seconds": 0}}
                                      ).raise_for_status().json()["id"]
        self.client.post(f"/tables/{self.table}/bots", json={"level": "basic"}).raise_for_status()

    def start(self, moves: int | None = None) -> WebhookFlood:
        self.limit = moves
        self.thread.start()
        return self

    def wait(self, timeout: float) -> None:
        self.thread.join(timeout)

    def stop(self, *, webhooks_remove: bool = False) -> dict[str, Any]:
        """Stop moving; with ``webhooks_remove`` the guest also deletes its webhooks, so that the deliveries
        still queued for them end at once ("webhook removed") instead of each waiting out its timeouts."""
        self.stopping.set()
        self.thread.join(timeout=60)
        if webhooks_remove:
            for webhook in self.webhooks:
                with suppress(httpx.HTTPError):
                    self.client.delete(f"/webhooks/{webhook}")
        self.client.close()
        return {"moves": self.moves, "rounds": self.rounds, "webhooks": self.hooks, "errors": self.errors[:5]}

    def _run(self) -> None:
        view: dict[str, Any] | None = None
        while not self.stopping.is_set() and (self.limit is None or self.moves < self.limit):
            try:
                if view is None or view["status"] != "active":
                    seed = self.rng.randrange(1 << 30)  # practice: a chosen seed
                    answer = self.client.post(f"/tables/{self.table}/rounds", json={"seed": seed})
                    answer.raise_for_status()
                    view = answer.json()
                    self.rounds += 1
                legal = view.get("legal_actions") or []
                if not legal:
                    view = self.client.get(f"/games/{view['id']}").raise_for_status().json()
                    time.sleep(0.1)
                    continue
                action = dict(self.rng.choice(legal))
                if isinstance(action.get("as"), dict):
                    action["as"] = {k: self.rng.choice(v) if isinstance(v, list) else v
                                    for k, v in action["as"].items()}
                answer = self.client.post(f"/games/{view['id']}/actions", json=action)
                if answer.status_code == 200:
                    self.moves += 1
                    view = answer.json()
                else:
                    view = self.client.get(f"/games/{view['id']}").raise_for_status().json()
            except (httpx.HTTPError, KeyError) as exc:
                self.errors.append(f"{type(exc).__name__}: {exc}")
                view = None
                time.sleep(0.5)
            time.sleep(self.think)
