from django.apps import AppConfig


class StreamsConfig(AppConfig):
    name = "streams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from streams import apis  # noqa: F401 - apis registers the long-poll schema extension
