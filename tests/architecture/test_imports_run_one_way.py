"""Imports run one way: no cycle between the project's modules, counting imports inside functions too
(a deferred import only hides a cycle). Only Celery task modules import services inside their bodies,
since services send those tasks on commit: their deferred imports are the one allowed way back."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("maumau", "games", "streams", "notify", "scoring", "play", "lobby", "accounts", "live", "client", "bench")


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports anywhere in its body (a ``TYPE_CHECKING`` block included:
    it runs no code, but it is rare enough to keep out of cycles too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            submodules = [f"{base}.{alias.name}" for alias in node.names]
            names = submodules if all(m in modules for m in submodules) else [base, *submodules]
        else:
            continue
        found.update(n for n in names if n in modules and n != name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return found


def test_no_import_cycle_between_the_projects_modules() -> None:
    modules = project_modules()
    graph = {name: set() if name.endswith(".tasks") else imports_of(name, path, modules)
             for name, path in modules.items()}
    assert cycles(graph) == []


def test_the_check_finds_a_cycle_hidden_in_a_function() -> None:
    graph = {"play.services": {"play.clocks"}, "play.clocks": {"play.services"}, "games.models": set()}
    assert cycles(graph) == [["play.clocks", "play.services"]]
