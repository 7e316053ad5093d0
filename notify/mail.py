"""E-mails through Django's mail framework: plain text + HTML, the player's language, and for
notifications a one-click unsubscribe (RFC 8058: ``List-Unsubscribe`` + ``List-Unsubscribe-Post``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
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


def notification_message(*, address: str, payload: dict[str, Any], unsubscribe: str, language: str,
                         message_id: str) -> EmailMultiAlternatives:
    """One notification mail; ``message_id`` is the delivery's, the same on every attempt."""
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
    return message


def _refused(exc: BaseException) -> Any:
    from notify.channels import Sent

    permanent = getattr(exc, "smtp_code", 0) >= 500
    return Sent(None, f"{type(exc).__name__}: {exc}"[:300], retry=not permanent)


def messages_send(messages: list[EmailMultiAlternatives]) -> list[Any]:
    """Send a batch over ONE connection to the mail server (opened once, closed at the end), each
    message's outcome apart: a refused recipient fails its own message only."""
    from notify.channels import Sent

    connection = get_connection()
    try:
        connection.open()
    except (OSError, TimeoutError) as exc:  # refused connection, timeout, SMTP errors (smtplib's are OSErrors)
        return [_refused(exc) for _message in messages]
    outcomes: list[Any] = []
    try:
        for message in messages:
            message.connection = connection
            try:
                connection.send_messages([message])
                outcomes.append(Sent(250))
            except (OSError, TimeoutError) as exc:
                outcomes.append(_refused(exc))
    finally:
        try:
            connection.close()
        except (OSError, TimeoutError):
            pass
    return outcomes


def notification_send(*, address: str, payload: dict[str, Any], unsubscribe: str, language: str,
                      message_id: str) -> Any:
    """One notification mail, on a connection of its own."""
    return messages_send([notification_message(address=address, payload=payload, unsubscribe=unsubscribe,
                                               language=language, message_id=message_id)])[0]
