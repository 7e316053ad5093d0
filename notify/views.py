"""The pages a mail's links open (no log-in: the links are signed): verify an address, unsubscribe.

Unsubscribing is a POST (RFC 8058: the mail client posts ``List-Unsubscribe=One-Click``); a GET shows
the page with its button, so a link scanner that follows links changes nothing."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from maumau.errors import ValidationFailed
from notify import services


def _page(title: str, body: str, status: int = 200) -> HttpResponse:
    html = format_html("<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
                       "content=\"width=device-width\"><title>{}</title></head><body><h1>{}</h1>{}</body></html>",
                       title, title, body)
    response = HttpResponse(html, status=status)
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


@require_http_methods(["GET"])
def email_verify(request: HttpRequest, signed: str) -> HttpResponse:
    try:
        entry = services.email_verify(signed_value=signed)
    except ValidationFailed as exc:
        return _page(_("Not confirmed"), format_html("<p>{}</p>", exc.message), status=400)
    return _page(_("Address confirmed"), format_html("<p>{}</p>", _("Mau-Mau may now write to %(address)s.") % {
        "address": entry.address}))


@csrf_exempt
@require_http_methods(["GET", "POST"])
def email_unsubscribe(request: HttpRequest, signed: str) -> HttpResponse:
    if request.method == "GET":
        try:
            services.unsigned(signed, "unsubscribe")
        except ValidationFailed as exc:
            return _page(_("Not unsubscribed"), format_html("<p>{}</p>", exc.message), status=400)
        return _page(_("Unsubscribe"), format_html("<form method=\"post\"><button type=\"submit\">{}</button></form>",
                                                   _("No more mails of this kind")))
    try:
        services.unsubscribe(signed_value=signed)
    except ValidationFailed as exc:
        return _page(_("Not unsubscribed"), format_html("<p>{}</p>", exc.message), status=400)
    return _page(_("Unsubscribed"), format_html("<p>{}</p>", _("You get no more mails of this kind.")))
