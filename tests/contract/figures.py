"""Figures of a schema's typing, for the contract check and its report.

Counts the named components, the object schemas written inline in operations or nested inside a
component (a generator names those after where they stand), the enums written out more than once
(the same value list not behind one ``$ref``) and the objects whose members are untyped.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml


def _walk(node: Any, path: str, found: list[tuple[str, dict[str, Any]]]) -> None:
    if isinstance(node, dict):
        found.append((path, node))
        for key, value in node.items():
            _walk(value, f"{path}/{key}", found)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _walk(value, f"{path}/{index}", found)


def _is_schema_path(path: str) -> bool:
    return "/schema" in path or path.startswith("/components/schemas/")


def figures(schema: dict[str, Any]) -> dict[str, Any]:
    found: list[tuple[str, dict[str, Any]]] = []
    _walk(schema, "", found)
    schemas = [(path, node) for path, node in found if _is_schema_path(path) and "examples" not in path.split("/")]
    component_roots = {f"/components/schemas/{name}" for name in schema.get("components", {}).get("schemas", {})}
    inline = [path for path, node in schemas if isinstance(node.get("properties"), dict)
              and path not in component_roots and not path.endswith("/properties") and "/allOf/" not in path]
    enums = Counter(json.dumps(sorted(map(str, node["enum"]))) for path, node in schemas
                    if isinstance(node.get("enum"), list) and len(node["enum"]) > 1
                    and not path.endswith("/properties"))
    duplicated = {values: count for values, count in enums.items() if count > 1}
    untyped = [path for path, node in schemas
               if node.get("type") == "object" and "properties" not in node and "$ref" not in node
               and node.get("additionalProperties") in (None, True, {})]
    free_maps = [path for path, node in schemas
                 if isinstance(node.get("additionalProperties"), dict) and node["additionalProperties"]]
    return {
        "components": len(schema.get("components", {}).get("schemas", {})),
        "inline_objects": len(inline),
        "inline_object_paths": inline,
        "duplicated_enums": len(duplicated),
        "duplicated_enum_values": duplicated,
        "untyped_objects": untyped,
        "typed_free_maps": free_maps,
    }


if __name__ == "__main__":
    text = Path(sys.argv[1]).read_text()
    loaded = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    print(json.dumps(figures(loaded), indent=1))
