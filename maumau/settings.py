"""12-factor settings: everything that differs between machines comes from the environment.

Defaults run on a fresh machine with nothing but Python: an SQLite file (WAL, busy timeout,
immediate transactions so concurrent writers queue instead of failing), an in-process cache
and a filesystem Celery broker. Set DATABASE_URL, CACHE_URL and CELERY_BROKER_URL to run on
PostgreSQL and Redis/RabbitMQ with the same code.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.utils.translation import gettext_lazy as _

from maumau import observability

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("MAUMAU_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "")
    return float(value) if value.strip() else default


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY") or "insecure-dev-key-set-SECRET_KEY-in-production"
ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "*").split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "streams",
    "notify",
    "scoring",
    "play",
    "lobby",
    "live",
    "client",
]

MIDDLEWARE = [
    "maumau.observability.RequestObservabilityMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "maumau.staticfiles.StaticFilesMiddleware",
    "maumau.compression.CompressedAnswersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "live.middleware.WaitingRouteMiddleware",
]

ROOT_URLCONF = "maumau.urls"
CSRF_FAILURE_VIEW = "maumau.errors.csrf_failure"
WSGI_APPLICATION = "maumau.wsgi.application"
ASGI_APPLICATION = "maumau.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "maumau" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


#: The hot path's fixed SQL (games/sql.py) as prepared statements on PostgreSQL.
MAUMAU_PREPARED_STATEMENTS = os.environ.get("MAUMAU_PREPARED_STATEMENTS", "true").lower() not in ("0", "false", "no")

# --- PostgreSQL connections ----------------------------------------------------------------
# One psycopg pool per process (ASGI and WSGI alike): a request borrows a connection at its first
# query and gives it back when it ends, so a process never holds more than MAX_SIZE connections
# for requests (plus the streams' own: STREAMS_DB_THREADS and one LISTEN connection under ASGI),
# however many requests or threads it serves,
# and a pooled connection keeps its prepared statements across requests. Each connection is checked
# when it is borrowed, so one dropped by the server is replaced instead of failing a request.
# Without the pool (MAUMAU_DB_POOL=false) connections persist per thread for CONN_MAX_AGE seconds.
MAUMAU_DB_POOL = env_bool("MAUMAU_DB_POOL", True)
MAUMAU_DB_POOL_MIN_SIZE = int(os.environ.get("MAUMAU_DB_POOL_MIN_SIZE", "2"))
MAUMAU_DB_POOL_MAX_SIZE = int(os.environ.get("MAUMAU_DB_POOL_MAX_SIZE", "10"))
#: Threads that run the ORM for waiting clients (never the threads that serve moves). Each keeps a
#: pooled connection of its own (``streams.channels``), so the pool holds that many more than
#: MAX_SIZE: the requests still have MAX_SIZE, and a waiting client's read never queues behind them.
STREAMS_DB_THREADS = int(env_float("STREAMS_DB_THREADS", 4))
#: Seconds a request waits for a free connection before it fails, instead of queueing forever.
MAUMAU_DB_POOL_TIMEOUT = float(os.environ.get("MAUMAU_DB_POOL_TIMEOUT", "10"))
#: How the service's connections show in pg_stat_activity (the LISTEN connection adds "-listen").
MAUMAU_DB_APPLICATION_NAME = "maumau"


def database_pool_options() -> dict[str, Any]:
    """psycopg_pool.ConnectionPool's bounds, checked here so that a bad value stops the start."""
    from django.core.exceptions import ImproperlyConfigured

    if not 0 <= MAUMAU_DB_POOL_MIN_SIZE <= MAUMAU_DB_POOL_MAX_SIZE or MAUMAU_DB_POOL_MAX_SIZE < 1:
        raise ImproperlyConfigured("MAUMAU_DB_POOL_MIN_SIZE must be 0 or more and at most MAUMAU_DB_POOL_MAX_SIZE "
                                   "(1 or more)")
    if not 0 < MAUMAU_DB_POOL_TIMEOUT <= 3600:
        raise ImproperlyConfigured("MAUMAU_DB_POOL_TIMEOUT must be a number of seconds above 0, at most 3600")
    if not 1 <= STREAMS_DB_THREADS <= 64:
        raise ImproperlyConfigured("STREAMS_DB_THREADS must be 1 to 64")
    return {"min_size": MAUMAU_DB_POOL_MIN_SIZE, "max_size": MAUMAU_DB_POOL_MAX_SIZE + STREAMS_DB_THREADS,
            "timeout": MAUMAU_DB_POOL_TIMEOUT, "name": MAUMAU_DB_APPLICATION_NAME}


def database_config() -> dict[str, Any]:
    """DATABASE_URL, or an SQLite file tuned for several writers (web threads, worker, beat)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        config = dj_database_url.parse(url, conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")))
        # One test database per test run (subprocesses inherit the suffix), so that several runs
        # on one server (developers side by side, CI) never drop or migrate each other's database.
        suffix = os.environ.setdefault("MAUMAU_TEST_DB_SUFFIX", str(os.getpid()))
        config["TEST"] = {"NAME": f"test_{config['NAME']}_{suffix}"}
        if config["ENGINE"] == "django.db.backends.postgresql":
            options = config.setdefault("OPTIONS", {})
            options.setdefault("application_name", MAUMAU_DB_APPLICATION_NAME)
            if MAUMAU_DB_POOL:
                # Checks each connection it borrows from the pool (maumau/postgresql/base.py says why not
                # the pool's own check, which CONN_HEALTH_CHECKS would turn on).
                config["ENGINE"] = "maumau.postgresql"
                config["CONN_MAX_AGE"] = 0  # the pool keeps the connections; Django must not
                options["pool"] = database_pool_options()
            else:
                config["CONN_HEALTH_CHECKS"] = True  # a persistent connection is checked when a request reuses it
            if MAUMAU_PREPARED_STATEMENTS:
                # Django turns psycopg's automatic preparation off; this turns it back on. It only acts
                # on server-binding cursors, i.e. games/sql.py's fixed statements, not on the ORM's.
                options["prepare_threshold"] = 5
        return config
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(VAR_DIR / "db.sqlite3"),
        "OPTIONS": {
            # BEGIN IMMEDIATE takes the write lock up front: a second writer waits for
            # `timeout` seconds instead of failing with "database is locked" on upgrade.
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;",
        },
    }


DATABASES = {"default": database_config()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


def cache_config() -> dict[str, Any]:
    url = os.environ.get("CACHE_URL", "")
    if url.startswith(("redis://", "rediss://", "unix://")):
        # Bounded socket waits: a Redis that stopped answering costs a request 2 s, not forever
        # (the throttles then fail open, maumau.throttling).
        return {"BACKEND": "maumau.cache.SharedClientRedisCache", "LOCATION": url,
                "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2}}
    if url.startswith("dummy://"):
        return {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "maumau"}


CACHES = {"default": cache_config()}
# Who is watching which game (games.presence): marks the web processes write and the Celery workers
# read, so it must be shared across processes: the Redis cache when there is one, else files under var/.
CACHES["presence"] = (dict(CACHES["default"]) if CACHES["default"]["BACKEND"].endswith("RedisCache")
                      else {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                            "LOCATION": str(VAR_DIR / "presence")})

# Argon2id first (argon2-cffi; Django's parameters: time_cost 2, memory_cost 100 MiB, parallelism 8);
# the others only verify hashes made before, and a log-in rehashes them with Argon2.
PASSWORD_HASHERS = [
    "accounts.hashers.BoundedArgon2PasswordHasher",  # Django's, at most MAUMAU_PASSWORD_HASHES_AT_ONCE at a time
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in ("UserAttributeSimilarityValidator", "MinimumLengthValidator", "CommonPasswordValidator",
                 "NumericPasswordValidator")
]
# Accounts (accounts/): tokens per user, how often a token's last use is written, growing delays after
# failed log-ins (accounts/throttles.py): free failures per account and per address, the longest delay.
MAUMAU_TOKENS_PER_USER = int(os.environ.get("MAUMAU_TOKENS_PER_USER", "100"))
MAUMAU_TOKEN_LAST_USED_SECONDS = int(os.environ.get("MAUMAU_TOKEN_LAST_USED_SECONDS", "300"))
MAUMAU_LOGIN_FREE_FAILURES = int(os.environ.get("MAUMAU_LOGIN_FREE_FAILURES", "3"))
MAUMAU_LOGIN_FREE_FAILURES_PER_ADDRESS = int(os.environ.get("MAUMAU_LOGIN_FREE_FAILURES_PER_ADDRESS", "20"))
MAUMAU_LOGIN_MAX_DELAY_SECONDS = int(os.environ.get("MAUMAU_LOGIN_MAX_DELAY_SECONDS", "900"))
# Argon2 hashes one process computes at once (accounts/hashers.py); the other log-ins wait their turn.
MAUMAU_PASSWORD_HASHES_AT_ONCE = int(os.environ.get("MAUMAU_PASSWORD_HASHES_AT_ONCE", "2"))

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("de", _("German")), ("fr", _("French"))]
LOCALE_PATHS = [BASE_DIR / "games" / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# Collected by `manage.py collectstatic` (bin/serve runs it), compressed, and served by WhiteNoise
# (maumau/staticfiles.py) under uvicorn and gunicorn alike.
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "maumau.staticfiles.HashedStaticFilesStorage"},
}

# --- DRF -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.PlayerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated", "accounts.permissions.TokenScopes"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["maumau.parsers.StrictJSONParser"],
    "DEFAULT_THROTTLE_CLASSES": ["maumau.throttles.WriteThrottle"],
    "EXCEPTION_HANDLER": "maumau.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    # Reverse proxies in front of the service whose X-Forwarded-For is believed (0: none, the
    # peer's address is the client's). Each address-keyed throttle (sign-ups) reads it.
    "NUM_PROXIES": max(0, int(os.environ.get("MAUMAU_NUM_PROXIES", "0"))),
}
# Writes per caller (token) and player sign-ups per client address. Read by the throttle at
# request time, so tests and benchmarks can change them.
MAUMAU_WRITE_RATE = os.environ.get("MAUMAU_WRITE_RATE", "300/min")
MAUMAU_SIGNUP_RATE = os.environ.get("MAUMAU_SIGNUP_RATE", "30/min")

SPECTACULAR_SETTINGS = {
    "TITLE": "Mau-Mau API",
    "DESCRIPTION": (
        "Play Mau-Mau (classic, tavern, house rules) by API. Authenticate with "
        "`Authorization: Token <key>` from `POST /api/v1/players` (a guest), `POST /api/v1/accounts` or "
        "`POST /api/v1/auth/login`. Every non-2xx answer is "
        '`{"error": {"code", "message", "details"}}`; messages follow Accept-Language (en, de, fr).'
    ),
    "VERSION": "1.1.0",
    # The licence of this API description (and of the clients generated from it, sdk/typescript).
    "LICENSE": {"name": "MIT", "identifier": "MIT"},
    # Swagger UI and ReDoc from this server's static files (drf-spectacular-sidecar), not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",  # operations are grouped (tagged) by what follows: tables, games, ...
    "COMPONENT_SPLIT_REQUEST": True,
    # OpenAPI 3.1: null is a type of its own, so a nullable reference needs no `nullable` beside `allOf`.
    "OAS_VERSION": "3.1.0",
    # Relative: the schema describes whichever host serves it.
    "SERVERS": [{"url": "/", "description": "The server that serves this schema."}],
    # Named components (the cards, actions, events and options of games.schema, the error shape of
    # maumau.schema, the streams of live.schema); then refs to the null enum become `type: null`.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "maumau.schema.error_headers",
                             "games.schema.add_components", "live.schema.add_components",
                             "maumau.schema.required_bodies", "maumau.schema.finish"],
    # <id:...> (maumau/converters.py): at most 18 digits.
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}},
    # Stable names for the enums serializers write out (a generated client's type names): every choice
    # set has its name here, or drf-spectacular invents one (`<Field>Enum`, a hash on a collision) that
    # changes with the values; tests/contract/test_schema_names.py fails on an invented name.
    "ENUM_NAME_OVERRIDES": {
        "CallWord": "games.engine.actions.WORDS",
        "Suit": "games.engine.cards.SUITS",
        "Rules": "games.schema.RULE_SETS",
        "TableStatus": "games.models.Table.STATUS",
        "RoundStatus": "games.models.Game.STATUS",
        "Actor": "games.models.Move.ACTORS",
        "Visibility": "games.models.Table.VISIBILITY",
        "Spectators": "games.models.Table.SPECTATORS",
        "NextSeason": ["owner", "auto"],
        "LeagueRole": "games.models.LeagueMember.ROLES",
        "AssignableLeagueRole": ["scorekeeper", "member"],
        "SeekStatus": "lobby.models.Seek.STATUS",
        "ChallengeStatus": "lobby.models.Challenge.STATUS",
        "ChallengeAnswer": ["pending", "accepted", "declined"],
        "TurnPhase": ["play", "drawn", "finished"],
        "DealKind": ["fair", "practice", "seed"],
        "EntropySource": ["player", "server"],
        "FinishReason": ["mau_mau", "stalemate", "max_turns", "resigned"],
        "LeagueRoundSource": "scoring.models.RoundResult.SOURCES",
        "SheetStatus": ["counted", "pending", "disputed", "corrected", "void"],
        "SheetMarkKind": ["confirm", "dispute"],
        "Language": ["en", "de", "fr"],
        "PushPlatform": "notify.models.PLATFORMS",
        "WebhookEvent": "streams.apis.EVENT_KINDS",
        "ResultReason": "games.schema.RESULT_REASONS",
        "Scoring": "games.engine.rules.SCORINGS",
        "Direction": [(1, "1"), (-1, "-1")],
        "DeliveryStatus": "streams.apis.DELIVERY_STATUSES",
        "BotLevel": "games.engine.bots.BOT_LEVELS",
        "TokenScope": "accounts.models.SCOPES",
        "PersonalTokenScope": "accounts.models.PERSONAL_SCOPES",
        "NotificationKind": "streams.models.KINDS",
    },
}

# --- Celery ----------------------------------------------------------------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# Redis: an unacknowledged message (a reserved ETA task: a webhook retry) goes back to the queue
# after this; it must exceed the longest webhook backoff (see maumau/celery.py).
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600")),
}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("out", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "control_folder": str(_broker_dir / "control"),  # exchange tables; kombu's default is ./control
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
    }
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE: dict[str, Any] = {
    "webhook-sweep": {"task": "streams.webhook_sweep", "schedule": 60.0},
    "idempotency-purge": {"task": "games.idempotency_purge", "schedule": 3600.0},
}
# Stored answers of Idempotency-Keys are kept this long, then purged hourly.
MAUMAU_IDEMPOTENCY_KEEP_HOURS = float(os.environ.get("MAUMAU_IDEMPOTENCY_KEEP_HOURS", "24"))
# A finished fair round's server seed is shown to spectators only this long after it ended (its players
# see it at once): with the public entropy it recomputes every hand, and a watcher must not learn them
# while the table may still be talking about the round. At least a minute.
MAUMAU_SEED_REVEAL_DELAY_SECONDS = max(60, int(os.environ.get("MAUMAU_SEED_REVEAL_DELAY_SECONDS", "3600")))
# Rating farms (scoring/ratings.py): at most this many rounds of the same players are rated per 24 hours
# (0: no limit), and a rating is on the leaderboard from this many rated rounds on (below it is provisional).
MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY = int(os.environ.get("MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY", "3"))
MAUMAU_LEADERBOARD_MIN_ROUNDS = int(os.environ.get("MAUMAU_LEADERBOARD_MIN_ROUNDS", "10"))
# Newcomers (scoring/ratings.py): an opponent (never a server bot) with fewer rated rounds under the rules
# than this, or whose player is younger than this many hours, is new; a rated round against a new opponent
# moves a player's mu by at most the cap (OpenSkill units: 0.1 is 3 points of the displayed rating) and
# leaves their sigma.
MAUMAU_RATING_NEW_ROUNDS = int(os.environ.get("MAUMAU_RATING_NEW_ROUNDS", "10"))
MAUMAU_RATING_NEW_HOURS = float(os.environ.get("MAUMAU_RATING_NEW_HOURS", "24"))
MAUMAU_RATING_NEW_CAP = float(os.environ.get("MAUMAU_RATING_NEW_CAP", "0.1"))
# Turn clocks (play/clocks.py): the period of the sweep that resolves passed deadlines and sends due
# reminders (a timeout nobody at the table acts on comes up to this late), timeouts in a row before a
# bot takes a seat over, the sweep's batch (it repeats batches until nothing is due) and the time one
# run may take before it leaves the rest to the next tick, and how long a tick may wait in the queue
# before it is dropped (a late tick still runs: a running sweep makes it a no-op).
MAUMAU_CLOCK_SWEEP_SECONDS = float(os.environ.get("MAUMAU_CLOCK_SWEEP_SECONDS", "0.5"))
MAUMAU_CLOCK_TAKEOVER_TIMEOUTS = int(os.environ.get("MAUMAU_CLOCK_TAKEOVER_TIMEOUTS", "3"))
MAUMAU_CLOCK_SWEEP_BATCH = int(os.environ.get("MAUMAU_CLOCK_SWEEP_BATCH", "200"))
MAUMAU_CLOCK_SWEEP_BUDGET_SECONDS = env_float("MAUMAU_CLOCK_SWEEP_BUDGET_SECONDS", 20.0)
MAUMAU_CLOCK_TICK_EXPIRES_SECONDS = env_float("MAUMAU_CLOCK_TICK_EXPIRES_SECONDS", 60.0)
# The worker's queues (maumau/celery.py routes every task by name; the Procfile runs one worker per
# queue): the sweeps, the strong bot's moves, the deliveries (webhooks, push, mail). Nothing a player
# sends lands on the clocks' queue.
MAUMAU_CLOCK_QUEUE = os.environ.get("MAUMAU_CLOCK_QUEUE", "clocks")
MAUMAU_BOT_QUEUE = os.environ.get("MAUMAU_BOT_QUEUE", "bots")
MAUMAU_DELIVERY_QUEUE = os.environ.get("MAUMAU_DELIVERY_QUEUE", "deliveries")
if not 0 < MAUMAU_CLOCK_SWEEP_BUDGET_SECONDS or MAUMAU_CLOCK_SWEEP_BATCH < 1:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("MAUMAU_CLOCK_SWEEP_BUDGET_SECONDS must be above 0, MAUMAU_CLOCK_SWEEP_BATCH 1 or more")
# The strong bot thinks in a Celery task (games/bots.py), for this long per move
# (milliseconds; the clock is read by the service and passed to the pure engine), and for at most
# this many playouts (0: the time alone decides; a number makes every decision replay exactly).
MAUMAU_STRONG_BOT_MS = int(os.environ.get("MAUMAU_STRONG_BOT_MS", "200"))
MAUMAU_STRONG_BOT_PLAYOUTS = int(os.environ.get("MAUMAU_STRONG_BOT_PLAYOUTS", "0"))

# --- Operating it (maumau/observability.py, maumau/ops.py) ---------------------------------------
# Logs: readable lines (LOG_FORMAT=text) or one JSON object a line (LOG_FORMAT=json), each with the
# request id (X-Request-ID, returned to the client and carried by the request's Celery tasks). The clock
# sweep runs every MAUMAU_CLOCK_SWEEP_SECONDS and the webhook sweep every minute: their routine INFO lines
# (beat sending, worker receiving and finishing) are dropped, their errors kept; httpx's line per request too.
ROUTINE_TASKS = ["games.deadlines_sweep", "streams.webhook_sweep", "lobby.sweep"]
LOGGING = observability.logging_config(
    level=os.environ.get("LOG_LEVEL", "WARNING"),
    json_format=os.environ.get("LOG_FORMAT", "text").strip().lower() == "json",
    filters={"routine_tasks": {"()": "maumau.log_filters.RoutineTasksFilter", "tasks": ROUTINE_TASKS}},
    filtered_loggers={**{name: {"filters": ["routine_tasks"]}
                         for name in ("celery.beat", "celery.worker.strategy", "celery.app.trace")},
                      # httpx logs every request at INFO: in the deliveries worker (INFO) a line per push,
                      # its endpoint (a capability URL) in it, and CPU the push does not need.
                      **{name: {"level": "WARNING"} for name in ("httpx", "httpcore")}},
)
# /metrics: open to these networks ("*" for all), or with MAUMAU_METRICS_TOKEN set only to
# "Authorization: Bearer <token>". Several processes: PROMETHEUS_MULTIPROC_DIR (docs/operations.md).
MAUMAU_METRICS_TOKEN = os.environ.get("MAUMAU_METRICS_TOKEN", "")
MAUMAU_METRICS_NETWORKS = [
    ipaddress.ip_network(part.strip(), strict=False)
    for part in (os.environ.get("MAUMAU_METRICS_NETWORKS", "127.0.0.0/8,::1/128").replace("*", "0.0.0.0/0,::/0")
                 .split(","))
    if part.strip()
]
# Errors to Sentry (or a Sentry-compatible server such as GlitchTip) only when a DSN is set.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
observability.error_reporting_init(SENTRY_DSN, environment=os.environ.get("SENTRY_ENVIRONMENT", ""),
                                   traces_sample_rate=float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE", "0")))

# Presence (games/presence.py): a player's last request is written at most this often, and counts as
# online this long. Chat (lobby): messages per window per player and table.
MAUMAU_PRESENCE_WRITE_SECONDS = float(os.environ.get("MAUMAU_PRESENCE_WRITE_SECONDS", "30"))
MAUMAU_PRESENCE_ONLINE_SECONDS = float(os.environ.get("MAUMAU_PRESENCE_ONLINE_SECONDS", "120"))
MAUMAU_CHAT_RATE = int(os.environ.get("MAUMAU_CHAT_RATE", "5"))
MAUMAU_CHAT_WINDOW_SECONDS = float(os.environ.get("MAUMAU_CHAT_WINDOW_SECONDS", "10"))
# Lobby limits: open seeks per player, how long a seek waits for people (one with
# fill_with_bots_after ends with bots instead), seeks of one player shown in GET /seeks, and pending
# challenges one player may have sent (besides one at a time to the same person).
MAUMAU_SEEKS_PER_PLAYER = int(os.environ.get("MAUMAU_SEEKS_PER_PLAYER", "3"))
MAUMAU_SEEK_EXPIRES_SECONDS = env_float("MAUMAU_SEEK_EXPIRES_SECONDS", 1800)
MAUMAU_CHALLENGES_PER_PLAYER = int(os.environ.get("MAUMAU_CHALLENGES_PER_PLAYER", "10"))
if min(MAUMAU_SEEKS_PER_PLAYER, MAUMAU_CHALLENGES_PER_PLAYER) < 1 or not MAUMAU_SEEK_EXPIRES_SECONDS > 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("MAUMAU_SEEKS_PER_PLAYER and MAUMAU_CHALLENGES_PER_PLAYER must be 1 or more, "
                               "MAUMAU_SEEK_EXPIRES_SECONDS above 0")
# Lobby sweep (Celery beat): seeks filled with bots once their time passed, seeks and challenges expired.
MAUMAU_LOBBY_SWEEP_SECONDS = float(os.environ.get("MAUMAU_LOBBY_SWEEP_SECONDS", "2"))
CELERY_BEAT_SCHEDULE["lobby-sweep"] = {"task": "lobby.sweep", "schedule": MAUMAU_LOBBY_SWEEP_SECONDS}

# Streams, long-polls and webhooks.
# "poll" | "postgres" | "redis://host:port/db" | "" (auto: postgres on PostgreSQL, else poll)
STREAMS_CHANNEL = os.environ.get("STREAMS_CHANNEL", "")
# How often the serverless "poll" channel looks at game versions / notification ids.
STREAMS_POLL_INTERVAL = env_float("STREAMS_POLL_INTERVAL", 0.05)
# With postgres/redis the same poll runs this rarely, as a backstop for a lost wake-up.
STREAMS_BACKSTOP_INTERVAL = env_float("STREAMS_BACKSTOP_INTERVAL", 2.0)
# A ": keep-alive" comment on a quiet stream, well inside the idle timeouts of proxies (nginx: 60 s);
# each costs the process a little CPU and no database work (15 s: 10,000 streams send 670 a second).
STREAMS_KEEPALIVE_SECONDS = env_float("STREAMS_KEEPALIVE_SECONDS", 15.0)
STREAMS_LONGPOLL_MAX_SECONDS = env_float("STREAMS_LONGPOLL_MAX_SECONDS", 60.0)
# How often the open streams' tokens are looked at (one query per process for all of them): a stream
# whose token was revoked, logged out, replaced by a password change or deleted with its account ends.
STREAMS_TOKEN_RECHECK_SECONDS = env_float("STREAMS_TOKEN_RECHECK_SECONDS", 4.0)
# A process renews the watching marks of its open game streams (games.presence) this often, in one batch.
STREAMS_WATCH_RENEW_SECONDS = env_float("STREAMS_WATCH_RENEW_SECONDS", 120.0)
if not 0 < STREAMS_TOKEN_RECHECK_SECONDS <= 300:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("STREAMS_TOKEN_RECHECK_SECONDS must be a number of seconds above 0, at most 300")
# A "deadline_soon" notification once this share of a turn's time is used (sent by the clock sweep) ...
STREAMS_REMINDER_SHARE = env_float("STREAMS_REMINDER_SHARE", 0.75)
# ... on clocks at least this long (short blitz clocks get no reminder).
STREAMS_REMINDER_MIN_SECONDS = env_float("STREAMS_REMINDER_MIN_SECONDS", 60)
# Webhooks: server-side request forgery guard and delivery policy.
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", False)
WEBHOOK_ALLOWED_NETWORKS = [n for n in os.environ.get("WEBHOOK_ALLOWED_NETWORKS", "").split(",") if n.strip()]
WEBHOOK_MAX_ATTEMPTS = int(env_float("WEBHOOK_MAX_ATTEMPTS", 5))
WEBHOOK_BACKOFF_SECONDS = env_float("WEBHOOK_BACKOFF_SECONDS", 10.0)
WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 5.0)
# A worker's claim on a delivery it attempts; above the task's hard time limit (60 s), so that a
# live attempt never loses it: when it runs out, the worker died and the sweep queues the delivery again.
WEBHOOK_LEASE_SECONDS = env_float("WEBHOOK_LEASE_SECONDS", 120.0)
# A pending delivery whose time is this far past lost its queue message: the sweep sends it again.
WEBHOOK_REQUEUE_AFTER_SECONDS = env_float("WEBHOOK_REQUEUE_AFTER_SECONDS", 60.0)
WEBHOOK_MAX_PER_PLAYER = 10

# --- Notifications outside the service (notify/): Web Push, FCM, APNs, e-mail ---------------------
# The origin links in mails and pushes start with.
MAUMAU_PUBLIC_URL = (os.environ.get("MAUMAU_PUBLIC_URL") or "http://127.0.0.1:8000").rstrip("/")
# Web Push (VAPID, RFC 8292): a PEM EC P-256 private key, or the file bin/serve makes and keeps.
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "")
VAPID_PRIVATE_KEY_FILE = os.environ.get("VAPID_PRIVATE_KEY_FILE") or str(VAR_DIR / "vapid-private.pem")
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT") or "mailto:maumau@localhost"
# Subscriptions whose endpoint is http://127.0.0.1:... (tests and local runs only).
PUSH_ALLOW_LOOPBACK = env_bool("PUSH_ALLOW_LOOPBACK", False)
# Native push: FCM HTTP v1 (a service account's JSON key file; the project id defaults to the file's)
# and APNs with a token (a .p8 key). Each is off without its settings.
FCM_CREDENTIALS_FILE = os.environ.get("FCM_CREDENTIALS_FILE", "")
FCM_PROJECT_ID = os.environ.get("FCM_PROJECT_ID", "")
FCM_ENDPOINT = os.environ.get("FCM_ENDPOINT") or "https://fcm.googleapis.com"
FCM_TOKEN_URI = os.environ.get("FCM_TOKEN_URI", "")
APNS_KEY_FILE = os.environ.get("APNS_KEY_FILE", "")
APNS_KEY_ID = os.environ.get("APNS_KEY_ID", "")
APNS_TEAM_ID = os.environ.get("APNS_TEAM_ID", "")
APNS_TOPIC = os.environ.get("APNS_TOPIC", "")
APNS_USE_SANDBOX = env_bool("APNS_USE_SANDBOX", False)
APNS_ENDPOINT = os.environ.get("APNS_ENDPOINT", "")
# E-mail (Django's own settings, same names); without EMAIL_HOST e-mail is off.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT") or 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL") or "maumau@localhost"
# Delivery policy: attempts, backoff (doubling), a request's timeout, a worker's lease on a delivery.
NOTIFY_MAX_ATTEMPTS = int(env_float("NOTIFY_MAX_ATTEMPTS", 5))
NOTIFY_BACKOFF_SECONDS = env_float("NOTIFY_BACKOFF_SECONDS", 5.0)
# ... doubled up to this: a push service back from an outage gets its backlog within seconds.
NOTIFY_BACKOFF_MAX_SECONDS = env_float("NOTIFY_BACKOFF_MAX_SECONDS", 8.0)
NOTIFY_TIMEOUT_SECONDS = env_float("NOTIFY_TIMEOUT_SECONDS", 5.0)
NOTIFY_LEASE_SECONDS = env_float("NOTIFY_LEASE_SECONDS", 120.0)
# A player who moved this recently in a game is taken to be looking at it: no your_turn push.
NOTIFY_RECENT_MOVE_SECONDS = env_float("NOTIFY_RECENT_MOVE_SECONDS", 10.0)
# Verification mails per hour: to one address, for one player, from one client address.
NOTIFY_VERIFICATION_MAILS_PER_HOUR = int(env_float("NOTIFY_VERIFICATION_MAILS_PER_HOUR", 3))
NOTIFY_VERIFICATION_MAILS_PER_PLAYER_HOUR = int(env_float("NOTIFY_VERIFICATION_MAILS_PER_PLAYER_HOUR", 5))
NOTIFY_VERIFICATION_MAILS_PER_CLIENT_HOUR = int(env_float("NOTIFY_VERIFICATION_MAILS_PER_CLIENT_HOUR", 10))
NOTIFY_MAX_TARGETS = 20
CELERY_BEAT_SCHEDULE["notify-sweep"] = {"task": "notify.sweep", "schedule": 30.0}
# Deliveries (webhooks, push, mail) from a worker process (streams/outbound.py): requests in flight
# at once per process, per origin (also its connection pool's size), per target and per player;
# a failing or slow (> DELIVERY_SLOW_SECONDS) target or origin backs off 0.5 s doubled up to
# DELIVERY_BACKOFF_MAX_SECONDS; kept connections expire after DELIVERY_KEEPALIVE_SECONDS (then the
# next one is resolved and checked again); DELIVERY_BATCH_SECONDS: how long the worker lets a batch of
# fan-outs and outcomes gather before writing it (an outcome is bookkeeping: the push has gone; as
# the reader's look, a quarter second makes one UPDATE of many where 0.05 s made one of a few).
DELIVERY_MAX_IN_FLIGHT = int(env_float("DELIVERY_MAX_IN_FLIGHT", 512))
DELIVERY_PER_ORIGIN = int(env_float("DELIVERY_PER_ORIGIN", 128))
DELIVERY_PER_TARGET = int(env_float("DELIVERY_PER_TARGET", 1))
DELIVERY_PER_PLAYER = int(env_float("DELIVERY_PER_PLAYER", 4))
DELIVERY_SLOW_SECONDS = env_float("DELIVERY_SLOW_SECONDS", 2.0)
DELIVERY_BACKOFF_MAX_SECONDS = env_float("DELIVERY_BACKOFF_MAX_SECONDS", 4.0)
DELIVERY_KEEPALIVE_SECONDS = env_float("DELIVERY_KEEPALIVE_SECONDS", 30.0)
DELIVERY_ORIGINS_KEPT = int(env_float("DELIVERY_ORIGINS_KEPT", 256))
DELIVERY_BATCH_SECONDS = env_float("DELIVERY_BATCH_SECONDS", 0.25)
# The deliveries process's reader (notify/reader.py): the outbox and the due retries, up to
# DELIVERY_READ_BATCH rows a batch, looked at every DELIVERY_READ_SECONDS (at once again after a full batch).
# A batch's statements cost nearly as much for 5 rows as for 50: a look every 0.25 s rather than 0.05 s
# costs a push 0.1 to 0.2 s of latency and saves about half the worker's CPU (docs/benchmarks.md).
DELIVERY_READER = env_bool("DELIVERY_READER", True)
DELIVERY_READ_SECONDS = env_float("DELIVERY_READ_SECONDS", 0.25)
DELIVERY_READ_BATCH = int(env_float("DELIVERY_READ_BATCH", 500))
# A VAPID JWT is signed once per push service and reused; it is valid this long and renewed when
# less than a tenth of it is left.
VAPID_TOKEN_SECONDS = int(env_float("VAPID_TOKEN_SECONDS", 12 * 3600))
