from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Sign-up, log-in from any device, named revocable tokens stored hashed, personal tokens with scopes."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts and tokens"
