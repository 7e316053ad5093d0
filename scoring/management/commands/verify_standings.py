"""Check that every league's stored standings equal a replay of its round results.

Sibling of `games`' `verify_ledger` (which replays the move ledger): exits 1 on any difference,
so it can run in CI or cron. `standings_recompute` repairs what it reports.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import League
from scoring.services import league_standings_recompute


class Command(BaseCommand):
    help = "Verify league standings against the round results; exit 1 if they differ."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("league_ids", nargs="*", type=int, help="Leagues to verify (default: all).")

    def handle(self, *args: Any, league_ids: list[int], **options: Any) -> None:
        ids = league_ids or list(League.objects.order_by("id").values_list("id", flat=True))
        problems = [
            problem for league_id in ids for problem in league_standings_recompute(league_id=league_id, write=False)
        ]
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} difference(s) between standings and the round results.")
        self.stdout.write(f"{len(ids)} league(s): standings match the round results.")
