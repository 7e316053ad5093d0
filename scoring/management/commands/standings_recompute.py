"""Rebuild league standings from the round results (all leagues, or the ones named)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.models import League
from scoring.services import league_standings_recompute


class Command(BaseCommand):
    help = "Rebuild the materialized league standings from the round results and report what differed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("league_ids", nargs="*", type=int, help="Leagues to rebuild (default: all).")
        parser.add_argument("--dry-run", action="store_true", help="Only report differences; write nothing.")

    def handle(self, *args: Any, league_ids: list[int], dry_run: bool, **options: Any) -> None:
        ids = league_ids or list(League.objects.order_by("id").values_list("id", flat=True))
        changed = 0
        for league_id in ids:
            problems = league_standings_recompute(league_id=league_id, write=not dry_run)
            changed += bool(problems)
            for problem in problems:
                self.stdout.write(problem)
        verb = "differ" if dry_run else "rebuilt"
        self.stdout.write(f"{len(ids)} league(s) checked, {changed} {verb}.")
