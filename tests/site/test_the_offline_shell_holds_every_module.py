"""The service worker keeps every module the client imports (read here from the modules' own import
lines), so the app starts offline; a new module cannot be left out. The page preloads them all too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.templatetags.static import static
from django.test import Client

pytestmark = pytest.mark.django_db

CLIENT = Path(__file__).resolve().parents[2] / "client" / "static" / "client"


def imported_modules(entry: str = "app.js") -> set[str]:
    """The entry module and what it imports, directly or through others (``from "./x.js"``)."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        source = (CLIENT / name).read_text()
        todo += re.findall(r'from\s+"\./([^"]+\.js)"', source)
        todo += re.findall(r'import\s*\(\s*"\./([^"]+\.js)"\s*\)', source)  # a dynamic import counts too
    return seen


def test_every_module_file_is_imported_by_the_app() -> None:
    """Nothing lives beside the app unused: the next check covers every module file there is."""
    assert imported_modules() == {path.name for path in CLIENT.glob("*.js")}


def test_the_service_worker_caches_every_imported_module() -> None:
    worker = Client().get("/sw.js").content.decode()
    shell = json.loads(re.search(r"^const SHELL = (\[.*\]);$", worker, re.MULTILINE).group(1))
    wanted = {static(f"client/{name}") for name in imported_modules()}
    assert wanted <= set(shell), sorted(wanted - set(shell))
    for name in ("motion.js", "replay.js", "league.js"):
        assert static(f"client/{name}") in shell, name
    assert "/" in shell and static("client/style.css") in shell


def test_the_page_preloads_every_imported_module() -> None:
    page = Client().get("/").content.decode()
    preloaded = set(re.findall(r'<link rel="modulepreload" href="([^"]+)">', page))
    entry = re.findall(r'<script type="module" src="([^"]+)">', page)
    assert entry == [static("client/app.js")]
    assert preloaded | set(entry) == {static(f"client/{name}") for name in imported_modules()}
