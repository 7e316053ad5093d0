"""Read paths: what a caller may see of tables, rounds and the ledger.

Every card a caller gets passes through the engine's ``player_view`` (own hand, counts for the
others) or ``redact_events`` (the one redaction of events): the raw state, the seed and the
stock order never leave this module while a round runs (the seed is revealed once it is over,
``games.fairness``), and a table's next server seed never does (only its commitment).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, Q
from django.utils.translation import gettext_lazy as _

from games import engine, fairness, presence, sql
from games.ledger import initial_state, replay_action
from games.models import Game, League, LeagueMember, Move, Player, Seat, Table
from maumau.errors import ConflictError, NotFoundError

EVENTS_PAGE_MAX = 1000


def _iso(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def player_brief(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "bot": player.is_bot}


# --- tables ----------------------------------------------------------------------------------


def _tables_query() -> Any:
    return Table.objects.select_related("host").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")),
        Prefetch("games", queryset=Game.objects.filter(status="active").only("id", "table_id", "status", "practice"),
                 to_attr="active_games"),
    )


def _seat_presence(seat: Seat) -> dict[str, Any]:
    """When the seat's player was last seen, whether recently, and whether a bot stands in for an absent person."""
    person = seat.player.user_id is not None and not seat.player.is_bot
    return {"last_seen_at": _iso(seat.player.last_seen_at) if person else None,
            "online": presence.online(seat.player),
            "absent": person and seat.bot_controlled and not seat.left}


def table_data(table: Table, viewer: Player | None = None) -> dict[str, Any]:
    """The table as anyone who may see it sees it; its ``invite_code`` only for its seated players."""
    seats = list(table.seats.all())
    seated = viewer is not None and any(s.player_id == viewer.pk and not s.left for s in seats)
    active = getattr(table, "active_games", None)
    if active is None:
        active = list(table.games.filter(status="active").only("id", "practice"))
    return {
        "id": table.pk,
        "host": player_brief(table.host),
        "rules": table.rules,
        "options": table.options,
        "max_players": table.max_players,
        "league": table.league_id,
        "status": table.status,
        "visibility": table.visibility,
        "spectators": table.spectators,
        "spectator_delay": table.spectator_delay,
        "invite_code": table.invite_code if seated else None,
        "rounds_started": table.rounds_started,
        "free_seats": max(0, table.max_players - sum(1 for s in seats if not s.left)),
        "seats": [
            {
                "position": s.position,
                "player": player_brief(s.player),
                "bot_controlled": s.bot_controlled,
                "left": s.left,
                "entropy": {"value": s.entropy, "source": "player"} if s.entropy
                else {"value": s.nonce, "source": "server"},
                **_seat_presence(s),
            }
            for s in seats
        ],
        "next_commitment": table.next_commitment or None,
        "current_game": active[0].pk if active else None,
        "current_game_practice": active[0].practice if active else None,
        "created_at": _iso(table.created_at),
    }


def table_get(*, table_id: int, viewer: Player | None = None, invite_code: str | None = None) -> Table:
    """The table; a private one only for those who have a seat at it, at a league's table the league's
    current members, or who hold its ``invite_code`` (an invitee deciding whether to sit down: the view is
    the public one, without the code); 404 for anyone else, as for a table that does not exist."""
    table = _tables_query().filter(pk=table_id).first()
    if table is None or (table.visibility == "private" and not table.invite_code_matches(invite_code)
                         and not private_table_shown(table, viewer)):
        raise NotFoundError()
    return table


def private_table_shown(table: Table, viewer: Player | None) -> bool:
    """Whether ``viewer`` may see the private ``table``: a seat at it (its seats prefetched), or current
    membership of its league (a private league's tables are private: its members find them and join
    them without the invite code, as they read its standings)."""
    if viewer is None:
        return False
    if any(s.player_id == viewer.pk for s in table.seats.all()):
        return True
    return table.league_id is not None and LeagueMember.objects.filter(
        league_id=table.league_id, player=viewer, left_at__isnull=True).exists()


def table_list(*, status: str | None = "open", player: Player | None = None, limit: int = 100,
               viewer: Player | None = None) -> list[Table]:
    """Open tables by default (newest first); ``player`` limits to the tables they sit at. Private tables
    are listed only to ``viewer`` when they sit there or, at a league's table, are its current members."""
    query = _tables_query().order_by("-created_at", "-id")
    if status:
        query = query.filter(status=status)
    if player is not None:
        query = query.filter(seats__player=player, seats__left=False).distinct()
    else:
        private_mine = (Q(visibility="private") & (Q(seats__player=viewer) | Q(
            league__members__player=viewer, league__members__left_at__isnull=True))
                        if viewer is not None else Q(pk__in=[]))
        query = query.filter(Q(visibility="public") | private_mine).distinct()
    return list(query[:limit])


def player_me(*, player: Player) -> dict[str, Any]:
    tables = table_list(status=None, player=player, limit=200)
    query = League.objects.filter(Q(tables__seats__player=player) | Q(created_by=player)).distinct()
    leagues = [{"id": lg.pk, "name": lg.name, "rules": lg.rules, "status": lg.status} for lg in query]
    return {
        "id": player.pk,
        "name": player.name,
        "bot": player.is_bot,
        "created_at": _iso(player.created_at),
        "tables": [
            {
                **{k: v for k, v in table_data(t).items() if k in ("id", "rules", "status", "current_game", "host")},
                "position": next(s.position for s in t.seats.all() if s.player_id == player.pk and not s.left),
            }
            for t in tables
        ],
        "leagues": leagues,
    }


# --- games -----------------------------------------------------------------------------------


def game_for_player(*, game_id: int, player: Player) -> tuple[Game, list[Seat], int]:
    """The game, its seats in game-seat order and the caller's game seat; 404 otherwise.
    One query for the game, its seats and their players."""
    return seats_for_player(*game_with_seats(game_id=game_id), player=player)


def game_with_seats(*, game_id: int) -> tuple[Game, list[Seat]]:
    """The game and the seats of its table (by position, players loaded), in one query; 404 if missing."""
    found = sql.game_with_seats(game_id)
    if found is None:
        raise NotFoundError()
    return found


def game_for_watcher(*, game_id: int, player: Player,
                     invite_code: str | None = None) -> tuple[Game, list[Seat], int | None]:
    """Like :func:`game_for_player`, but a spectator of a public table gets the view of no seat
    (viewer ``None``). An outsider who may not watch (a private table, one that takes no spectators, or
    invited ones only and ``invite_code`` is not the table's) gets the 404 of a round that does not exist."""
    return seats_for_watcher(*game_with_seats(game_id=game_id), player=player, invite_code=invite_code)


def seats_for_watcher(game: Game, table_seats: list[Seat], *, player: Player,
                      invite_code: str | None = None) -> tuple[Game, list[Seat], int | None]:
    seats = game.seats_in_order(table_seats)
    viewer = next((i for i, s in enumerate(seats) if s.player_id == player.pk), None)
    if viewer is not None:
        return game, seats, viewer
    table = Table.objects.only("visibility", "spectators", "invite_code", "spectator_delay").get(pk=game.table_id)
    invited = table.invite_code_matches(invite_code)
    if table.visibility == "private" or table.spectators == "nobody" or (table.spectators == "invited"
                                                                          and not invited):
        raise NotFoundError()
    game.spectator_delay = table.spectator_delay  # type: ignore[attr-defined]
    return game, seats, None


def spectator_version(game: Game) -> int:
    """The last ledger row a spectator may see: ``spectator_delay`` moves behind while the round runs."""
    if game.status != "active":
        return game.version
    return max(0, game.version - getattr(game, "spectator_delay", 0))


def spectator_state(game: Game) -> engine.GameState:
    """The round as it was ``spectator_delay`` moves ago (replayed from the deal), or as it is now."""
    upto = spectator_version(game)
    if upto == game.version:
        return game.engine_state()
    state = initial_state(game)
    for move in game.moves.filter(seq__lte=upto).order_by("seq"):
        replay_action(state, move.actor, move.seat, move.action)
    return state


def seats_for_player(game: Game, table_seats: list[Seat], *, player: Player) -> tuple[Game, list[Seat], int]:
    """The game's seats in game-seat order (from its table's seats) and the caller's game seat.

    A caller without a seat gets the very 404 of a game that does not exist, so that outsiders
    cannot tell which round ids are in play."""
    seats = game.seats_in_order(table_seats)
    viewer = next((i for i, s in enumerate(seats) if s.player_id == player.pk), None)
    if viewer is None:
        raise NotFoundError()
    return game, seats, viewer


def game_etag(*, game: Game, viewer: int | None, player: Player) -> str:
    """Changes with every applied move (version) and differs per caller (views differ); a spectator's
    also names the version they see (``-s``), which is what their long-poll waits past."""
    if viewer is None:
        return f'"g{game.pk}-v{game.version}-p{player.pk}-s{spectator_version(game)}"'
    return f'"g{game.pk}-v{game.version}-p{player.pk}"'


def visible_version(game: Game, viewer: int | None) -> int:
    """The version of the view ``viewer`` gets: the round's, or a spectator's delayed one."""
    return game.version if viewer is not None else spectator_version(game)


def game_view(game: Game, state: engine.GameState, seats: list[Seat], viewer: int | None) -> dict[str, Any]:
    """The caller's view: engine player_view plus the service's fields."""
    view = engine.player_view(state, viewer)
    players = view.get("players")
    if isinstance(players, list):
        for entry in players:
            seat = seats[entry["seat"]]
            entry["name"] = seat.player.name
            entry["player"] = seat.player_id
            entry["bot"] = seat.bot_controlled or seat.player.is_bot  # a bot stands in, or a bot account
            entry["bot_controlled"] = seat.bot_controlled
            entry.update(_seat_presence(seat))
    result = game.result
    if result:
        result = {**result, "players": [
            {**line, "player": seats[line["seat"]].player_id, "name": seats[line["seat"]].player.name}
            for line in result.get("players", [])
        ]}
    active = game.status == "active"
    view.update(
        {
            "id": game.pk,
            "table": game.table_id,
            "number": game.number,
            "status": game.status,
            "version": game.version,
            "seat": viewer,
            "deadline": _iso(game.deadline) if active else None,
            "hermann_deadline": _iso(game.hermann_deadline) if active else None,
            "legal_actions": [postable(action) for action in engine.legal_actions(state, viewer)]
            if active and viewer is not None else [],
            "result": result,
            "practice": game.practice,
            "deal": fairness.deal_data(game, player=viewer is not None),  # a spectator's seed waits
        }
    )
    return view


def postable(action: dict[str, Any]) -> dict[str, Any]:
    """A listed action as a client may post it: a joker's names to choose from (a list in the engine's
    listing) go to ``as_choices`` and ``as`` holds the first, so that every field of a move has one type."""
    names = action.get("as")
    if not names or not any(isinstance(name, list) for name in names.values()):
        return action
    return {**action, "as": {joker: name[0] if isinstance(name, list) else name for joker, name in names.items()},
            "as_choices": {joker: list(name) for joker, name in names.items() if isinstance(name, list)}}


def game_view_for_player(*, game: Game, seats: list[Seat], viewer: int | None) -> dict[str, Any]:
    """The seat's view; for a spectator (``viewer`` None) the view of no seat, ``spectator_delay`` moves behind."""
    if viewer is not None:
        return game_view(game, game.engine_state(), seats, viewer)
    upto = spectator_version(game)
    view = game_view(game, spectator_state(game), seats, None)
    view.pop("hand", None)
    view["version"] = upto
    view["spectator"] = True
    view["delay"] = game.version - upto
    if upto != game.version:
        view["deadline"] = view["hermann_deadline"] = None
    return view


def move_data(move: Move, viewer: int | None, reveal: bool) -> dict[str, Any]:
    """One ledger row as ``viewer`` may see it. A refused play (``system``) names cards of its
    player's hand, so others see only its type until the round is over."""
    action = move.action
    if move.actor == "system" and not reveal and move.seat != viewer:
        action = {"type": action.get("type")}
    return {
        "seq": move.seq,
        "actor": move.actor,
        "seat": move.seat,
        "action": action,
        "events": engine.redact_events(move.events, viewer, reveal=reveal),
        "created_at": _iso(move.created_at),
    }


def events_for_player(*, game: Game, viewer: int | None, after: int = 0, limit: int = 500) -> dict[str, Any]:
    """The ledger after ``seq`` oldest first; participants see every hand once the round is over."""
    reveal = game.status == "finished" and viewer is not None
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    query = game.moves.filter(seq__gt=after)
    if viewer is None:  # a spectator: behind by the table's delay while the round runs
        query = query.filter(seq__lte=spectator_version(game))
    moves = list(query.order_by("seq")[:limit])
    deal = None
    if after <= 0:
        deal = engine.redact_events([engine.deal_event(initial_state(game))], viewer, reveal=reveal)[0]
    return {
        "game": game.pk,
        "version": game.version if viewer is not None else spectator_version(game),
        "status": game.status,
        "practice": game.practice,
        "revealed": reveal,
        "deal": deal,
        "moves": [move_data(m, viewer, reveal) for m in moves],
        "next_after": moves[-1].seq if moves else after,
    }


def fairness_for_player(*, game_id: int, player: Player) -> dict[str, Any]:
    """The deal's check for one of the round's players once it is over (it reveals the seed and
    every hand); 404 for anyone else, as if the round did not exist, and 409 while it runs."""
    game, table_seats = game_with_seats(game_id=game_id)
    if not any(seat.player_id == player.pk for seat in game.seats_in_order(table_seats)):
        raise NotFoundError()
    if game.status != "finished":
        raise ConflictError("table_state", _("The server seed is revealed when the round is over."),
                            details={"reason": "round_running"})
    return fairness.deal_report(game)
