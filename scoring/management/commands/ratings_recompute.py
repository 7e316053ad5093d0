"""Rebuild every rating and its history from the round results, replaying the rated rounds in order."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from scoring.ratings import ratings_recompute


class Command(BaseCommand):
    help = "Rebuild all ratings from the round results (rated rounds in id order) and report what differed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="Only report differences; write nothing.")

    def handle(self, *args: Any, dry_run: bool, **options: Any) -> None:
        problems = ratings_recompute(write=not dry_run)
        for problem in problems[:100]:
            self.stdout.write(problem)
        if len(problems) > 100:
            self.stdout.write(f"... and {len(problems) - 100} more")
        verb = "differ" if dry_run else "rebuilt"
        self.stdout.write(f"ratings: {len(problems)} difference(s), {verb if problems else 'nothing to do'}.")
