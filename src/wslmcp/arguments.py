"""Tool arguments, checked strictly before anything runs: the one validation path of every server.

JSON types are taken as JSON states them: a boolean is never an integer, a string is never a
number, ``5.0`` is not an integer, ``null`` is only accepted where the schema offers it. A bad call
raises ``InvalidArguments`` naming the first problem before any tool code runs; the servers answer
it in the negotiated protocol's form (``wslmcp.serving``). Lengths are counted in characters
(Unicode scalar values), as JSON Schema counts them.

What the caller sent is never echoed in full: ``quoted`` cuts any text a reply quotes back (a
1 MB command's refusal is not itself 1 MB).

``check_schema(tool, schema, arguments)`` validates against a tool's input schema (the subset the
servers' schemas use: ``type``, ``anyOf``, ``enum``, ``minLength``/``maxLength``,
``minimum``/``maximum``/``exclusiveMinimum``/``exclusiveMaximum``, ``required`` and
``properties`` with no other property allowed, and ``array`` (``items``, ``minItems``/``maxItems``)
and nested ``object`` values checked the same way, named ``edits[0].oldText``). The ``check_*`` helpers are its primitives, for a
server that validates field by field (observe).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wslmcp.wording import counted

QUOTE_CHARS = 200
_JSON_TYPES = frozenset({"string", "integer", "boolean", "number", "array", "object"})


class InvalidArguments(ValueError):
    """A call rejected for its arguments before anything runs."""


def quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` as a reply may quote it back: whole up to ``limit`` characters, else its head and
    how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def check_string(key: str, value: object, min_len: int = 0, max_len: int | None = None) -> str:
    if not isinstance(value, str):
        raise InvalidArguments(f"{quoted(key)} must be a string")
    if len(value) < min_len or (max_len is not None and len(value) > max_len):
        raise InvalidArguments(f"{quoted(key)} {_length(min_len, max_len, 'character')}")
    return value


def _length(low: int, high: int | None, unit: str) -> str:
    """``must not be empty``, ``must hold at least 2 items``, ``must be 1..100 characters long``."""
    if high is None and low <= 1:
        return "must not be empty"
    verb, tail = ("must be", " long") if unit == "character" else ("must hold", "")
    if high is None:
        return f"{verb} at least {counted(low, unit)}{tail}"
    if low == high:
        return f"{verb} exactly {counted(low, unit)}{tail}"
    return f"{verb} {low}..{high} {unit}s{tail}"


def check_int(key: str, value: object, minimum: int | None = None, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArguments(f"{quoted(key)} must be an integer")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        if minimum is not None and maximum is not None:
            bound = f"{minimum}..{maximum}"
        else:
            bound = f">= {minimum}" if minimum is not None else f"<= {maximum}"
        raise InvalidArguments(f"{quoted(key)} must be {bound}")
    return value


def check_bool(key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidArguments(f"{quoted(key)} must be a boolean")
    return value


def check_enum(key: str, value: object, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise InvalidArguments(f"{quoted(key)}: expected one of {', '.join(allowed)}")
    return value


def check_schema(tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """Validate ``arguments`` against ``tool``'s input ``schema``; raises ``InvalidArguments``."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    unknown = [key for key in arguments if key not in properties]
    if unknown:
        given = ", ".join(repr(quoted(u, 60)) for u in sorted(unknown)[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        takes = f"it accepts {', '.join(sorted(properties))}" if properties else "it takes no arguments"
        raise InvalidArguments(f"{tool} does not take {given}{more}: {takes}. Nothing was run.")
    for key in schema.get("required", ()):
        if key not in arguments:
            raise InvalidArguments(f"missing required argument: {key}")
    for key, value in arguments.items():
        _check_value(key, properties[key], value)


def _check_value(key: str, prop: Mapping[str, Any], value: object) -> None:
    alternatives: list[Mapping[str, Any]] = list(prop.get("anyOf", [prop]))
    if value is None:
        if any(alt.get("type") == "null" for alt in alternatives):
            return
        raise InvalidArguments(f"{quoted(key)} must not be null")
    typed = [alt for alt in alternatives if alt.get("type") != "null"]
    first: InvalidArguments | None = None
    for alt in typed:
        try:
            _check_one(key, alt, value)
            return
        except InvalidArguments as exc:
            first = first or exc
    if first is not None:
        raise first


def _check_one(key: str, prop: Mapping[str, Any], value: object) -> None:
    kind = prop.get("type")
    if kind == "string":
        check_string(key, value, int(prop.get("minLength", 0)), prop.get("maxLength"))
    elif kind == "integer":
        low = prop.get("minimum")
        if "exclusiveMinimum" in prop:
            low = int(prop["exclusiveMinimum"]) + 1
        high = prop.get("maximum")
        if "exclusiveMaximum" in prop:
            high = int(prop["exclusiveMaximum"]) - 1
        check_int(key, value, low, high)
    elif kind == "boolean":
        check_bool(key, value)
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidArguments(f"{quoted(key)} must be a number")
    elif kind == "array":
        _check_array(key, prop, value)
    elif kind == "object":
        _check_object(key, prop, value)
    elif kind is not None and kind not in _JSON_TYPES:
        raise InvalidArguments(f"{quoted(key)} has a type this server cannot check")
    if "enum" in prop:
        check_enum(key, value, [str(v) for v in prop["enum"]])


def _check_array(key: str, prop: Mapping[str, Any], value: object) -> None:
    if not isinstance(value, list):
        raise InvalidArguments(f"{quoted(key)} must be an array")
    low, high = prop.get("minItems", 0), prop.get("maxItems")
    if len(value) < low or (high is not None and len(value) > high):
        raise InvalidArguments(f"{quoted(key)} {_length(low, high, 'item')}")
    items = prop.get("items")
    if items is not None:
        for i, item in enumerate(value):
            _check_value(f"{key}[{i}]", items, item)


def _check_object(key: str, prop: Mapping[str, Any], value: object) -> None:
    """A nested object, checked as a tool's arguments are (closed when the schema says so)."""
    if not isinstance(value, dict):
        raise InvalidArguments(f"{quoted(key)} must be an object")
    properties: Mapping[str, Any] = prop.get("properties", {})
    if prop.get("additionalProperties") is False:
        unknown = sorted(k for k in value if k not in properties)
        if unknown:
            raise InvalidArguments(
                f"{quoted(key)} does not take {quoted(repr(unknown[0]), 60)}: "
                f"it accepts {', '.join(sorted(properties))}"
            )
    for name in prop.get("required", ()):
        if name not in value:
            raise InvalidArguments(f"missing required argument: {quoted(key)}.{name}")
    for name, item in value.items():
        if name in properties:
            _check_value(f"{key}.{name}", properties[name], item)
