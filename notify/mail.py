"""E-mails through Django's mail framework: plain text + HTML, the player's language, and for
notifications a one-click unsubscribe (RFC 8058: ``List-Unsubscribe`` + ``List-Unsubscribe-Post``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.utils import translation
from django.utils.html import format_html
from django.utils.translation import gettext as _


def _language(language: str) -> str:
    return language if language in {"en", "de", "fr"} else "en"


def verification_send(*, address: str, link: str, language: str) -> None:
    with translation.override(_language(language)):
        subject = _("Confirm your e-mail address for Mau-Mau")
        text = _("Open this link to confirm that Mau-Mau may write to this address:") + f"\n\n{link}\n\n" + _(
            "If you did not ask for it, ignore this mail.")
        html = format_html("<p>{}</p><p><a href=\"{}\">{}</a></p><p>{}</p>",
                           _("Open this link to confirm that Mau-Mau may write to this address:"), link,
                           _("Confirm the address"), _("If you did not ask for it, ignore this mail."))
    message = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [address])
    message.attach_alternative(html, "text/html")
    message.send()


def notification_send(*, address: str, payload: dict[str, Any], unsubscribe: str, language: str,
                      message_id: str) -> Any:
    """One notification mail; ``message_id`` is the delivery's, the same on every attempt."""
    from notify.channels import Sent

    with translation.override(_language(language)):
        stop = _("No more mails of this kind")
        text = f"{payload['body']}\n\n{payload['url']}\n\n{stop}: {unsubscribe}\n"
        html = format_html("<p>{}</p><p><a href=\"{}\">{}</a></p>"
                           "<p style=\"font-size:small\"><a href=\"{}\">{}</a></p>",
                           payload["body"], payload["url"], _("Open the game"), unsubscribe, stop)
    headers = {"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
               "Message-ID": message_id, "Auto-Submitted": "auto-generated"}
    message = EmailMultiAlternatives(payload["title"], text, settings.DEFAULT_FROM_EMAIL, [address], headers=headers)
    message.attach_alternative(html, "text/html")
    try:
        message.send()
    except (OSError, TimeoutError) as exc:  # refused connection, timeout, SMTP errors (smtplib's are OSErrors)
        permanent = getattr(exc, "smtp_code", 0) >= 500
        return Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=not permanent)
    return Sent(250)
