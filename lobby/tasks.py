"""Celery entry point of the lobby (ids in, the services re-check the world under their locks)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="lobby.sweep", ignore_result=True)
def lobby_sweep_task() -> dict[str, int]:
    """Fill the seeks whose wait for people is over with bots, and expire the seeks and challenges past
    their time."""
    from lobby import services

    return {"tables": services.seeks_fill_due(), "seeks_expired": services.seeks_expire(),
            "expired": services.challenges_expire()}
