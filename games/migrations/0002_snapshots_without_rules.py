"""Game snapshots stop carrying their rules: ``Game.rules`` holds them, once per round."""

from django.db import migrations

BATCH = 500


def _states_rewrite(apps, change, **only):  # type: ignore[no-untyped-def]
    """Apply ``change(game)`` to the snapshot of every game matching ``only``, in batches."""
    Game = apps.get_model("games", "Game")  # noqa: N806
    batch = []
    for game in Game.objects.filter(**only).only("id", "state", "rules").iterator(chunk_size=BATCH):
        change(game)
        batch.append(game)
        if len(batch) == BATCH:
            Game.objects.bulk_update(batch, ["state"])
            batch = []
    Game.objects.bulk_update(batch, ["state"])


def rules_out(apps, schema_editor):  # type: ignore[no-untyped-def]
    _states_rewrite(apps, lambda game: game.state.pop("rules"), state__has_key="rules")


def rules_in(apps, schema_editor):  # type: ignore[no-untyped-def]
    _states_rewrite(apps, lambda game: game.state.update(rules=game.rules))


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]
    operations = [migrations.RunPython(rules_out, rules_in)]
