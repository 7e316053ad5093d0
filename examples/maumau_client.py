"""A small typed client for the Mau-Mau API, on httpx: copy this one file into a bot, a script or an app.

    client = MauMau.sign_up("http://127.0.0.1:8000", "Ada's bot")     # or MauMau(url, token="mmt_...")
    client.seek("classic", players=2, fill_with_bots_after=30)
    for event in client.stream():                                       # /me/stream, reconnecting
        if event.kind == "your_turn":
            game = client.game(event.game)
            client.act(event.game, game["legal_actions"][0], expected_version=game["version"])

Every error answer of the API becomes :class:`ApiError` with its stable ``code`` (``not_your_turn``,
``version_conflict``, ``illegal_move`` ...). :meth:`MauMau.stream` follows the caller's notifications
as server-sent events and reconnects by itself after a dropped connection, resuming after the last
event it delivered (``Last-Event-ID``), so no notification is lost or repeated.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

Json = dict[str, Any]


class ApiError(Exception):
    """An error answer: ``{"error": {"code", "message", "details"}}`` and its HTTP status."""

    def __init__(self, status: int, code: str, message: str, details: Json | None = None) -> None:
        super().__init__(f"{status} {code}: {message} {details or ''}".rstrip())
        self.status, self.code, self.message, self.details = status, code, message, details or {}


@dataclass(frozen=True)
class Event:
    """One notification from ``/me/stream`` (``kind``: ``your_turn``, ``game_started``, ``round_over``,
    ``challenge_received`` ...), or ``connected`` each time the stream (re)connects: a moment to catch
    up on what may have happened while it was away."""

    kind: str
    id: int | None = None
    table: int | None = None
    game: int | None = None
    data: Json = field(default_factory=dict)


class MauMau:
    """One player's session with the API (``Authorization: Token ...``)."""

    def __init__(self, base_url: str, token: str | None = None, *, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.http = httpx.Client(base_url=f"{self.base_url}/api/v1", timeout=timeout)
        if token:
            self.http.headers["Authorization"] = f"Token {token}"

    @classmethod
    def sign_up(cls, base_url: str, name: str, *, username: str | None = None, password: str | None = None,
                bot: bool = True) -> MauMau:
        """A new account (marked as a bot unless ``bot=False``: every view shows it); without a
        username one is made up. Keep ``client.token``: it is the account's key from now on."""
        client = cls(base_url)
        body = {"username": username or f"bot_{secrets.token_hex(6)}", "name": name, "device": "maumau_client",
                "password": password or secrets.token_urlsafe(18), "bot": bot}
        client._use(client._call("POST", "/accounts", body)["token"])
        return client

    def _use(self, token: str) -> None:
        self.token = token
        self.http.headers["Authorization"] = f"Token {token}"

    def _call(self, method: str, path: str, body: Json | None = None, **params: Any) -> Any:
        response = self.http.request(method, path, json=body, params={k: v for k, v in params.items() if v is not None})
        if response.status_code == 304:
            return None
        if response.status_code >= 400:
            try:
                error = response.json()["error"]
            except (ValueError, KeyError, TypeError):
                raise ApiError(response.status_code, "http_error", response.text[:200]) from None
            raise ApiError(response.status_code, error["code"], error["message"], error.get("details"))
        return response.json() if response.content else None

    # --- who am I ----------------------------------------------------------------------------

    def me(self) -> Json:
        return self._call("GET", "/me")

    # --- finding games -----------------------------------------------------------------------

    def seek(self, rules: str, players: int = 2, *, options: Json | None = None,
             fill_with_bots_after: int | None = None) -> Json:
        """Quick play: a seek that matches others of the same rules and seat count (``game_started``
        on the stream); ``fill_with_bots_after`` seconds later free seats go to server bots."""
        body: Json = {"rules": rules, "players": players}
        if options:
            body["options"] = options
        if fill_with_bots_after is not None:
            body["fill_with_bots_after"] = fill_with_bots_after
        return self._call("POST", "/seeks", body)

    def challenges(self) -> list[Json]:
        return self._call("GET", "/challenges")

    def accept_challenge(self, challenge_id: int) -> Json:
        return self._call("POST", f"/challenges/{challenge_id}/accept")

    def create_table(self, rules: str, *, options: Json | None = None, max_players: int | None = None) -> Json:
        body: Json = {"rules": rules}
        if options:
            body["options"] = options
        if max_players is not None:
            body["max_players"] = max_players
        return self._call("POST", "/tables", body)

    def join_table(self, table_id: int) -> Json:
        return self._call("POST", f"/tables/{table_id}/join")

    def add_bot(self, table_id: int, level: str = "medium") -> Json:
        return self._call("POST", f"/tables/{table_id}/bots", {"level": level})

    def start_round(self, table_id: int) -> Json:
        return self._call("POST", f"/tables/{table_id}/rounds", {})

    # --- playing ------------------------------------------------------------------------------

    def game(self, game_id: int, *, wait: int | None = None, after: int | None = None) -> Json | None:
        """The caller's view of a round (``hand``, ``legal_actions``, ``version`` ...). With ``wait``
        (seconds, at most 60) and ``after`` (a version) it long-polls: None if nothing moved."""
        return self._call("GET", f"/games/{game_id}", wait=wait, after=after)

    def act(self, game_id: int, action: Json, *, expected_version: int | None = None) -> Json:
        """Send one action (an entry of ``legal_actions`` as it is, a joker named); the new view."""
        body = dict(action)
        if expected_version is not None:
            body["expected_version"] = expected_version
        return self._call("POST", f"/games/{game_id}/actions", body)

    # --- notifications --------------------------------------------------------------------------

    def stream(self, *, after: int | None = None, retry_seconds: float = 2.0) -> Iterator[Event]:
        """``/me/stream`` for ever: reconnects after any dropped connection or server error, resuming
        after the last event delivered. Stop by breaking out of the loop."""
        last = after
        delay = retry_seconds
        while True:
            headers = {"Last-Event-ID": str(last)} if last is not None else {}
            try:
                with self.http.stream("GET", "/me/stream", headers=headers,
                                      timeout=httpx.Timeout(10.0, read=90.0)) as response:
                    if response.status_code >= 400:
                        response.read()
                        error = response.json().get("error", {}) if response.content else {}
                        raise ApiError(response.status_code, error.get("code", "http_error"), error.get("message", ""))
                    delay = retry_seconds
                    yield Event("connected")
                    for event in _server_sent_events(response.iter_lines()):
                        if event.id is not None:
                            last = event.id
                        yield event
            except ApiError as exc:
                if exc.status < 500 and exc.status != 429:
                    raise  # a bad token or a refused stream will not get better by retrying
            except (httpx.TransportError, httpx.DecodingError):
                pass
            time.sleep(delay)
            delay = min(delay * 2, 30.0)


def _server_sent_events(lines: Iterator[str]) -> Iterator[Event]:
    """Parse ``text/event-stream`` lines: ``id:``, ``event:`` and ``data:`` fields, a blank line ends one."""
    fields: dict[str, str] = {}
    for line in lines:
        if not line:
            if "data" in fields:
                payload = json.loads(fields["data"])
                ident = fields.get("id")
                yield Event(kind=fields.get("event", "message"), id=int(ident) if ident else None,
                            table=payload.get("table"), game=payload.get("game"), data=payload.get("data") or {})
            fields = {}
            continue
        if line.startswith(":"):
            continue  # a comment: the keep-alive
        name, _, value = line.partition(":")
        fields[name] = fields.get(name, "") + ("\n" if name == "data" and name in fields else "") + value.lstrip(" ")
