"""On PostgreSQL an insert into the outbox notifies ``notify_outbox`` (delivered at the commit, one per
transaction): the deliveries process's reader waits for it instead of polling (notify.reader). SQLite
has no such thing; its reader polls."""

from django.db import migrations

CREATE = [
    """CREATE OR REPLACE FUNCTION notify_outbox_written() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_notify('notify_outbox', '');
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER notify_outbox_written AFTER INSERT ON notify_outbox
        FOR EACH STATEMENT EXECUTE FUNCTION notify_outbox_written()""",
]

DROP = [
    "DROP TRIGGER IF EXISTS notify_outbox_written ON notify_outbox",
    "DROP FUNCTION IF EXISTS notify_outbox_written()",
]


def _on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):

    dependencies = [
        ('notify', '0004_outbox'),
    ]

    operations = [
        migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP)),
    ]
