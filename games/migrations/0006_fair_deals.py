"""Fair deals: a committed server seed per table for its next round, a server nonce and the player's
entropy per seat, and per round its commitment, entropy and practice mark. Existing tables get their
next seed and existing seats their nonce here; existing rounds stay as they were (no entropy: dealt
from their seed, and verified so)."""

import hashlib
import secrets

from django.db import migrations, models


def seeds_and_nonces_given(apps, schema_editor):  # type: ignore[no-untyped-def]
    Table = apps.get_model("games", "Table")
    Seat = apps.get_model("games", "Seat")
    for table in Table.objects.filter(next_seed="").only("id").iterator():
        seed = secrets.token_hex(32)
        Table.objects.filter(pk=table.pk).update(next_seed=seed,
                                                 next_commitment=hashlib.sha256(seed.encode()).hexdigest())
    for seat in Seat.objects.filter(nonce="").only("id").iterator():
        Seat.objects.filter(pk=seat.pk).update(nonce=secrets.token_hex(16))


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_snapshot_fields'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='commitment',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddField(
            model_name='game',
            name='entropy',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='game',
            name='practice',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='seat',
            name='entropy',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddField(
            model_name='seat',
            name='nonce',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddField(
            model_name='table',
            name='next_commitment',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddField(
            model_name='table',
            name='next_seed',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.RunPython(seeds_and_nonces_given, migrations.RunPython.noop),
    ]
