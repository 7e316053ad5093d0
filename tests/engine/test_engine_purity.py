"""The engine is pure Python (ARCHITECTURE.md): no framework below games/engine, no global randomness.

Replay from seed and ledger only works if every random choice comes from the state; a call to the
module-level ``random`` functions (one hidden generator shared by the process) would break it.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"
FRAMEWORKS = ("django", "rest_framework", "celery")
#: what may be taken from the random module: the generator class, never its shared instance
RANDOM_ALLOWED = {"Random"}


def engine_sources() -> list[Path]:
    sources = sorted(ENGINE.rglob("*.py"))
    assert sources and (ENGINE / "__init__.py") in sources
    return sources


def test_engine_imports_no_framework():
    offenders = []
    for path in engine_sources():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
                names = [arg.value for arg in node.args[:1] if isinstance(arg, ast.Constant)]
            else:
                continue
            for name in names:
                if str(name).split(".")[0] in FRAMEWORKS:
                    offenders.append(f"{path.name}:{node.lineno} imports {name}")
    assert offenders == []


def test_importing_the_engine_loads_no_framework():
    code = (
        "import json, sys\n"
        "import games.engine\n"
        "from games.engine import bots, turns, view, results, seeds, rules, state, actions, cards\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})))\n"
    )
    root = ENGINE.parents[1]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_engine_uses_no_global_random():
    offenders = []
    for path in engine_sources():
        tree = ast.parse(path.read_text(), filename=str(path))
        random_aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                random_aliases |= {alias.asname or alias.name for alias in node.names if alias.name == "random"}
            elif isinstance(node, ast.ImportFrom) and node.module == "random":
                offenders += [
                    f"{path.name}:{node.lineno} from random import {alias.name}"
                    for alias in node.names
                    if alias.name not in RANDOM_ALLOWED
                ]
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in random_aliases
                and node.attr not in RANDOM_ALLOWED
            ):
                offenders.append(f"{path.name}:{node.lineno} random.{node.attr}")
    assert offenders == []


def test_engine_reads_no_clock_or_environment():
    """Results depend only on rules, seed and actions: no wall clock, no environment, no OS entropy."""
    forbidden = {"time", "datetime", "os", "uuid"}
    offenders = []
    for path in engine_sources():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                offenders += [f"{path.name}: import {a.name}" for a in node.names if a.name.split(".")[0] in forbidden]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] in forbidden:
                    offenders.append(f"{path.name}: from {node.module}")
    assert offenders == []


def test_engine_modules_import_one_way():
    """No cycle among the engine's modules: each can be read knowing only those it imports."""
    imports: dict[str, set[str]] = {}
    for path in engine_sources():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found |= {node.module.split(".")[0]} if node.module else {alias.name for alias in node.names}
        imports[path.stem] = found - {"__init__"}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for module in imports.get(start, ()):
            if module == goal or (module not in seen and reaches(module, goal, seen | {module})):
                return True
        return False

    assert [module for module in imports if module != "__init__" and reaches(module, module, set())] == []
