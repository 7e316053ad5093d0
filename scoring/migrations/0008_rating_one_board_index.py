"""The two leaderboard indexes (everyone's, and a partial one of people) become one that keeps people and
bots apart (scoring.models.Rating says why). The new index is made before the old ones go."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0007_rating_indexes_trimmed'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='rating',
            index=models.Index(fields=['rules', 'bot', '-rating', 'player'], name='scoring_rating_boards'),
        ),
        migrations.RemoveIndex(
            model_name='rating',
            name='scoring_rating_board',
        ),
        migrations.RemoveIndex(
            model_name='rating',
            name='scoring_rating_board_people',
        ),
    ]
