"""Apps stand in layers and import only downwards, foreign keys included:

    client                   the web client (static pages)
    live                     what a waiting client holds open: streams and long-polls
    accounts                 sign-up, log-in, tokens, and closing an account (it leaves tables and the lobby)
    lobby                    seeks, challenges, chat
    play                     the move pipeline: moves, clocks, bots, idempotency; tables and rounds
    scoring                  results, standings, ratings          } consumers of a move: each is handed
    notify                   push, native push and e-mail: what streams' notifications become away from the board
    streams                  notifications, channels, webhooks    } the move and returns what it writes
    games                    the stored game: players, leagues, tables, seats, rounds, the move ledger
    games.engine             the rules, pure Python
    maumau                   the kernel: settings, errors, parsers, observability

Only the project's root wiring (``maumau.urls``, ``maumau.asgi``, ``maumau.celery``) names the apps
above it. The check reads every import, those inside functions too (a Celery task importing its own
app's services in its body is an import of its own app)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.apps import apps

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["maumau", "games.engine", "games", "streams", "notify", "scoring", "play", "lobby", "accounts", "live",
          "client"]
WIRING = {"maumau/urls.py", "maumau/asgi.py", "maumau/celery.py"}


def layer_of(module: str) -> str | None:
    """The layer a dotted module name belongs to (the longest layer name it starts with)."""
    found = [layer for layer in LAYERS if module == layer or module.startswith(layer + ".")]
    return max(found, key=len) if found else None


def imports_of(path: Path, package: str | None = None) -> set[str]:
    """Every module name ``path`` imports, anywhere in its body; ``package`` resolves relative imports."""
    if package is None:
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def upward_imports() -> list[str]:
    found = []
    for top in {layer.split(".")[0] for layer in LAYERS}:
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "migrations" in path.parts or relative in WIRING:
                continue
            here = layer_of(".".join(path.relative_to(ROOT).with_suffix("").parts))
            for name in sorted(imports_of(path)):
                there = layer_of(name)
                if there is not None and LAYERS.index(there) > LAYERS.index(here):
                    found.append(f"{relative} ({here}) imports {name} ({there})")
    return found


def test_every_app_imports_only_the_layers_below_it() -> None:
    assert upward_imports() == []


def test_every_installed_app_of_the_project_has_a_layer() -> None:
    project = {config.name for config in apps.get_app_configs() if (ROOT / config.name).is_dir()}
    assert project <= set(LAYERS)


@pytest.mark.parametrize("model", [m for m in apps.get_models() if layer_of(m._meta.app_config.name)],
                         ids=lambda m: m._meta.label)
def test_foreign_keys_point_downwards(model: type) -> None:
    here = LAYERS.index(layer_of(model._meta.app_config.name))
    for field in model._meta.get_fields():
        if field.is_relation and field.concrete and field.related_model is not None:
            there = layer_of(field.related_model._meta.app_config.name)
            if there is not None:
                assert LAYERS.index(there) <= here, f"{model._meta.label}.{field.name} points up at {there}"


def test_the_check_finds_an_import_hidden_in_a_function(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text("def late():\n    from lobby import services\n    from . import clocks\n")
    assert imports_of(source, package="scoring") >= {"lobby.services", "scoring.clocks"}
    assert LAYERS.index(layer_of("lobby.services")) > LAYERS.index(layer_of("scoring.models"))
    assert layer_of("games.engine.cards") == "games.engine" and layer_of("games.models") == "games"
