"""``manage.py vapid_key``: make the VAPID key of the embedded default once (VAPID_PRIVATE_KEY_FILE,
var/vapid-private.pem) and keep it: browsers' subscriptions are bound to it, so it must outlive restarts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Make the Web Push (VAPID) key file unless VAPID_PRIVATE_KEY is set or the file exists."

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(settings.VAPID_PRIVATE_KEY_FILE)
        if settings.VAPID_PRIVATE_KEY.strip() or path.is_file():
            return
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(pem)
        self.stdout.write(f"vapid_key: made {path} (keep it: push subscriptions are bound to it)")
