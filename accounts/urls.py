"""Routes of /api/v1/ for accounts, log-in and tokens (no trailing slashes: docs/api.md)."""

from django.urls import path

from accounts import apis

urlpatterns = [
    path("players", apis.PlayerCreateApi.as_view(), name="player-create"),
    path("accounts", apis.AccountCreateApi.as_view(), name="account-create"),
    path("auth/login", apis.LoginApi.as_view(), name="auth-login"),
    path("auth/logout", apis.LogoutApi.as_view(), name="auth-logout"),
    path("me/account", apis.AccountApi.as_view(), name="me-account"),
    path("me/credentials", apis.CredentialsApi.as_view(), name="me-credentials"),
    path("me/password", apis.PasswordApi.as_view(), name="me-password"),
    path("me/tokens", apis.TokenListCreateApi.as_view(), name="me-tokens"),
    path("me/tokens/<id:token_id>", apis.TokenDetailApi.as_view(), name="me-token-detail"),
]
