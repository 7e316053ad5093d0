"""Game snapshots name their fields plainly: ``charged`` becomes ``penalized_plays``, and ``phase``
is only the step of a turn (``play`` or ``drawn``): a finished round says so in ``status`` alone."""

from django.db import migrations

BATCH = 500


def _states_rewrite(apps, change, **only):  # type: ignore[no-untyped-def]
    """Apply ``change(state)`` to the snapshot of every game matching ``only``, in batches."""
    Game = apps.get_model("games", "Game")  # noqa: N806
    batch = []
    for game in Game.objects.filter(**only).only("id", "state").iterator(chunk_size=BATCH):
        change(game.state)
        batch.append(game)
        if len(batch) == BATCH:
            Game.objects.bulk_update(batch, ["state"])
            batch = []
    Game.objects.bulk_update(batch, ["state"])


def _to_new(state):  # type: ignore[no-untyped-def]
    state["penalized_plays"] = state.pop("charged")
    if state["phase"] == "finished":
        state["phase"] = "play"


def _to_old(state):  # type: ignore[no-untyped-def]
    state["charged"] = state.pop("penalized_plays")
    if state["status"] == "finished":
        state["phase"] = "finished"


def fields_renamed(apps, schema_editor):  # type: ignore[no-untyped-def]
    _states_rewrite(apps, _to_new, state__has_key="charged")


def fields_as_before(apps, schema_editor):  # type: ignore[no-untyped-def]
    _states_rewrite(apps, _to_old, state__has_key="penalized_plays")


class Migration(migrations.Migration):
    dependencies = [("games", "0004_player_has_webhook")]
    operations = [migrations.RunPython(fields_renamed, fields_as_before)]
