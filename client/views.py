"""The page at ``/``: one HTML shell; everything else is static files and the API.

The page is the same for every visitor and holds no secret (the token lives in the browser's
storage), so it needs no session or CSRF cookie. The Content-Security-Policy allows only this
origin: the client loads nothing from outside.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

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
