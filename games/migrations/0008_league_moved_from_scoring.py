"""``League`` moves from the scoring app down to the stored game: tables point at it, and foreign
keys point downwards only. State only: the table keeps its name ``scoring_league`` and its rows."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_lobby_visibility_presence'),
        ('scoring', '0008_rating_one_board_index'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='League',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=100)),
                        ('rules', models.CharField(choices=[('classic', 'classic'), ('tavern', 'tavern'), ('house', 'house')], max_length=16)),
                        ('options', models.JSONField(default=dict)),
                        ('status', models.CharField(choices=[('active', 'active'), ('finished', 'finished')], default='active', max_length=16)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('loser', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='leagues_lost', to='games.player')),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='leagues_created', to='games.player')),
                    ],
                    options={'db_table': 'scoring_league', 'ordering': ['-id']},
                ),
                migrations.AlterField(
                    model_name='table',
                    name='league',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='tables', to='games.league'),
                ),
            ],
        ),
    ]
