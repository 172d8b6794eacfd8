"""Tool parameters declared once: they give the JSON input schema (for MCP) and the validation
(for every front end), so the two can never disagree.

Validation is strict because callers are often language models: a wrong type, an unknown
argument or a value out of range gets a ValidationError naming the field, never a guess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from kbtui.tools.envelope import ValidationError

JsonType = Literal["string", "integer", "number", "boolean", "object", "array"]
_PY_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
    "array": "an array",
}


@dataclass(frozen=True)
class Param:
    type: JsonType | tuple[JsonType, ...]  # a tuple: any of these (a property's value)
    description: str
    required: bool = False
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    enum: tuple[str, ...] | None = None
    nullable: bool = False
    items: Param | None = None
    max_items: int | None = None
    properties: Mapping[str, Param] = field(default_factory=dict)
    free_form: bool = False  # an object whose keys are the caller's (e.g. metadata)

    def schema(self) -> dict[str, Any]:
        kinds: list[str] = list(self.type) if isinstance(self.type, tuple) else [self.type]
        kinds += ["null"] if self.nullable else []
        out: dict[str, Any] = {"type": kinds if len(kinds) > 1 else kinds[0]}
        if self.description:  # an enum or a flag may say it all: no words to pay for
            out["description"] = self.description
        for key, value in (
            ("default", self.default),
            ("minimum", self.minimum),
            ("maximum", self.maximum),
            ("minLength", self.min_length),
            ("maxLength", self.max_length),
            ("pattern", self.pattern),
            ("maxItems", self.max_items),
        ):
            if value is not None:
                out[key] = value
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.items is not None:
            out["items"] = self.items.schema()
        if self.type == "object" and not self.free_form:
            out["properties"] = {k: p.schema() for k, p in self.properties.items()}
            out["additionalProperties"] = False
        return out


def input_schema(params: Mapping[str, Param]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: p.schema() for name, p in params.items()},
        "required": [name for name, p in params.items() if p.required],
        "additionalProperties": False,
    }


def validate(params: Mapping[str, Param], args: Mapping[str, Any] | None) -> dict[str, Any]:
    """Checked arguments with defaults filled in, or ValidationError for the first problem."""
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise ValidationError("arguments must be an object")
    unknown = sorted(set(args) - set(params))
    if unknown:
        raise ValidationError(
            f"unknown argument {unknown[0]!r}; expected {', '.join(params)}", field=unknown[0]
        )
    return {name: _check(name, p, args.get(name)) for name, p in params.items()}


def _check(name: str, p: Param, value: Any) -> Any:
    if value is None:
        if p.required:
            raise ValidationError(f"{name} is required", field=name)
        return p.default if not isinstance(p.default, dict | list) else type(p.default)()
    kinds = p.type if isinstance(p.type, tuple) else (p.type,)
    if "integer" in kinds and isinstance(value, float) and value.is_integer():
        value = int(value)
    kind = next((k for k in kinds if _is_type(k, value)), None)
    if kind is None:
        wanted = " or ".join(_PY_NAMES[k] for k in kinds)
        raise ValidationError(f"{name} must be {wanted}, not {type(value).__name__}", field=name)
    if kind == "string":
        _check_string(name, p, value)
    elif kind in ("integer", "number"):
        _check_number(name, p, value)
    elif kind == "array":
        if p.max_items is not None and len(value) > p.max_items:
            raise ValidationError(f"{name} has more than {p.max_items} items", field=name)
        if p.items is not None:
            value = [_check(f"{name}[{i}]", p.items, v) for i, v in enumerate(value)]
    elif kind == "object" and not p.free_form:
        value = validate_nested(name, p, value)
    return value


def validate_nested(name: str, p: Param, value: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(value) - set(p.properties))
    if unknown:
        raise ValidationError(
            f"unknown field {name}.{unknown[0]}; expected {', '.join(p.properties)}",
            field=f"{name}.{unknown[0]}",
        )
    return {k: _check(f"{name}.{k}", sub, value.get(k)) for k, sub in p.properties.items()}


def _is_type(kind: JsonType, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )
    if kind == "object":
        return isinstance(value, Mapping)
    return isinstance(value, list | tuple)


def _check_string(name: str, p: Param, value: str) -> None:
    if "\x00" in value:
        raise ValidationError(f"{name} must not contain NUL characters", field=name)
    length = len(value.strip()) if p.min_length else len(value)
    if p.min_length is not None and length < p.min_length:
        what = "cannot be empty" if p.min_length == 1 else f"is too short (min {p.min_length})"
        raise ValidationError(f"{name} {what}", field=name)
    if p.max_length is not None and len(value) > p.max_length:
        raise ValidationError(
            f"{name} is too long ({len(value)} characters; max {p.max_length})", field=name
        )
    if p.pattern is not None and not re.fullmatch(p.pattern, value):
        raise ValidationError(f"{name} {value[:80]!r} must match {p.pattern}", field=name)
    if p.enum is not None and value not in p.enum:
        raise ValidationError(f"{name} must be one of {', '.join(p.enum)}", field=name)


def _check_number(name: str, p: Param, value: float) -> None:
    lo, hi = p.minimum, p.maximum
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if lo is not None and hi is not None:
            rule = f"between {_num(lo)} and {_num(hi)}"
        elif lo is not None:
            rule = f"at least {_num(lo)}"
        else:
            rule = f"at most {_num(hi)}"
        raise ValidationError(f"{name} must be {rule}", field=name)


def _num(x: float | None) -> str:
    return str(int(x)) if x is not None and float(x).is_integer() else str(x)
