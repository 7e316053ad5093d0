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
    schema says ``additionalProperties: false``: see :mod:`maumau.schema`), and a value whose JSON
    type is not its field's (:func:`json_type_refusal`), whichever field class declared it: a plain
    DRF field in a request serializer is as strict as the ``Strict*`` ones."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = set(data) - set(self.fields)
            if unknown:
                raise serializers.ValidationError({k: ["Unknown field."] for k in sorted(map(str, unknown))})
            refused = {name: [refusal] for name, field in self.fields.items() if name in data
                       and (refusal := json_type_refusal(field, data[name])) is not None}
            if refused:
                raise serializers.ValidationError(refused)
        return super().to_internal_value(data)


def json_type(field: serializers.Field) -> tuple[str, tuple[type, ...]] | None:
    """The JSON type a field takes (its name and the Python types json gives for it), or None when
    the field checks its own value (nested serializers, free maps, custom fields)."""
    if isinstance(field, serializers.BooleanField):
        return "boolean", (bool,)
    if isinstance(field, serializers.IntegerField):
        return "integer", (int,)
    if isinstance(field, (serializers.FloatField, serializers.DecimalField)):
        return "number", (int, float)
    if isinstance(field, (serializers.CharField, serializers.DateTimeField, serializers.DateField,
                          serializers.TimeField)):
        return "string", (str,)
    if isinstance(field, serializers.ChoiceField) and all(isinstance(c, str) for c in field.choices):
        return "string", (str,)
    if isinstance(field, (serializers.ListField, serializers.ListSerializer)):
        return "array", (list,)
    return None


def json_type_refusal(field: serializers.Field, value: Any) -> str | None:
    """Why ``value`` is refused for ``field`` by its JSON type (``0`` for a boolean or a string,
    ``"5"`` or ``true`` for an integer), or None. An array's items are checked against its child."""
    if value is None:
        return None  # the field's own allow_null decides
    expected = json_type(field)
    if expected is None:
        return None
    name, types = expected
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        return f"Must be a JSON {name}."
    if isinstance(field, serializers.ListField) and field.child is not None:
        for item in value:
            refusal = json_type_refusal(field.child, item)
            if refusal is not None:
                return f"Each item: {refusal[0].lower()}{refusal[1:]}"
    return None


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
