"""``League`` moved down to the games app (state only: the table ``scoring_league`` stays)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0008_rating_one_board_index'),
        ('games', '0008_league_moved_from_scoring'),
        ('lobby', '0002_league_in_games'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='roundresult',
                    name='league',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='round_results', to='games.league'),
                ),
                migrations.AlterField(
                    model_name='playerresult',
                    name='league',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='player_results', to='games.league'),
                ),
                migrations.AlterField(
                    model_name='standing',
                    name='league',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='standings', to='games.league'),
                ),
                migrations.AlterField(
                    model_name='leagueresignation',
                    name='league',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='resignations', to='games.league'),
                ),
                migrations.DeleteModel(name='League'),
            ],
        ),
    ]
