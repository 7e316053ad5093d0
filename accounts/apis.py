"""Thin DRF views of accounts: parse and validate, call one service or selector, render."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import exceptions, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services, throttles
from accounts.serializers import (
    AccountCreateSerializer,
    AccountCreatedSerializer,
    AccountDeleteSerializer,
    AccountSerializer,
    CredentialsSerializer,
    LoginResultSerializer,
    LoginSerializer,
    PasswordChangeSerializer,
    PasswordChangedSerializer,
    TokenCreateSerializer,
    TokenCreatedSerializer,
    TokenSerializer,
)
from games.serializers import PlayerCreateSerializer, PlayerCreatedSerializer
from maumau.schema import errors
from maumau.strict import validated

ACCOUNT = "account"  # the scope of the tokens made at sign-up and log-in


def example(name: str, value: dict[str, Any], description: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, description=description, request_only=True)


class PlayerCreateApi(APIView):
    """An open write, as the account sign-up: a guest and their token, throttled per client address."""

    permission_classes = [AllowAny]

    @extend_schema(summary="Sign up: a player and their token", request=PlayerCreateSerializer,
                   responses={201: PlayerCreatedSerializer, **errors(400, 429)}, auth=[],
                   examples=[example("A player", {"name": "Ada"})])
    def post(self, request: Request) -> Response:
        data = validated(PlayerCreateSerializer, request)
        player, token = services.player_create(name=data["name"])
        return Response({"id": player.pk, "name": player.name, "token": token}, status=status.HTTP_201_CREATED)


class AccountCreateApi(APIView):
    """An open write, as the guest sign-up: throttled per client address."""

    permission_classes = [AllowAny]

    @extend_schema(summary="Sign up with a username and a password", request=AccountCreateSerializer,
                   responses={201: AccountCreatedSerializer, **errors(400, 409, 429)}, auth=[],
                   examples=[example("A person", {"username": "ada", "password": "correct horse battery",
                                                  "name": "Ada", "device": "Ada's phone"}),
                             example("A bot account", {"username": "mau_bot", "password": "a long bot secret 42",
                                                       "bot": True, "device": "Server"})])
    def post(self, request: Request) -> Response:
        data = validated(AccountCreateSerializer, request)
        player, token, key = services.account_create(username=data["username"], password=data["password"],
                                                     name=data.get("name"), device=data["device"], bot=data["bot"])
        return Response({"id": player.pk, "name": player.name, "username": player.user.username,
                         "bot": player.is_bot, "token": key, "token_id": token.pk}, status=status.HTTP_201_CREATED)


class AccountApi(APIView):
    token_scopes = {"DELETE": ACCOUNT}

    @extend_schema(summary="The caller's account: username (null for a guest), bot or not",
                   responses={200: AccountSerializer, **errors(401)})
    def get(self, request: Request) -> Response:
        return Response(selectors.account_data(player=request.user.player))

    @extend_schema(summary="Delete the account: the name is anonymised, results and ledgers stay",
                   description="The caller leaves every table (bots play the seats on), its webhooks and tokens "
                               "are removed. Needs the password unless the account is a guest.",
                   request=AccountDeleteSerializer, responses={204: None, **errors(400, 401, 403, 429)},
                   examples=[example("With the password", {"password": "correct horse battery"}),
                             example("A guest", {})])
    def delete(self, request: Request) -> Response:
        data = validated(AccountDeleteSerializer, request)
        services.account_delete(user=request.user, player=request.user.player, password=data.get("password"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class CredentialsApi(APIView):
    token_scopes = {"POST": ACCOUNT}

    @extend_schema(summary="A guest sets a username and a password (and keeps everything)",
                   request=CredentialsSerializer, responses={200: AccountSerializer, **errors(400, 401, 403, 409, 429)},
                   examples=[example("Upgrade", {"username": "ada", "password": "correct horse battery"})])
    def post(self, request: Request) -> Response:
        data = validated(CredentialsSerializer, request)
        services.credentials_set(user=request.user, username=data["username"], password=data["password"])
        return Response(selectors.account_data(player=request.user.player))


class LoginApi(APIView):
    """Open, throttled per client address as every open write, and with growing delays after failures
    per account and per address (accounts.throttles)."""

    permission_classes = [AllowAny]

    @extend_schema(summary="Log in: a new token for this device",
                   description="A wrong username and a wrong password get the same 401 `invalid_credentials`. "
                               "After repeated failures, 429 with `Retry-After` until the delay has passed.",
                   request=LoginSerializer, responses={200: LoginResultSerializer, **errors(400, 401, 429)}, auth=[],
                   examples=[example("From a phone", {"username": "ada", "password": "correct horse battery",
                                                      "device": "Ada's phone"})])
    def post(self, request: Request) -> Response:
        data = validated(LoginSerializer, request)
        address = throttles.client_address(request)
        wait = throttles.login_claim(data["username"], address)  # claimed before the password is checked
        if wait > 0:
            raise exceptions.Throttled(wait=wait)
        try:
            token, key = services.login(username=data["username"], password=data["password"], device=data["device"])
        except services.InvalidCredentials:
            throttles.login_failed(data["username"], address)
            raise
        throttles.login_succeeded(data["username"], address)
        return Response({"token": key, "token_id": token.pk})


class LogoutApi(APIView):
    token_scopes = {"POST": None}  # any token may revoke itself

    @extend_schema(summary="Log out: revoke the token in use", request=None, responses={204: None, **errors(401, 429)})
    def post(self, request: Request) -> Response:
        services.logout(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordApi(APIView):
    token_scopes = {"POST": ACCOUNT}

    @extend_schema(summary="Change the password (the other tokens are revoked unless kept)",
                   request=PasswordChangeSerializer,
                   responses={200: PasswordChangedSerializer, **errors(400, 401, 403, 409, 429)},
                   examples=[example("Log the other devices out", {"old_password": "correct horse battery",
                                                                    "new_password": "battery staple horse"}),
                             example("Keep them", {"old_password": "correct horse battery",
                                                   "new_password": "battery staple horse",
                                                   "keep_other_tokens": True})])
    def post(self, request: Request) -> Response:
        data = validated(PasswordChangeSerializer, request)
        revoked = services.password_change(user=request.user, token=request.auth, old_password=data["old_password"],
                                           new_password=data["new_password"],
                                           keep_other_tokens=data["keep_other_tokens"])
        return Response({"revoked": revoked})


class TokenListCreateApi(APIView):
    token_scopes = {"POST": ACCOUNT}

    @extend_schema(summary="The caller's tokens (never their secrets)",
                   responses={200: TokenSerializer(many=True), **errors(401)})
    def get(self, request: Request) -> Response:
        return Response(selectors.token_list(user=request.user, current=request.auth))

    @extend_schema(summary="A personal token for a script or a bot (the secret is shown once)",
                   request=TokenCreateSerializer,
                   responses={201: TokenCreatedSerializer, **errors(400, 401, 403, 409, 429)},
                   examples=[example("A bot that plays", {"name": "my bot", "scopes": ["play"]}),
                             example("A leaderboard scraper for a month", {"name": "scraper", "scopes": ["read"],
                                                                          "expires_in": 2592000})])
    def post(self, request: Request) -> Response:
        data = validated(TokenCreateSerializer, request)
        token, key = services.token_create(user=request.user, name=data["name"], scopes=data["scopes"],
                                           expires_in=data.get("expires_in"))
        return Response({**selectors.token_data(token, current=request.auth), "token": key},
                        status=status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    token_scopes = {"DELETE": ACCOUNT}

    @extend_schema(summary="Revoke one of the caller's tokens", request=None,
                   responses={204: None, **errors(401, 403, 404, 429)})
    def delete(self, request: Request, token_id: int) -> Response:
        services.token_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
