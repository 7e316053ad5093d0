"""Request fields that take JSON as the schema says it, and nothing it does not.

DRF's fields coerce: ``"5"``, ``5.0`` and ``"5.0"`` pass as the integer 5, ``0`` as the string
``"0"``, ``"yes"`` as ``true``. A client whose JSON is wrong should hear so (400) rather than
have it guessed, and the OpenAPI schema, which says ``integer``, ``string`` or ``boolean``,
should be the whole truth. Every request serializer of the API is built from these.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a typo is a 400 rather than silently ignored (the
    schema says ``additionalProperties: false``: see :mod:`maumau.schema`)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = set(data) - set(self.fields)
            if unknown:
                raise serializers.ValidationError({k: ["Unknown field."] for k in sorted(map(str, unknown))})
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """A JSON string only (no number turned into its digits)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer only: not ``"5"``, ``5.0`` or ``true``."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictChoiceField(serializers.ChoiceField):
    """One of the choices, as the very string (DRF compares ``str(value)``)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false`` only: not ``"yes"``, ``1`` or ``"true"``."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictListField(serializers.ListField):
    """A JSON array only (DRF also takes a form's repeated keys, never sent here)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, list):
            self.fail("not_a_list", input_type=type(data).__name__)
        return super().to_internal_value(data)


class StrictURLField(serializers.URLField):
    """A JSON string that is a URL."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


def validated(serializer_class: type[serializers.Serializer], request: Any) -> dict[str, Any]:
    """The request body checked by ``serializer_class`` (400 in the API shape otherwise)."""
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
