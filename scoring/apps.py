from django.apps import AppConfig


class ScoringConfig(AppConfig):
    """Results ledger, table scoreboards and league standings."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"
    verbose_name = "Scoring and leagues"
