"""Ratings. Rounds recorded before them are marked `rated` by the rule new rounds follow (not practice,
no bot made most of a person's turns, counted from the move ledger); `manage.py ratings_recompute`
then rates them (the migration leaves that to the command: it replays the whole ledger)."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Count, Q


def mark_rated(apps, schema_editor):
    RoundResult = apps.get_model("scoring", "RoundResult")
    PlayerResult = apps.get_model("scoring", "PlayerResult")
    Move = apps.get_model("games", "Move")
    rounds = list(RoundResult.objects.filter(practice=False).values_list("id", "game_id"))
    for start in range(0, len(rounds), 1000):
        chunk = dict(rounds[start:start + 1000])
        people = set(PlayerResult.objects.filter(round_id__in=chunk, player__is_bot=False)
                     .values_list("round__game_id", "seat"))
        taken = {(row["game_id"], row["seat"]) for row in
                 Move.objects.filter(game_id__in=chunk.values(), actor__in=("player", "bot", "clock"))
                 .values("game_id", "seat").annotate(by_bot=Count("id", filter=Q(actor="bot")), turns=Count("id"))
                 .order_by() if 2 * row["by_bot"] > row["turns"]}
        unrated = {game_id for game_id, seat in people & taken}
        RoundResult.objects.filter(id__in=[r for r, g in chunk.items() if g not in unrated]).update(rated=True)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0006_fair_deals'),
        ('scoring', '0004_league_resignations'),
    ]

    operations = [
        migrations.AddField(
            model_name='roundresult',
            name='rated',
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_rated, migrations.RunPython.noop),
        migrations.CreateModel(
            name='Rating',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('rules', models.CharField(choices=[('classic', 'classic'), ('tavern', 'tavern'), ('house', 'house')], max_length=16)),
                ('bot', models.BooleanField(default=False)),
                ('mu', models.FloatField()),
                ('sigma', models.FloatField()),
                ('rating', models.FloatField()),
                ('rounds', models.PositiveIntegerField(default=0)),
                ('last_round', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='scoring.roundresult')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='ratings', to='games.player')),
            ],
            options={
                'indexes': [models.Index(fields=['rules', '-rating', 'player'], name='scoring_rating_board'), models.Index(condition=models.Q(('bot', False)), fields=['rules', '-rating', 'player'], name='scoring_rating_board_people')],
                'constraints': [models.UniqueConstraint(fields=('rules', 'player'), name='scoring_rating_rules_player')],
            },
        ),
        migrations.CreateModel(
            name='RatingPoint',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('rules', models.CharField(choices=[('classic', 'classic'), ('tavern', 'tavern'), ('house', 'house')], max_length=16)),
                ('rank', models.PositiveSmallIntegerField()),
                ('mu', models.FloatField()),
                ('sigma', models.FloatField()),
                ('rating', models.FloatField()),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rating_points', to='games.player')),
                ('round', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rating_points', to='scoring.roundresult')),
            ],
            options={
                'indexes': [models.Index(fields=['player', 'rules', '-round'], name='scoring_ratingpoint_history')],
                'constraints': [models.UniqueConstraint(fields=('round', 'player'), name='scoring_ratingpoint_round_player')],
            },
        ),
    ]
