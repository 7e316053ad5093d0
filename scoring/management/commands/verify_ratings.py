"""Check that the stored ratings and their history equal a replay of the round results.

Sibling of `verify_standings`: exits 1 on any difference, so it can run in CI or cron;
`ratings_recompute` repairs what it reports.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from scoring.ratings import ratings_recompute


class Command(BaseCommand):
    help = "Verify ratings against a replay of the round results; exit 1 if they differ."

    def handle(self, *args: Any, **options: Any) -> None:
        problems = ratings_recompute(write=False)
        for problem in problems[:100]:
            self.stderr.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} difference(s) between ratings and the round results.")
        self.stdout.write("ratings match the round results.")
