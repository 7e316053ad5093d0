"""The JSON renderer of the hot answers (a move's, the game view's): orjson for DRF's JSONRenderer."""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS


class FastJSONRenderer(JSONRenderer):
    """The bytes of DRF's ``JSONRenderer`` (compact, UTF-8, U+2028/U+2029 escaped, times through DRF's
    encoder), written by orjson: every move answers a game view, and most turns GET one. Whatever
    orjson refuses (a number beyond 64 bits, say) and an ``indent`` asked for go to DRF's own."""

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict[str, Any] | None = None) -> bytes:
        if data is None:
            return b""
        if (accepted_media_type and "indent" in accepted_media_type) or (renderer_context or {}).get("indent"):
            return super().render(data, accepted_media_type, renderer_context)
        try:
            content = orjson.dumps(data, default=self.encoder_class().default, option=_OPTIONS)
        except (orjson.JSONEncodeError, TypeError, ValueError):
            return super().render(data, accepted_media_type, renderer_context)
        if b"\xe2\x80" in content:  # what DRF's renderer escapes for JavaScript
            content = content.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
        return content
