"""The DRF tokens made before accounts existed become hashed access tokens, and their clear keys are
deleted: clients keep their keys (a key is found by its first 12 characters and checked by its
SHA-256, as accounts.tokens does), and the database keeps no usable key.

Not reversible: the keys are gone from the database by design (reversing leaves the hashed tokens).
"""

import hashlib

from django.db import migrations

PREFIX_LENGTH = 12  # accounts.tokens.PREFIX_LENGTH, frozen here as a migration must be
SCOPES = ["account", "play", "read"]


def hash_earlier_tokens(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    AccessToken = apps.get_model("accounts", "AccessToken")
    batch = []
    for token in Token.objects.all().iterator(chunk_size=2000):
        batch.append(AccessToken(user_id=token.user_id, name="Sign-up", prefix=token.key[:PREFIX_LENGTH],
                                 digest=hashlib.sha256(token.key.encode()).hexdigest(), scopes=SCOPES,
                                 created_at=token.created))
        if len(batch) >= 2000:
            AccessToken.objects.bulk_create(batch)
            batch = []
    AccessToken.objects.bulk_create(batch)
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [migrations.RunPython(hash_earlier_tokens, migrations.RunPython.noop)]
