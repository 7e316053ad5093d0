"""``manage.py verify_ledger [game ids]``: replay every game and report any mismatch (exit 1).

Each game is read in one snapshot with its ledger (``games.ledger.ledger_read``), so the command
can run on a live system: a game that moves while it runs is checked as it was at one moment.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.ledger import ledger_read, ledger_verify
from games.models import Game

BATCH = 1000


class Command(BaseCommand):
    help = "Replay every game from rules, seed/setup and ledger; check snapshots and the hash chain."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int, help="Only these games (default: all).")

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.order_by("pk")
        if options["game_ids"]:
            games = games.filter(pk__in=options["game_ids"])
        checked = bad = 0
        last = 0
        while ids := list(games.filter(pk__gt=last).values_list("pk", flat=True)[:BATCH]):
            last = ids[-1]
            for game_id in ids:
                read = ledger_read(game_id)
                if read is None:  # deleted meanwhile
                    continue
                checked += 1
                problems = ledger_verify(*read)
                if problems:
                    bad += 1
                    for problem in problems:
                        self.stderr.write(f"game {game_id}: {problem}")
        self.stdout.write(f"verify_ledger: {checked} games checked, {bad} with problems")
        if bad:
            raise CommandError(f"{bad} game(s) failed verification")
