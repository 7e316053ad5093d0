"""A name that starts with ``_`` belongs to its module: no other module, test or benchmark imports it
(a helper two modules need is made public where both can reach it)."""

from __future__ import annotations

import ast

from tests.architecture.test_imports_run_one_way import PACKAGES, ROOT


def test_no_module_imports_another_modules_private_name() -> None:
    found = []
    for package in (*PACKAGES, "examples", "tests"):
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                    private = [alias.name for alias in node.names if alias.name.startswith("_")
                               and not alias.name.startswith("__")]
                    if private:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.module} {private}")
    assert found == []
