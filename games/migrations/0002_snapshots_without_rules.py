"""Game snapshots stop carrying their rules: ``Game.rules`` holds them, once per round."""

from django.db import migrations

BATCH = 500


def rules_out(apps, schema_editor):  # type: ignore[no-untyped-def]
    Game = apps.get_model("games", "Game")  # noqa: N806
    batch = []
    for game in Game.objects.filter(state__has_key="rules").only("id", "state").iterator(chunk_size=BATCH):
        del game.state["rules"]
        batch.append(game)
        if len(batch) == BATCH:
            Game.objects.bulk_update(batch, ["state"])
            batch = []
    Game.objects.bulk_update(batch, ["state"])


def rules_in(apps, schema_editor):  # type: ignore[no-untyped-def]
    Game = apps.get_model("games", "Game")  # noqa: N806
    batch = []
    for game in Game.objects.only("id", "state", "rules").iterator(chunk_size=BATCH):
        game.state["rules"] = game.rules
        batch.append(game)
        if len(batch) == BATCH:
            Game.objects.bulk_update(batch, ["state"])
            batch = []
    Game.objects.bulk_update(batch, ["state"])


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]
    operations = [migrations.RunPython(rules_out, rules_in)]
