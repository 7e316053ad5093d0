"""The ratings lose two indexes that each rated round paid an entry in for nothing: the player's (the
unique constraint now leads with the player) and the last round's (scoring.models.Rating says why).
The new unique constraint is made before the old one goes, so the rows are never without one."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_lobby_visibility_presence'),
        ('scoring', '0006_rating_references_unchecked'),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='rating',
            constraint=models.UniqueConstraint(fields=('player', 'rules'), name='scoring_rating_player_rules'),
        ),
        migrations.RemoveConstraint(
            model_name='rating',
            name='scoring_rating_rules_player',
        ),
        migrations.AlterField(
            model_name='rating',
            name='last_round',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='scoring.roundresult'),
        ),
        migrations.AlterField(
            model_name='rating',
            name='player',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='ratings', to='games.player'),
        ),
    ]
