"""Log-in benchmark (a script, not a test): ``POST /api/v1/auth/login`` over HTTP under gunicorn.

    python -m bench.login --logins 60 --clients 1

Starts gunicorn (``--workers`` processes of ``--threads`` threads) on PostgreSQL (``--database-url``,
default a ``maumau_login_bench`` database on 127.0.0.1, created and migrated if missing), signs up
``--accounts`` accounts, then ``--clients`` client threads each send log-ins in turn, a third each:
the right password, a wrong password, a username that does not exist. It prints, per kind, the
latency percentiles (p50, p99, ms) of the answers, each kind's status, and the Argon2 parameters
in use. Every log-in is one Argon2 hash on the server (a dummy one for an unknown user), so the
figures are mostly Argon2's; the delays after failures are switched off here (their counts would
refuse the wrong passwords). Only loopback traffic; the server it started is stopped at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench import harness

KINDS = ("right password", "wrong password", "unknown user")
PASSWORD = "correct horse battery"


def post(connection: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[int, float]:
    started = time.perf_counter()
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    return response.status, time.perf_counter() - started


def argon2_parameters(env: dict[str, str]) -> dict[str, Any]:
    """What the server's first hasher uses (read in a child process with the server's settings)."""
    import subprocess

    code = ("import django; django.setup(); from django.contrib.auth.hashers import get_hasher; "
            "h = get_hasher(); import json; print(json.dumps({'algorithm': h.algorithm, 'time_cost': h.time_cost, "
            "'memory_cost_kib': h.memory_cost, 'parallelism': h.parallelism}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=harness.ROOT, env=env, check=True, capture_output=True,
                         text=True)
    return dict(json.loads(out.stdout))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logins", type=int, default=60, help="log-ins per client thread (a third of each kind)")
    parser.add_argument("--clients", type=int, default=1, help="client threads sending at once")
    parser.add_argument("--accounts", type=int, default=5)
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_login_bench"))
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker")
    args = parser.parse_args(argv)
    port = args.port or harness.free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "maumau.settings", "DATABASE_URL": args.database_url,
           "MAUMAU_SIGNUP_RATE": "1000000/min", "MAUMAU_LOGIN_FREE_FAILURES": "1000000",
           "MAUMAU_LOGIN_FREE_FAILURES_PER_ADDRESS": "1000000", "MAUMAU_TOKENS_PER_USER": "1000000",
           "DEBUG": "false", "CONN_MAX_AGE": "600", "LOG_LEVEL": "ERROR"}
    if args.database_url.startswith("postgres"):
        harness.database_create(args.database_url)
    harness.migrate(env)
    latencies: dict[str, list[float]] = {kind: [] for kind in KINDS}
    statuses: dict[str, set[int]] = {kind: set() for kind in KINDS}
    lock = threading.Lock()
    suffix = os.urandom(3).hex()
    usernames = [f"bench_{suffix}_{n}" for n in range(args.accounts)]

    def client(number: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for attempt in range(args.logins):
            kind = KINDS[attempt % 3]
            username = usernames[(number + attempt) % len(usernames)]
            body = {"username": username if kind != "unknown user" else f"nobody_{suffix}_{attempt}",
                    "password": PASSWORD if kind == "right password" else "not the password", "device": "bench"}
            status, seconds = post(connection, "/api/v1/auth/login", body)
            with lock:
                latencies[kind].append(seconds)
                statuses[kind].add(status)
        connection.close()

    with tempfile.TemporaryDirectory(prefix="bench-login-") as scratch:
        server = harness.gunicorn("maumau.wsgi:application", port, workers=args.workers, threads=args.threads,
                                  env=env, log=Path(scratch) / "gunicorn.log")
        try:
            server.wait_for_http(port)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for username in usernames:
                status, _seconds = post(connection, "/api/v1/accounts", {"username": username, "password": PASSWORD})
                assert status == 201, status
            connection.close()
            threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
        finally:
            server.stop(timeout=20)

    def ms(values: list[float], share: float) -> float:
        return round((harness.percentile(values, share) or 0.0) * 1000, 1)

    report = {
        "benchmark": "POST /api/v1/auth/login over HTTP under gunicorn",
        "database": args.database_url.split("@")[-1],
        "hasher": argon2_parameters(env),
        "gunicorn": {"workers": args.workers, "threads": args.threads},
        "clients": args.clients,
        "logins_per_second": round(sum(map(len, latencies.values())) / elapsed, 1),
        "results": {kind: {"count": len(values), "status": sorted(statuses[kind]), "p50_ms": ms(values, 0.5),
                           "p99_ms": ms(values, 0.99)} for kind, values in latencies.items()},
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
