"""League only, and no dependency on games: games 0001 refers to it through Table.league.

The league's player references (loser, created_by) and the results ledger follow in 0002.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies: list[tuple[str, str]] = []

    operations = [
        migrations.CreateModel(
            name="League",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                (
                    "rules",
                    models.CharField(
                        choices=[("classic", "classic"), ("tavern", "tavern"), ("house", "house")], max_length=16
                    ),
                ),
                ("options", models.JSONField(default=dict)),
                (
                    "status",
                    models.CharField(
                        choices=[("active", "active"), ("finished", "finished")], default="active", max_length=16
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={"ordering": ["-id"]},
        ),
    ]
