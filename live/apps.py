from django.apps import AppConfig


class LiveConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "live"
    verbose_name = "Live"

    def ready(self) -> None:
        from live import schema  # noqa: F401 - registers the long-poll's schema extension
