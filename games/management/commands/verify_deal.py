"""``manage.py verify_deal [game ids]``: check each round's deal (exit 1 on any problem).

For each round: the server seed hashes to the commitment shown before the round, the deal seed is
recomputed from it and the seats' entropy, and the ledger replays from that deal (every event, the
hash chain, the snapshot: ``games.ledger``). Without ids, every finished round. With ``-v 2`` the
revealed seeds of finished rounds are printed, to recompute them elsewhere; a running round's
seed is never printed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.fairness import deal_kind, deal_report
from games.models import Game


class Command(BaseCommand):
    help = ("Check rounds' deals: the server seed against its commitment, the deal seed from it and the "
            "entropy, and every ledger row replayed from that deal (default: every finished round).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int, help="Only these rounds (default: every finished one).")

    def handle(self, *args: Any, **options: Any) -> None:
        ids: list[int] = options["game_ids"]
        games = Game.objects.order_by("pk")
        games = games.filter(pk__in=ids) if ids else games.filter(status="finished")
        checked = bad = 0
        found: set[int] = set()
        for game in games.iterator():
            checked += 1
            found.add(game.pk)
            report = deal_report(game)
            if report["problems"]:
                bad += 1
                for problem in report["problems"]:
                    self.stderr.write(f"game {game.pk}: {problem}")
                continue
            line = f"game {game.pk}: {deal_kind(game)} deal, {report['checks']['rows']} ledger rows replayed"
            if report["checks"]["commitment"]:
                line += ", seed matches the commitment"
            if options["verbosity"] >= 2 and game.status == "finished":
                line += f" (seed {report['seed']}, deal seed {report['deal_seed']})"
            self.stdout.write(line)
        missing = sorted(set(ids) - found)
        for game_id in missing:
            self.stderr.write(f"game {game_id}: no such round")
        self.stdout.write(f"verify_deal: {checked} rounds checked, {bad} with problems, {len(missing)} not found")
        if bad or missing:
            raise CommandError(f"{bad + len(missing)} round(s) failed verification")
