"""A rule set from a client's preset name and options, refused in the API's error shape."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from games import engine
from maumau.errors import ValidationFailed


def rule_set_from(name: str, options: dict[str, Any] | None) -> engine.RuleSet:
    """The effective rules of a table or league; unknown options and bad values name the option."""
    try:
        return engine.RuleSet.from_preset(name, options or {})
    except engine.RulesError as exc:
        raise ValidationFailed(
            message=_("These rules are not valid."),
            details={"option": exc.option, "reason": str(exc.message)},
        ) from exc
