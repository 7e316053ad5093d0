"""The ratings' references to the ledger and to players lose their database constraints (each cost a
check at commit of the move that rates a round) and the ratings history its two indexes that others
already lead with (scoring.models.RatingPoint says why)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_lobby_visibility_presence'),
        ('scoring', '0005_ratings'),
    ]

    operations = [
        migrations.AlterField(
            model_name='rating',
            name='last_round',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='scoring.roundresult'),
        ),
        migrations.AlterField(
            model_name='ratingpoint',
            name='player',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='rating_points', to='games.player'),
        ),
        migrations.AlterField(
            model_name='ratingpoint',
            name='round',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='rating_points', to='scoring.roundresult'),
        ),
    ]
