"""Names people give (players, leagues): shown to everyone, so they must read as what they are.

Following Unicode's security guidance (UTS #39) and identifier rules (UAX #31), a name is
NFC-normalized and trimmed, and refused when it holds a character that is invisible or changes how
the text around it is shown: controls, format characters (the bidirectional overrides and isolates,
zero-width spaces and joiners, the byte order mark), private-use, surrogate and unassigned code
points, line and paragraph separators, spaces other than the plain one, and every other
default-ignorable code point (written out below: fillers and variation selectors look like nothing).
It must also show something: at least one letter, digit, punctuation mark or symbol.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from maumau.strict import StrictCharField

REFUSED_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp", "Zs"}
VISIBLE_CATEGORIES = ("L", "N", "P", "S")

#: Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) outside the categories above.
DEFAULT_IGNORABLE_RANGES = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xE0100, 0xE01EF),  # variation selectors supplement
)


def _ignorable(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in DEFAULT_IGNORABLE_RANGES)


def name_refusal(name: str) -> str | None:
    """Why ``name`` (already normalized and trimmed) cannot be shown as a name, or None."""
    for char in name:
        if char == " ":
            continue
        if unicodedata.category(char) in REFUSED_CATEGORIES or _ignorable(char):
            label = unicodedata.name(char, "unnamed")
            return str(_("A name cannot contain U+%(point)04X (%(label)s).") % {"point": ord(char), "label": label})
    if not any(unicodedata.category(char).startswith(VISIBLE_CATEGORIES) for char in name):
        return str(_("A name needs at least one visible character."))
    return None


class NameField(StrictCharField):
    """A JSON string for names: NFC, trimmed, and checked by :func:`name_refusal` before its length."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_length", 1)
        kwargs["trim_whitespace"] = True
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        value = unicodedata.normalize("NFC", value).strip()
        refusal = name_refusal(value)
        if refusal is not None:
            raise serializers.ValidationError(refusal, code="invalid_name")
        return value
