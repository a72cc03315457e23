"""Request bodies checked against GitHub's description: a value of the wrong type or outside
an enum is refused as GitHub's strict body validation refuses it (422, ``Invalid request.``
and which field broke which rule), before the handler sees it.

Only types and enums are checked here: a missing required field is left to the handler, which
answers it in the words GitHub uses for that operation (``missing_field`` on most), and fields
the description does not have are left alone, as GitHub ignores them.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies

from pytest_ghxbench.sandbox.api.rest.description import Operation

__all__ = ["body_problem"]

_ARTICLE = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The description's OpenAPI 3.0 schema as JSON Schema, types and enums only."""
    out: dict[str, Any] = {}
    nullable = bool(schema.get("nullable"))
    if "type" in schema:
        out["type"] = [schema["type"], "null"] if nullable else schema["type"]
    if "enum" in schema:
        out["enum"] = [*schema["enum"], None] if nullable else list(schema["enum"])
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: _json_schema(v) for k, v in schema["properties"].items()}
    if isinstance(schema.get("items"), dict):
        out["items"] = _json_schema(schema["items"])
    alternatives = [*(schema.get("oneOf") or ()), *(schema.get("anyOf") or ())]
    if alternatives:
        # oneOf read as anyOf: GitHub's alternatives overlap (a string or an integer title)
        out["anyOf"] = [_json_schema(s) for s in alternatives]
        if nullable:
            out["anyOf"].append({"type": "null"})
    if schema.get("allOf"):
        out["allOf"] = [_json_schema(s) for s in schema["allOf"]]
    return out


@functools.lru_cache(maxsize=512)
def _validator(operation: Operation) -> Any:
    if not operation.body:
        return None
    schema = _json_schema(operation.body)
    return jsonschema.Draft7Validator(schema)


def _where(path: Any) -> str:
    parts = ["properties/" + p if isinstance(p, str) else "items" for p in path]
    return "/".join(parts)


def _shown(value: Any) -> str:
    return "nil" if value is None else json.dumps(value, ensure_ascii=False)


def body_problem(operation: Operation, body: Mapping[str, Any]) -> str | None:
    """GitHub's message for the first rule ``body`` breaks, or None."""
    validator = _validator(operation)
    if validator is None or not body:
        return None
    error = jsonschema.exceptions.best_match(validator.iter_errors(dict(body)))
    if error is None:
        return None
    types: list[str] = []
    while error.context:  # alternatives that did not match
        if all(e.validator == "type" and not e.relative_path for e in error.context):
            types = [t for e in error.context for t in _types(e.validator_value)]
            break
        error = jsonschema.exceptions.best_match(error.context)
    where = _where(error.absolute_path)
    prefix = f"For '{where}', " if where else ""
    value = _shown(error.instance)
    if error.validator == "enum":
        allowed = [v for v in error.validator_value if v is not None]
        rule = f"is not a member of {json.dumps(allowed)}"
    elif types or error.validator == "type":
        wanted = types or _types(error.validator_value)
        rule = "is not " + " or ".join(_ARTICLE.get(t, t) for t in dict.fromkeys(wanted))
    else:
        rule = "is not valid"
    return f"Invalid request.\n\n{prefix}{value} {rule}."


def _types(wanted: Any) -> list[str]:
    return [t for t in (wanted if isinstance(wanted, list) else [wanted]) if t != "null"]
