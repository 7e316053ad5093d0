"""The page at ``/``: one HTML shell; everything else is static files and the API.

The page is the same for every visitor and holds no secret (the token lives in the browser's
storage), so it needs no session or CSRF cookie. The Content-Security-Policy allows only this
origin: the client loads nothing from outside.
"""

from __future__ import annotations

import hashlib
import json

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
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
    response = render(request, "client/index.html")
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response["Cache-Control"] = "no-cache"
    return response


#: What the service worker keeps for offline use: the page and the files it loads (hashed names).
SHELL_FILES = ["client/style.css", "client/api.js", "client/i18n.js", "client/ui.js", "client/game.js",
               "client/app.js", "client/notify.js", "client/resync.js", "client/icon.svg", "client/icon-192.png"]
THEME_COLOUR = "#0b5d1e"


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
    shell = ["/", *[static(name) for name in SHELL_FILES]]
    version = hashlib.sha256(json.dumps(shell).encode()).hexdigest()[:16]
    body = render_to_string("client/sw.js", {"shell": json.dumps(shell), "version": json.dumps(version),
                                             "icon": json.dumps(static("client/icon-192.png"))})
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
