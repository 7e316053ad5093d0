"""HTTP helpers for the stream tests: players, a rigged two-player round, an SSE reader thread."""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from games import engine
from games.engine.cards import build_deck


def client(base: str, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Token {token}"} if token else {}
    return httpx.Client(base_url=base, headers=headers, timeout=10)


@dataclass
class Person:
    id: int
    token: str
    http: httpx.Client


def sign_up(base: str, name: str) -> Person:
    body = httpx.post(base + "/api/v1/players", json={"name": name}, timeout=10).json()
    return Person(body["id"], body["token"], client(base, body["token"]))


def rigged_setup(hands: list[list[str]], starter: str, stock_top: list[str]) -> dict[str, Any]:
    named = [c for hand in hands for c in hand] + [starter, *stock_top]
    deck = build_deck(engine.RuleSet.from_preset("classic", {}).to_json()["deck"], 0)
    return {"hands": hands, "starter": starter, "stock": [*stock_top, *[c for c in deck if c not in set(named)]]}


def two_player_round(base: str, hands: list[list[str]], starter: str,
                     stock_top: list[str], **table_body: Any) -> tuple[Person, Person, int]:
    """Ada (seat 0, on turn) and Bo (seat 1) at a classic table, on a deal the test chose."""
    ada, bo = sign_up(base, "Ada"), sign_up(base, "Bo")
    table = ada.http.post("/api/v1/tables", json={"rules": "classic", "max_players": 2, **table_body}).json()
    assert bo.http.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    game = ada.http.post(f"/api/v1/tables/{table['id']}/rounds",
                         json={"setup": rigged_setup(hands, starter, stock_top)})
    assert game.status_code == 201, game.text
    return ada, bo, game.json()["id"]


def act(person: Person, game_id: int, action: dict[str, Any]) -> dict[str, Any]:
    response = person.http.post(f"/api/v1/games/{game_id}/actions", json=action)
    assert response.status_code == 200, response.text
    return response.json()


@dataclass
class Event:
    id: str | None
    event: str | None
    data: Any
    at: float


@dataclass
class SseReader:
    """Reads a text/event-stream in a thread; events and comments arrive in queues with their time."""

    base: str
    path: str
    token: str | None
    headers: dict[str, str] = field(default_factory=dict)
    events: queue.Queue[Event] = field(default_factory=queue.Queue)
    comments: queue.Queue[str] = field(default_factory=queue.Queue)
    status: int | None = None
    body: bytes = b""
    #: Set when the server ended the stream (or the reader stopped).
    finished: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _ready: threading.Event = field(default_factory=threading.Event)

    def start(self) -> SseReader:
        threading.Thread(target=self._run, daemon=True).start()
        assert self._ready.wait(10), "the stream did not answer"
        return self

    def _run(self) -> None:
        try:
            self._read()
        finally:
            self.finished.set()

    def _read(self) -> None:
        headers = dict(self.headers)
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        with httpx.Client(base_url=self.base, timeout=httpx.Timeout(10, read=30)) as http:
            with http.stream("GET", self.path, headers=headers) as response:
                self.status = response.status_code
                if response.status_code != 200:
                    self.body = response.read()
                    self._ready.set()
                    return
                self._ready.set()
                fields: dict[str, str] = {}
                for line in response.iter_lines():
                    if self._stop.is_set():
                        return
                    if line == "":
                        if "data" in fields:
                            self.events.put(Event(fields.get("id"), fields.get("event"), json.loads(fields["data"]),
                                                  time.monotonic()))
                        fields = {}
                    elif line.startswith(":"):
                        self.comments.put(line[1:].strip())
                    else:
                        name, _, value = line.partition(":")
                        fields[name] = value[1:] if value.startswith(" ") else value

    def next(self, timeout: float = 5.0) -> Event:
        return self.events.get(timeout=timeout)

    def close(self) -> None:
        self._stop.set()
