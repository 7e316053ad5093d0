"""What a notification says away from the board, in the player's language, and nothing hidden: the
kind, the game and table, whose turn, the deadline, the URL to open. No hand, no drawn card."""

from __future__ import annotations

import functools
import json
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from notify import channels


def game_url(notification: Any) -> str:
    base = settings.MAUMAU_PUBLIC_URL
    if notification.kind == "season_over" and (notification.data or {}).get("league"):
        return f"{base}/#/league/{notification.data['league']}"
    if notification.game_id:
        return f"{base}/#/game/{notification.game_id}"
    if notification.table_id:
        return f"{base}/#/table/{notification.table_id}"
    return f"{base}/#/lobby"


def title_and_body(notification: Any, language: str) -> tuple[str, str]:
    language = language if language in {"en", "de", "fr"} else "en"
    if notification.kind in SAID_OF_THE_TABLE:
        return _said_of_the_table(notification.kind, language, notification.table_id)
    data = notification.data or {}
    with translation.override(language):
        where = _where(notification.table_id)
        if notification.kind == "deadline_soon":
            minutes = max(1, int(data.get("seconds_left") or 0) // 60)
            return _("Your time runs out"), _("%(where)s: %(minutes)s min left for your move.") % {
                "where": where, "minutes": minutes}
        if notification.kind == "season_over":
            return _("Season over"), _season_over_body(data)
        return _("League over"), _("The league %(name)s is over.") % {"name": data.get("name") or ""}


#: The kinds whose texts name only the table: said once per kind, language and table (the deliveries
#: reader says one for nearly every push, and switching the language costs more than the rest of it).
SAID_OF_THE_TABLE = ("your_turn", "challenge_received", "game_started", "round_over")


@functools.lru_cache(maxsize=4096)
def _said_of_the_table(kind: str, language: str, table: int | None) -> tuple[str, str]:
    with translation.override(language):
        where = _where(table)
        if kind == "your_turn":
            return _("Your turn"), _("%(where)s: it is your turn.") % {"where": where}
        if kind == "challenge_received":
            return _("A challenge"), _("%(where)s: you are challenged to a round.") % {"where": where}
        if kind == "game_started":
            return _("Your round starts"), _("%(where)s: the round has started.") % {"where": where}
        return _("Round over"), _("%(where)s: the round is over.") % {"where": where}


def _where(table: int | None) -> str:
    return _("Table %(table)s") % {"table": table} if table else _("Mau-Mau")


def _season_over_body(data: dict[str, Any]) -> str:
    """Which season ended, who won it and what comes next (in the language already chosen)."""
    parts = [_("Season %(season)s of the league %(name)s is over.") % {"season": data.get("season"),
                                                                      "name": data.get("name") or ""}]
    winners = ", ".join(str(w.get("name") or "") for w in data.get("winners") or [])
    if winners:
        parts.append(_("Won by %(winners)s.") % {"winners": winners})
    if data.get("next_season"):
        parts.append(_("Season %(season)s has begun.") % {"season": data["next_season"]})
    else:
        parts.append(_("The owner starts the next one."))
    return " ".join(parts)


def payload(notification: Any, language: str) -> dict[str, Any]:
    """The push payload (also the FCM/APNs data): at most :data:`channels.PAYLOAD_MAX_BYTES` as JSON."""
    title, body = title_and_body(notification, language)
    data = notification.data or {}
    body_json = {"kind": notification.kind, "id": notification.pk, "game": notification.game_id,
                 "table": notification.table_id, "turn": data.get("seat") if notification.kind in (
                     "your_turn", "deadline_soon") else None,
                 "deadline": data.get("deadline"), "title": title[:120], "body": body[:300],
                 "url": game_url(notification), "tag": topic(notification)}
    if len(json.dumps(body_json).encode()) > channels.PAYLOAD_MAX_BYTES:  # cannot happen with the caps above
        body_json["body"] = ""
    return body_json


def topic(notification: Any) -> str:
    """One per game and kind (RFC 8030 Topic: at most 32 base64url characters): a newer message
    replaces an older one."""
    where = notification.game_id or notification.table_id or 0
    if notification.kind == "season_over":  # one per league: a season's end replaces the one before
        where = (notification.data or {}).get("league") or 0
    return f"{notification.kind.replace('_', '')}-{where}"[:32]
