"""The benchmarks live in ``bench/``, outside the product: the product never imports them, and the
HTTP benchmark's floor endpoint exists only under the bench settings (ARCHITECTURE.md)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import override_settings
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from rest_framework.test import APIClient

from bench import harness

PRODUCT = ("games", "scoring", "streams", "maumau")
FLOOR = "/api/v1/bench/floor"


def imported_modules(path: Path) -> list[str]:
    """Absolute module names ``path`` imports, by statement or by ``import_module("...")``."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            called = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if called in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
                names.append(str(node.args[0].value))
    return names


def test_no_product_module_imports_bench() -> None:
    sources = [path for package in PRODUCT for path in sorted((harness.ROOT / package).rglob("*.py"))]
    assert len(sources) > 20
    offenders = [f"{path.relative_to(harness.ROOT)} imports {name}" for path in sources
                 for name in imported_modules(path) if name.split(".")[0] == "bench"]
    assert offenders == []


def test_the_product_routes_no_floor_endpoint(make_player: Callable[..., APIClient]) -> None:
    with pytest.raises(Resolver404):
        resolve(FLOOR)
    with pytest.raises(NoReverseMatch):
        reverse("bench-floor")
    assert make_player("Ada").post(FLOOR, {}, format="json").status_code == 404


def test_the_bench_settings_route_the_floor_next_to_the_product(make_player: Callable[..., APIClient]) -> None:
    from bench import settings as bench_settings
    from maumau import settings as product_settings

    assert bench_settings.ROOT_URLCONF == "bench.urls"
    assert bench_settings.INSTALLED_APPS == product_settings.INSTALLED_APPS
    ada = make_player("Ada")
    with override_settings(ROOT_URLCONF="bench.urls"):
        response = ada.post(FLOOR, {}, format="json")
        assert response.status_code == 200, response.content
        assert response.json() == {"touched": 1}
        assert APIClient().post(FLOOR, {}, format="json").status_code == 401  # the product's token check
        assert ada.get("/api/v1/me").status_code == 200  # and the product's routes, all of them
        assert ada.get("/api/v1/no-such-route").json()["error"]["code"] == "not_found"


def test_the_engine_benchmark_times_the_engine_without_a_framework() -> None:
    code = (
        "import json, sys\n"
        "from bench.engine import play\n"
        "from games.engine import PRESETS\n"
        "state, decisions = play(PRESETS['classic'], ['random'] * 4, seed=1)\n"
        "frameworks = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'celery'))\n"
        "print(json.dumps([state.status, decisions > 0, frameworks]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=harness.ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(harness.ROOT), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["finished", True, []]
