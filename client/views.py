"""The page at ``/``: one HTML shell; everything else is static files and the API.

The page is the same for every visitor and holds no secret (the token lives in the browser's
storage), so it needs no session or CSRF cookie. The Content-Security-Policy allows only this
origin: the client loads nothing from outside.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static

from maumau.errors import MESSAGES, error_body

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def client_page(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        refused = JsonResponse(error_body("method_not_allowed", MESSAGES["method_not_allowed"],
                                          {"method": request.method}), status=405)
        refused["Allow"] = "GET, HEAD"
        return refused
    preloaded = [name for name in client_modules() if name != ENTRY_MODULE]
    response = render(request, "client/index.html", {"modules": preloaded, "entry": ENTRY_MODULE})
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response["Cache-Control"] = "no-cache"
    return response


#: The client's entry module; every module it imports, directly or not, is part of the offline shell.
ENTRY_MODULE = "client/app.js"
#: What the page loads besides its modules.
SHELL_ASSETS = ["client/style.css", "client/icon.svg", "client/icon-192.png"]
THEME_COLOUR = "#0b5d1e"

#: A static ES module import of a sibling module: ``import { x } from "./api.js";`` (the client's only kind).
MODULE_IMPORT = re.compile(r"""^\s*import\s[^;]*?\bfrom\s+["']\./([\w.-]+\.js)["']""", re.MULTILINE)


@functools.cache
def client_modules() -> tuple[str, ...]:
    """The entry module and every module it imports, read from their sources: the service worker caches
    them all, so a module added to the client is offline at once (a forgotten one left the app blank
    when it started offline)."""
    found: list[str] = []
    todo = [ENTRY_MODULE]
    while todo:
        name = todo.pop(0)
        if name in found:
            continue
        found.append(name)
        path = finders.find(name)
        if not path:
            continue
        source = Path(str(path)).read_text(encoding="utf-8")
        todo.extend(f"client/{module}" for module in MODULE_IMPORT.findall(source))
    return tuple(found)


def shell_files() -> list[str]:
    """What the service worker keeps for offline use: the page's assets and every module (hashed names)."""
    return [*SHELL_ASSETS, *client_modules()]


#: The service worker's code: plain JavaScript, type-checked as it is (client/tsconfig.worker.json); the
#: server writes the shell, its version and the icon in front of it (names declared in worker/server.d.ts).
WORKER = Path(__file__).resolve().parent / "worker" / "sw.js"


@functools.cache
def worker_source() -> str:
    return WORKER.read_text(encoding="utf-8")


def _refused(request: HttpRequest) -> JsonResponse | None:
    if request.method in ("GET", "HEAD"):
        return None
    refused = JsonResponse(error_body("method_not_allowed", MESSAGES["method_not_allowed"],
                                      {"method": request.method}), status=405)
    refused["Allow"] = "GET, HEAD"
    return refused


def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js`` at a stable URL (scope ``/``), never cached long: a new deploy's worker has a new
    list of hashed files, so the browser installs it and drops the old cache."""
    refused = _refused(request)
    if refused is not None:
        return refused
    shell = ["/", *[static(name) for name in shell_files()]]
    version = hashlib.sha256(json.dumps(shell).encode()).hexdigest()[:16]
    body = (f"const SHELL = {json.dumps(shell)};\nconst VERSION = {json.dumps(version)};\n"
            f"const ICON = {json.dumps(static('client/icon-192.png'))};\n{worker_source()}")
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


def web_app_manifest(request: HttpRequest) -> HttpResponse:
    refused = _refused(request)
    if refused is not None:
        return refused
    manifest = {
        "id": "/", "name": "Mau-Mau", "short_name": "Mau-Mau", "lang": "en",
        "description": "Play Mau-Mau with friends and bots, at the table or by correspondence.",
        "start_url": "/#/lobby", "scope": "/", "display": "standalone", "orientation": "any",
        "theme_color": THEME_COLOUR, "background_color": "#fafaf7", "categories": ["games"],
        "icons": [
            {"src": static("client/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": static("client/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {"src": static("client/icon-maskable-512.png"), "sizes": "512x512", "type": "image/png",
             "purpose": "maskable"},
        ],
    }
    response = HttpResponse(json.dumps(manifest), content_type="application/manifest+json")
    response["Cache-Control"] = "no-cache"
    return response
