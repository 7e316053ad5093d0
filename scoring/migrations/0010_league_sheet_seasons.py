"""League members, seasons and the scoresheet (recorded rounds, verdicts, corrections, the race chart).

Existing leagues: their creator owns them and every player with a standing is a member; their running
(or finished) season is season 1; each counted line is marked counted and each player's biggest round
and the race chart are built from the ledger, as `standings_recompute` would.
"""

import secrets

import django.db.models.deletion
from django.db import migrations, models


def members_and_first_seasons(apps, schema_editor):
    League = apps.get_model("games", "League")
    LeagueMember = apps.get_model("games", "LeagueMember")
    Standing = apps.get_model("scoring", "Standing")
    Season = apps.get_model("scoring", "Season")
    RoundResult = apps.get_model("scoring", "RoundResult")
    PlayerResult = apps.get_model("scoring", "PlayerResult")
    LeagueResignation = apps.get_model("scoring", "LeagueResignation")
    RacePoint = apps.get_model("scoring", "RacePoint")
    for league in League.objects.all().iterator():
        if not league.invite_code:
            league.invite_code = secrets.token_urlsafe(12)
        members = {}
        if league.created_by_id is not None:
            members[league.created_by_id] = "owner"
        for player_id in Standing.objects.filter(league=league).values_list("player_id", flat=True):
            members.setdefault(player_id, "member")
        LeagueMember.objects.bulk_create(
            [LeagueMember(league=league, player_id=player_id, role=role) for player_id, role in members.items()],
            ignore_conflicts=True,
        )
        resigned = dict(LeagueResignation.objects.filter(league=league).values_list("player_id", "after_round_id"))
        ended_by = ""
        if league.status == "finished":
            ended_by = "resigned" if league.loser_id in resigned else "limit"
        Season.objects.create(league=league, number=1, started_at=league.created_at, ended_at=league.finished_at,
                              ended_by=ended_by, loser_id=league.loser_id)
        totals, best, steps, race, counted_lines = {}, {}, 0, [], []
        lines = PlayerResult.objects.filter(league=league, round__counted=True, practice=False).order_by(
            "round_id", "seat").values_list("id", "round_id", "player_id", "points")
        current, touched = None, []

        def close():
            nonlocal steps
            if current is None:
                return
            steps += 1
            race.extend(RacePoint(league=league, season=1, step=steps, round_id=current, player_id=player_id,
                                  points=totals.get(player_id, 0)) for player_id in touched)

        for line_id, round_id, player_id, points in lines.iterator():
            if round_id != current:
                close()
                current, touched = round_id, []
            touched.append(player_id)
            if player_id in resigned and (resigned[player_id] or 0) < round_id:
                continue  # withdrawn: the line does not count
            counted_lines.append(line_id)
            totals[player_id] = totals.get(player_id, 0) + points
            best[player_id] = max(best.get(player_id, 0), points)
        close()
        RacePoint.objects.bulk_create(race, batch_size=1000)
        for start in range(0, len(counted_lines), 1000):
            PlayerResult.objects.filter(id__in=counted_lines[start:start + 1000]).update(counted=True)
        for player_id, points in best.items():
            Standing.objects.filter(league=league, player_id=player_id).update(best_round=points)
        league.steps = steps
        league.save(update_fields=["invite_code", "steps"])


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_league_members_seasons'),
        ('scoring', '0009_league_moved_to_games'),
    ]

    operations = [
        migrations.CreateModel(
            name='RacePoint',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('season', models.PositiveIntegerField()),
                ('step', models.PositiveIntegerField()),
                ('points', models.PositiveIntegerField()),
            ],
        ),
        migrations.CreateModel(
            name='RoundVerdict',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('confirm', 'confirm'), ('dispute', 'dispute')], max_length=8)),
                ('at', models.DateTimeField()),
            ],
        ),
        migrations.CreateModel(
            name='Season',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField()),
                ('started_at', models.DateTimeField()),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('ended_by', models.CharField(blank=True, choices=[('', ''), ('limit', 'limit'), ('resigned', 'resigned'), ('closed', 'closed')], default='', max_length=8)),
            ],
            options={
                'ordering': ['league_id', 'number'],
            },
        ),
        migrations.RemoveConstraint(
            model_name='leagueresignation',
            name='scoring_resignation_league_player',
        ),
        migrations.RemoveConstraint(
            model_name='standing',
            name='scoring_standing_league_player',
        ),
        migrations.AddField(
            model_name='leagueresignation',
            name='season',
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.AddField(
            model_name='playerresult',
            name='counted',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='roundresult',
            name='corrects',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='corrections', to='scoring.roundresult'),
        ),
        migrations.AddField(
            model_name='roundresult',
            name='kind',
            field=models.CharField(choices=[('played', 'played'), ('recorded', 'recorded')], default='played', max_length=8),
        ),
        migrations.AddField(
            model_name='roundresult',
            name='recorded_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='rounds_recorded', to='games.player'),
        ),
        migrations.AddField(
            model_name='roundresult',
            name='season',
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.AddField(
            model_name='roundresult',
            name='sheet',
            field=models.CharField(blank=True, choices=[('', ''), ('pending', 'pending'), ('counted', 'counted'), ('disputed', 'disputed'), ('corrected', 'corrected'), ('void', 'void')], default='', max_length=10),
        ),
        migrations.AddField(
            model_name='standing',
            name='best_round',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='standing',
            name='season',
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.AlterField(
            model_name='playerresult',
            name='table',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='player_results', to='games.table'),
        ),
        migrations.AlterField(
            model_name='roundresult',
            name='game',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='round_result', to='games.game'),
        ),
        migrations.AlterField(
            model_name='roundresult',
            name='table',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='round_results', to='games.table'),
        ),
        migrations.AddIndex(
            model_name='roundresult',
            index=models.Index(fields=['league', 'season', 'id'], name='scoring_round_league_season'),
        ),
        migrations.AddConstraint(
            model_name='leagueresignation',
            constraint=models.UniqueConstraint(fields=('league', 'season', 'player'), name='scoring_resignation_season_player'),
        ),
        migrations.AddConstraint(
            model_name='standing',
            constraint=models.UniqueConstraint(fields=('league', 'season', 'player'), name='scoring_standing_league_season_player'),
        ),
        migrations.AddField(
            model_name='racepoint',
            name='league',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='games.league'),
        ),
        migrations.AddField(
            model_name='racepoint',
            name='player',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='games.player'),
        ),
        migrations.AddField(
            model_name='racepoint',
            name='round',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='scoring.roundresult'),
        ),
        migrations.AddField(
            model_name='roundverdict',
            name='after_round',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='scoring.roundresult'),
        ),
        migrations.AddField(
            model_name='roundverdict',
            name='player',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='games.player'),
        ),
        migrations.AddField(
            model_name='roundverdict',
            name='round',
            field=models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='verdict', to='scoring.roundresult'),
        ),
        migrations.AddField(
            model_name='season',
            name='after_round',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='scoring.roundresult'),
        ),
        migrations.AddField(
            model_name='season',
            name='league',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='seasons', to='games.league'),
        ),
        migrations.AddField(
            model_name='season',
            name='loser',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='games.player'),
        ),
        migrations.AddIndex(
            model_name='racepoint',
            index=models.Index(fields=['league', 'season', 'step'], name='scoring_race_step'),
        ),
        migrations.AddConstraint(
            model_name='season',
            constraint=models.UniqueConstraint(fields=('league', 'number'), name='scoring_season_league_number'),
        ),
        migrations.RunPython(members_and_first_seasons, migrations.RunPython.noop),
    ]
