"""Practice rounds (a chosen seed or setup) are marked in the results ledger; earlier rounds stay as recorded."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0002_league_created_by_league_loser_roundresult_and_more'),
    ]

    operations = [
        migrations.AddField(
            model_name='playerresult',
            name='practice',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='roundresult',
            name='practice',
            field=models.BooleanField(default=False),
        ),
    ]
