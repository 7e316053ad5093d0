from django.db import migrations, models


def flags_from_webhooks(apps, schema_editor):
    """Players who already have an active webhook get the flag."""
    Player = apps.get_model("games", "Player")
    Webhook = apps.get_model("streams", "Webhook")
    owners = Webhook.objects.filter(active=True).values("player_id")
    Player.objects.filter(pk__in=owners).update(has_webhook=True)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0003_move_game_index_covered"),
        ("streams", "0002_notification_player_index_covered"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="has_webhook",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(flags_from_webhooks, migrations.RunPython.noop),
    ]
