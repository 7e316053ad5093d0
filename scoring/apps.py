from django.apps import AppConfig


class ScoringConfig(AppConfig):
    """Round results, table scoreboards and league standings."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"
    verbose_name = "Scoring and leagues"
