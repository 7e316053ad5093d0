from django.apps import AppConfig


class StreamsConfig(AppConfig):
    name = "streams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Listen to the games app's on-commit signals: no code in move_submit knows about us."""
        from streams import apis, hooks  # noqa: F401 - apis registers the long-poll schema extension

        hooks.connect()
