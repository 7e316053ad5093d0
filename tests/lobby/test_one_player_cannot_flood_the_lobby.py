"""One player cannot flood the lobby: a few open seeks each, seeks expire, the list shows everyone's,
and challenges are capped per challenger and per person challenged."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from lobby.models import Challenge, Seek
from lobby.tasks import lobby_sweep_task

ON_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]


def seek(client, **body):  # type: ignore[no-untyped-def]
    return client.post("/api/v1/seeks", {"rules": "classic", "players": 2, **body}, format="json")


def challenge(client, to, **body):  # type: ignore[no-untyped-def]
    return client.post("/api/v1/challenges", {"to": to, "rules": "classic", **body}, format="json")


@pytest.mark.django_db
def test_a_player_holds_at_most_a_few_open_seeks(make_player, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MAUMAU_SEEKS_PER_PLAYER = 3
    ada = make_player("Ada")
    made = [seek(ada, turn_seconds=30 + i) for i in range(3)]
    assert [r.status_code for r in made] == [201] * 3
    refused = seek(ada, turn_seconds=99)
    assert refused.status_code == 409, refused.content
    assert refused.json()["error"]["code"] == "too_many_seeks"
    assert refused.json()["error"]["details"]["limit"] == 3
    assert Seek.objects.filter(status="open").count() == 3
    assert ada.delete(f"/api/v1/seeks/{made[0].json()['id']}").status_code == 204
    assert seek(ada, turn_seconds=99).status_code == 201  # a cancelled seek frees its place


@pytest.mark.django_db
def test_one_players_many_seeks_do_not_hide_the_later_seeks_of_others(make_player, settings) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    settings.MAUMAU_SEEKS_PER_PLAYER = 3
    flood, bob = make_player("Flood"), make_player("Bob")
    first = seek(flood, turn_seconds=10).json()
    base = Seek.objects.get(pk=first["id"])
    Seek.objects.bulk_create([  # written before the cap existed, or past it some other way
        Seek(player=base.player, rules=base.rules, options=base.options, players=2, pool=f"flood-{i}")
        for i in range(120)])
    later = seek(bob, players=3).json()
    listed = bob.get("/api/v1/seeks").json()
    assert later["id"] in [s["id"] for s in listed], "a later seek was crowded out"
    assert sum(s["player"]["id"] == flood.player_id for s in listed) <= 3
    page = bob.get("/api/v1/seeks", {"limit": 1}).json()
    assert len(page) == 1
    rest = bob.get("/api/v1/seeks", {"after": page[0]["id"]}).json()
    assert page[0]["id"] not in [s["id"] for s in rest] and later["id"] in [s["id"] for s in rest]
    for bad in ({"limit": 0}, {"limit": 101}, {"after": -1}, {"limit": "x"}):
        assert bob.get("/api/v1/seeks", bad).status_code == 400, bad


@pytest.mark.django_db
def test_seeks_expire_leave_the_lobby_and_are_never_matched(make_player, settings) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    settings.MAUMAU_SEEK_EXPIRES_SECONDS = 1800
    ada, bob = make_player("Ada"), make_player("Bob")
    old = seek(ada).json()
    with time_machine.travel(timezone.now() + timedelta(seconds=1801)):
        assert bob.get("/api/v1/seeks").json() == []
        assert ada.get(f"/api/v1/seeks/{old['id']}").json()["status"] == "expired"
        fresh = seek(bob).json()
        assert fresh["status"] == "open" and fresh["game"] is None, "matched with an expired seek"
        lobby_sweep_task()
    assert Seek.objects.get(pk=old["id"]).status == "expired"
    assert Seek.objects.get(pk=fresh["id"]).status == "open"
    assert seek(ada).json()["status"] == "matched"  # ada may seek again, and meets bob


@pytest.mark.django_db
def test_thirty_challenges_to_one_stranger_are_refused_after_the_first(make_player) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    ada, bob = make_player("Ada"), make_player("Bob")
    answers = [challenge(ada, [bob.player_id]) for _ in range(30)]
    assert [a.status_code for a in answers] == [201] + [409] * 29
    assert answers[1].json()["error"]["code"] == "already_challenged"
    assert Challenge.objects.filter(status="open").count() == 1
    assert ada.delete(f"/api/v1/challenges/{answers[0].json()['id']}").status_code == 204
    assert challenge(ada, [bob.player_id]).status_code == 201  # once answered or cancelled, again


@pytest.mark.django_db
def test_a_challenger_holds_a_few_pending_challenges_at_most(make_player, settings) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    settings.MAUMAU_CHALLENGES_PER_PLAYER = 3
    ada = make_player("Ada")
    others = [make_player(f"P{i}") for i in range(4)]
    assert [challenge(ada, [p.player_id]).status_code for p in others[:3]] == [201] * 3
    refused = challenge(ada, [others[3].player_id])
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "too_many_challenges"
    assert refused.json()["error"]["details"]["limit"] == 3
    with time_machine.travel(timezone.now() + timedelta(days=2)):  # expired ones hold no place
        assert challenge(ada, [others[3].player_id]).status_code == 201


@pytest.mark.postgres_only
@pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: concurrent transactions on real connections")
@pytest.mark.django_db(transaction=True)
def test_concurrent_seeks_and_challenges_of_one_player_stay_within_the_caps(make_player, settings) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    settings.MAUMAU_SEEKS_PER_PLAYER = 3
    ada, bob = make_player("Ada"), make_player("Bob")
    barrier = threading.Barrier(20)
    statuses: list[tuple[str, int]] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {ada.token}")
        barrier.wait()
        try:
            if i % 2:
                response, kind = seek(client, turn_seconds=30 + i), "seek"
            else:
                response, kind = challenge(client, [bob.player_id]), "challenge"
            with lock:
                statuses.append((kind, response.status_code))
        finally:
            connection.close()

    workers = [threading.Thread(target=one, args=(i,)) for i in range(20)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert sorted(code for kind, code in statuses if kind == "seek") == [201] * 3 + [409] * 7
    assert sorted(code for kind, code in statuses if kind == "challenge") == [201] + [409] * 9
    assert Seek.objects.filter(status="open").count() == 3
    assert Challenge.objects.filter(status="open").count() == 1
