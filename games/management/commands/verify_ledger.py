"""``manage.py verify_ledger [game ids]``: replay every game and report any mismatch (exit 1)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.ledger import ledger_verify
from games.models import Game


class Command(BaseCommand):
    help = "Replay every game from rules, seed/setup and ledger; check snapshots and the hash chain."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int, help="Only these games (default: all).")

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.order_by("pk")
        if options["game_ids"]:
            games = games.filter(pk__in=options["game_ids"])
        checked = bad = 0
        for game in games.iterator():
            checked += 1
            problems = ledger_verify(game)
            if problems:
                bad += 1
                for problem in problems:
                    self.stderr.write(f"game {game.pk}: {problem}")
        self.stdout.write(f"verify_ledger: {checked} games checked, {bad} with problems")
        if bad:
            raise CommandError(f"{bad} game(s) failed verification")
