from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "notify"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from maumau import ops
        from notify import channels, services
        from streams import signals

        signals.notifications_written.connect(services.notifications_written, dispatch_uid="notify")
        ops.DETAILS["notify"] = channels.status
