"""The one request parser: JSON that every later step (validation, hashing, storage, the error
answer itself) can handle, or a 400 in the API's error shape.

Python's ``json`` accepts two things that break those steps with a 500: nesting as deep as its
recursion limit (the ledger's canonical JSON and the error details recurse), and ``\\ud800``-style
escapes that decode to lone surrogates (no UTF-8 encoder, hence no database or answer, takes
them). Both are refused here, before any view sees the data.
"""

from __future__ import annotations

import re
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils import json

#: Deeper than any request of this API needs (an action with a named joker is 3 levels).
MAX_DEPTH = 32

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # the only way one gets into parsed JSON


def refusal(value: Any, surrogates: bool = True) -> str | None:
    """Why parsed JSON cannot be taken: nested deeper than MAX_DEPTH, or (when ``surrogates``) a
    string, key or item, that holds a lone surrogate. A walk without recursion: it cannot overflow."""
    if type(value) not in (dict, list, str):
        return None
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        container, depth = stack.pop()
        if type(container) is str:
            if _SURROGATE.search(container):
                return "a string holds a lone surrogate (\\ud800-\\udfff)"
            continue
        if depth >= MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        items = [*container.keys(), *container.values()] if type(container) is dict else container
        for item in items:
            kind = type(item)
            if kind is list or kind is dict or (surrogates and kind is str):
                stack.append((item, depth + 1))
    return None


class StrictJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict[str, Any] | None = None) -> Any:
        encoding = get_encoding(parser_context or {})
        try:
            text = stream.read().decode(encoding)
        except UnicodeDecodeError as exc:
            raise ParseError(f"JSON parse error - not {encoding}") from exc
        try:
            data = json.loads(text, parse_constant=json.strict_constant if self.strict else None)
        except RecursionError as exc:  # deeper than the interpreter's recursion limit
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels") from exc
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        reason = refusal(data, surrogates=_SURROGATE_ESCAPE.search(text) is not None)
        if reason is not None:
            raise ParseError(f"JSON parse error - {reason}")
        return data
