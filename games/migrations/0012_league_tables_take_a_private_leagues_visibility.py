"""The tables of a private league were opened public unless the host said otherwise: they take their
league's visibility now (the service does so for every new one)."""

from django.db import migrations


def private_league_tables_private(apps, schema_editor):  # type: ignore[no-untyped-def]
    Table = apps.get_model("games", "Table")  # noqa: N806 - the historical model
    Table.objects.filter(league__visibility="private").exclude(visibility="private").update(visibility="private")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0011_game_reminder_at"),
    ]

    operations = [
        migrations.RunPython(private_league_tables_private, migrations.RunPython.noop),
    ]
