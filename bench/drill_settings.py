"""Settings of the service the fault drill starts (``bench.drill``): the product's, with its Celery
queues named for the run (the drill sets ``MAUMAU_CLOCK_QUEUE``, ``MAUMAU_BOT_QUEUE``,
``MAUMAU_DELIVERY_QUEUE``; anything unrouted goes to ``DRILL_QUEUE``), so that nothing else on the
broker takes its tasks and no earlier run's tasks reach this one, and the webhook sweep every
``DRILL_WEBHOOK_SWEEP_SECONDS`` instead of every minute, so that what it recovers is recovered within
the drill's bounded wait."""

import os

from maumau.settings import *  # noqa: F403
from maumau.settings import CELERY_BEAT_SCHEDULE

CELERY_TASK_DEFAULT_QUEUE = os.environ.get("DRILL_QUEUE", "celery")

for _entry in CELERY_BEAT_SCHEDULE.values():
    if _entry["task"].endswith("webhook_sweep"):
        _entry["schedule"] = float(os.environ.get("DRILL_WEBHOOK_SWEEP_SECONDS", "5"))
