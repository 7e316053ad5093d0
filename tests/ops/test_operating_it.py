"""What operators rely on: health and readiness probes, metrics, request ids through logs and tasks,
JSON logs, error reporting only with a DSN."""

from __future__ import annotations

import gzip
import http.server
import json
import logging
import os
import subprocess
import sys
import threading
from typing import Any

import pytest
from django.test import Client, override_settings
from kombu import Connection

from maumau import observability
from maumau.celery import app as celery_app
from tests.games.api_helpers import setup_for

pytestmark = pytest.mark.django_db


def _metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition (0 when absent)."""
    wanted = name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}" if labels else "")
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        key, _, value = line.rpartition(" ")
        if key == wanted or (labels and key.startswith(name + "{") and _labels(key) == labels):
            return float(value)
    return 0.0


def _labels(key: str) -> dict[str, str]:
    inner = key[key.index("{") + 1:-1]
    return dict((part.split("=", 1)[0], part.split("=", 1)[1].strip('"')) for part in inner.split('",') if part)


def _scrape(client: Client | None = None, **headers: Any) -> str:
    response = (client or Client()).get("/metrics", **headers)
    assert response.status_code == 200, response.content
    return response.content.decode()


def test_healthz_answers_without_a_token_and_without_the_database(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        response = Client().get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_readyz_checks_the_database_broker_and_channel() -> None:
    response = Client().get("/readyz")
    assert response.status_code == 200, response.content
    assert set(response.json()["checks"]) == {"database", "broker", "channel"}


def test_readyz_answers_503_naming_an_unreachable_broker_in_the_error_shape() -> None:
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:9/0"):
        response = Client().get("/readyz")
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "not_ready"
    assert error["details"]["checks"]["broker"].startswith("failed")
    assert error["details"]["checks"]["database"].startswith("ok")


def test_probes_are_outside_the_throttle() -> None:
    with override_settings(MAUMAU_WRITE_RATE="1/min", MAUMAU_SIGNUP_RATE="1/min"):
        statuses = {Client().get(path).status_code for path in ("/healthz", "/readyz") for _ in range(5)}
    assert statuses == {200}


def test_metrics_count_requests_by_route_moves_and_refused_plays(
        make_player: Any, django_capture_on_commit_callbacks: Any) -> None:
    before = _scrape()
    ada, bo = make_player("Ada"), make_player("Bo")
    table = ada.post("/api/v1/tables", {"rules": "classic"}, format="json").json()["id"]
    assert bo.post(f"/api/v1/tables/{table}/join", {}, format="json").status_code == 200
    setup = setup_for("classic", [["KH", "7C", "8C", "AD", "QS"], ["7D", "8D", "9D", "AS", "10D"]], "9H", ["QC"])
    game_id = ada.post(f"/api/v1/tables/{table}/rounds", {"setup": setup}, format="json").json()["id"]
    with django_capture_on_commit_callbacks(execute=True):  # moves are counted once committed
        refused = ada.post(f"/api/v1/games/{game_id}/actions", {"type": "play", "cards": ["7C"]}, format="json")
        played = ada.post(f"/api/v1/games/{game_id}/actions", {"type": "play", "cards": ["KH"]}, format="json")
    assert refused.status_code == 422 and played.status_code == 200, (refused.content, played.content)
    after = _scrape()
    route = "api/v1/games/<id:game_id>/actions"
    assert (_metric(after, "maumau_http_requests_total", route=route, method="POST", status="200")
            - _metric(before, "maumau_http_requests_total", route=route, method="POST", status="200")) == 1
    assert _metric(after, "maumau_http_request_seconds_count", route=route, method="POST") >= 1
    assert (_metric(after, "maumau_moves_applied_total", actor="player")
            - _metric(before, "maumau_moves_applied_total", actor="player")) >= 1
    assert (_metric(after, "maumau_illegal_moves_refused_total")
            - _metric(before, "maumau_illegal_moves_refused_total")) == 1
    assert "maumau_celery_queue_depth" in after


def test_metrics_are_refused_to_other_addresses_and_need_the_token_when_one_is_set() -> None:
    outsider = Client(REMOTE_ADDR="203.0.113.9")
    assert outsider.get("/metrics").status_code == 403
    assert outsider.get("/metrics").json()["error"]["code"] == "permission_denied"
    with override_settings(MAUMAU_METRICS_TOKEN="s3cret"):
        assert Client().get("/metrics").status_code == 403
        assert outsider.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200


def test_a_response_returns_its_request_id_and_keeps_a_sane_one_sent() -> None:
    made = Client().get("/api/v1/me")
    assert len(made["X-Request-ID"]) == 32
    assert Client().get("/api/v1/me", HTTP_X_REQUEST_ID="edge-42.a")["X-Request-ID"] == "edge-42.a"
    odd = Client().get("/api/v1/me", HTTP_X_REQUEST_ID="x" * 65)["X-Request-ID"]
    assert odd != "x" * 65 and len(odd) == 32


def test_tasks_sent_by_a_request_carry_its_id_to_the_worker_log(caplog: pytest.LogCaptureFixture) -> None:
    token = observability.current_request_id.set("req-7")
    try:
        with Connection("memory://") as broker:
            celery_app.send_task("streams.webhook_sweep", connection=broker, queue="ops-test")
            message = broker.SimpleQueue("ops-test").get(timeout=2)
            headers = message.headers
            message.ack()
    finally:
        observability.current_request_id.reset(token)
    assert headers[observability.TASK_HEADER] == "req-7"

    class Task:
        request = type("Request", (), {observability.TASK_HEADER: "req-7"})()

    observability._task_prerun(task_id="t1", task=Task())
    try:
        record = logging.LogRecord("maumau", logging.INFO, __file__, 1, "from the task", None, None)
        assert observability.RequestIdFilter().filter(record) and record.request_id == "req-7"
    finally:
        observability._task_postrun(task_id="t1")
    assert observability.current_request_id.get() == "-"


def test_json_logs_are_one_object_a_line_with_the_request_id() -> None:
    record = logging.LogRecord("games", logging.WARNING, __file__, 1, "a %s move", ("late",), None)
    record.request_id = "abc"
    line = observability.JsonFormatter().format(record)
    entry = json.loads(line)
    assert entry["message"] == "a late move" and entry["request_id"] == "abc" and entry["level"] == "WARNING"
    assert "\n" not in line


class _Collector(http.server.BaseHTTPRequestHandler):
    bodies: list[bytes] = []

    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.bodies.append(body)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_errors_reach_a_sentry_compatible_server_only_when_a_dsn_is_set() -> None:
    import sentry_sdk

    assert not sentry_sdk.get_client().is_active(), "no DSN in the tests: nothing must be initialised"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    script = ("import django, sentry_sdk; django.setup(); "
              "assert sentry_sdk.get_client().is_active(); "
              "sentry_sdk.capture_exception(ValueError('boom')); sentry_sdk.flush(5)")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "maumau.settings",
           "SENTRY_DSN": f"http://public@127.0.0.1:{server.server_address[1]}/1"}
    try:
        subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
    finally:
        server.shutdown()
    assert any(b"boom" in body for body in _Collector.bodies)


def test_metrics_of_several_processes_are_summed_in_multiprocess_mode(tmp_path: Any) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "maumau.settings"}
    count = "from maumau import observability; observability.illegal_move_refused()"
    for _ in range(2):
        subprocess.run([sys.executable, "-c", count], env=env, check=True, timeout=60)
    scrape = ("import django; django.setup(); from maumau import observability; "
              "print(observability.metrics_text(with_queue_depth=False)[0].decode())")
    text = subprocess.run([sys.executable, "-c", scrape], env=env, check=True, timeout=60, capture_output=True,
                          text=True).stdout
    assert _metric(text, "maumau_illegal_moves_refused_total") == 2
