"""Judging an atomic item against its scenario (SPEC §5, steps 3 and 5).

The judgement has two halves; the item passes iff both hold (``Judgement.passed``).

**Atomic scenarios** are judged from the envelope, the first JSON object of the final answer
(see :mod:`pytest_ghxbench.attempt.envelope`; answers longer than ``MAX_ANSWER_CHARS`` are judged on
their beginning).

``output_valid`` -- the answer has the envelope's shape:

- ``required_fields`` are keys of the envelope (when the list is empty or absent:
  ``ok``, ``data``, ``error``, ``meta``); ``ok`` is a boolean, ``error`` null or an object and
  ``meta`` an object, whenever present;
- ``required_data_fields`` are keys of ``data`` (an object), or of every element of ``data``
  (an array of objects; an empty array passes); ``data_type`` is the JSON type of ``data``;
- ``required_meta_fields`` are keys of ``meta``; ``require_attempt_trace`` asks for a non-empty
  ``meta.attempts`` list.

With ``expect_valid_output: false`` none of this is enforced and ``output_valid`` is true,
whether or not an object could be extracted.

``success`` -- the answer reports the expected outcome with the expected tool use:

- ``success``: ``ok`` is true and ``error`` is null; ``expected_error``: ``ok`` is false and
  ``error.code`` equals ``expected_error_code``;
- ``require_tool_calls`` (at least one call), ``min_tool_calls`` and ``max_tool_calls`` bound
  the number of tool calls the agent made.

Route assertions are mode-scoped: ``expected_route_used`` and a ``route_used`` entry of
``required_meta_fields`` apply only when the mode is ``route_mode`` (``ghx``); the other
interfaces have no routes. No final answer, or no JSON object in it, fails both halves (unless
``expect_valid_output`` is false). Every failing assertion is reported, each naming the
assertion key, what was expected and what the answer had.

Workflow scenarios are judged by :mod:`pytest_ghxbench.attempt.checkpoints`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench.attempt.envelope import (
    MAX_ANSWER_CHARS,
    excerpt,
    excerpt_json,
    extract_first_json_object,
)

__all__ = [
    "DEFAULT_REQUIRED_FIELDS",
    "ROUTE_MODE",
    "Judgement",
    "expected_outcome",
    "judge_atomic",
    "names",
]

DEFAULT_REQUIRED_FIELDS = ("ok", "data", "error", "meta")
ROUTE_MODE = "ghx"
"""The mode whose interface has routes, so the only one where route assertions apply."""

_SHOWN_KEYS = 20


@dataclass
class Judgement:
    """The judgement of one item: the two row flags and why they are false."""

    success: bool
    output_valid: bool
    failures: list[str]
    envelope: Any | None = None
    checkpoints: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """The item passes iff the outcome was right and the output valid."""
        return self.success and self.output_valid


def _calls(count: int) -> str:
    return f"{count} tool call" if count == 1 else f"{count} tool calls"


def names(keys: Sequence[str]) -> str:
    """``'a', 'b'``: keys as they appear in failure messages."""
    return ", ".join(repr(key) for key in keys)


def _has(mapping: Mapping[str, Any]) -> str:
    keys = [str(key) for key in mapping]
    more = f", … ({len(keys) - _SHOWN_KEYS} more)" if len(keys) > _SHOWN_KEYS else ""
    return f"has: {', '.join(keys[:_SHOWN_KEYS]) or 'no fields'}{more}"


def _lacks(what: str, mapping: Mapping[str, Any], required: Sequence[str]) -> str | None:
    missing = [key for key in required if key not in mapping]
    if not missing:
        return None
    return f"{what} lacks {names(missing)} ({_has(mapping)})"


def _get(envelope: Mapping[str, Any], key: str) -> str:
    return excerpt_json(envelope[key]) if key in envelope else "<missing>"


# ---------------------------------------------------------------- atomic


def judge_atomic(
    scenario: Any,
    *,
    mode: str,
    final_text: str | None,
    tool_call_count: int,
    route_mode: str = ROUTE_MODE,
) -> Judgement:
    """Judge an atomic item's final answer against the scenario's assertions.

    See the module docstring for the rules. ``scenario`` is an ``AtomicScenario`` (or any
    object with the same attributes).
    """
    assertions = scenario.assertions
    routes_apply = mode == route_mode
    enforce_shape = bool(getattr(assertions, "expect_valid_output", True))
    tool_failures = _tool_call_failures(assertions, tool_call_count)

    if not isinstance(final_text, str):
        got = "None" if final_text is None else type(final_text).__name__
        problem = f"no final answer: the agent returned {got} instead of text"
        return Judgement(False, not enforce_shape, [problem, *tool_failures])
    envelope = extract_first_json_object(final_text[:MAX_ANSWER_CHARS])
    if not isinstance(envelope, dict):
        searched = ""
        if len(final_text) > MAX_ANSWER_CHARS:
            searched = (
                f" (only its first {MAX_ANSWER_CHARS} of {len(final_text)} characters are judged)"
            )
        problem = f"no JSON object found in the final answer{searched}: {excerpt(final_text)}"
        return Judgement(False, not enforce_shape, [problem, *tool_failures])

    shape_failures = _shape_failures(envelope, assertions, routes_apply) if enforce_shape else []
    outcome_failures = _outcome_failures(envelope, assertions, routes_apply)
    return Judgement(
        success=not outcome_failures and not tool_failures,
        output_valid=not shape_failures,
        failures=[*shape_failures, *outcome_failures, *tool_failures],
        envelope=envelope,
    )


def _tool_call_failures(assertions: Any, count: int) -> list[str]:
    failures = []
    if getattr(assertions, "require_tool_calls", False) and count < 1:
        failures.append(
            f"assertions.require_tool_calls: expected at least 1 tool call, got {count}"
        )
    low = getattr(assertions, "min_tool_calls", None)
    if low is not None and count < low:
        failures.append(f"assertions.min_tool_calls: expected at least {_calls(low)}, got {count}")
    high = getattr(assertions, "max_tool_calls", None)
    if high is not None and count > high:
        failures.append(f"assertions.max_tool_calls: expected at most {_calls(high)}, got {count}")
    return failures


def _shape_failures(envelope: dict[str, Any], assertions: Any, routes_apply: bool) -> list[str]:
    failures = []
    required = list(getattr(assertions, "required_fields", None) or DEFAULT_REQUIRED_FIELDS)
    if lacking := _lacks("envelope", envelope, required):
        failures.append(f"assertions.required_fields: {lacking}")
    if "ok" in envelope and not isinstance(envelope["ok"], bool):
        failures.append(f"envelope.ok: expected true or false, got {excerpt_json(envelope['ok'])}")
    if "error" in envelope and not (
        envelope["error"] is None or isinstance(envelope["error"], dict)
    ):
        failures.append(
            f"envelope.error: expected null or an object, got {_get(envelope, 'error')}"
        )
    if "meta" in envelope and not isinstance(envelope["meta"], dict):
        failures.append(f"envelope.meta: expected an object, got {_get(envelope, 'meta')}")

    data_fields = list(getattr(assertions, "required_data_fields", None) or [])
    if data_fields and (problem := _data_fields_problem(envelope, data_fields)):
        failures.append(f"assertions.required_data_fields: {problem}")
    data_type = getattr(assertions, "data_type", None)
    if data_type is not None and (problem := _data_type_problem(envelope, data_type)):
        failures.append(f"assertions.data_type: {problem}")

    meta = envelope.get("meta")
    meta_fields = [
        name
        for name in getattr(assertions, "required_meta_fields", None) or []
        if routes_apply or name != "route_used"
    ]
    if meta_fields:
        if not isinstance(meta, dict):
            failures.append(
                f"assertions.required_meta_fields: expected meta to be an object with "
                f"{names(meta_fields)}, got {_get(envelope, 'meta')}"
            )
        elif lacking := _lacks("meta", meta, meta_fields):
            failures.append(f"assertions.required_meta_fields: {lacking}")
    if getattr(assertions, "require_attempt_trace", False):
        attempts = meta.get("attempts") if isinstance(meta, dict) else None
        if not (isinstance(attempts, list) and attempts):
            got = (
                excerpt_json(attempts)
                if isinstance(meta, dict) and "attempts" in meta
                else "<missing>"
            )
            failures.append(
                f"assertions.require_attempt_trace: expected meta.attempts to be a non-empty "
                f"list, got {got}"
            )
    return failures


def _data_fields_problem(envelope: dict[str, Any], fields: list[str]) -> str | None:
    if "data" not in envelope:
        return f"data is missing, expected an object with {names(fields)}"
    data = envelope["data"]
    if isinstance(data, dict):
        return _lacks("data", data, fields)
    if not isinstance(data, list):
        return f"expected data to be an object with {names(fields)}, got {excerpt_json(data)}"
    problems = []
    for index, element in enumerate(data):
        if not isinstance(element, dict):
            problems.append(f"data[{index}] is not an object: {excerpt_json(element, 80)}")
        elif lacking := _lacks(f"data[{index}]", element, fields):
            problems.append(lacking)
    if not problems:
        return None
    if len(problems) == 1:
        return problems[0]
    return f"{len(problems)} of {len(data)} items are incomplete, first: {problems[0]}"


_JSON_TYPES: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("null", type(None)),
    ("boolean", bool),
    ("number", (int, float)),
    ("string", str),
    ("array", list),
    ("object", dict),
)


def _json_type(value: Any) -> str:
    return next((name for name, kind in _JSON_TYPES if isinstance(value, kind)), "unknown")


def _data_type_problem(envelope: dict[str, Any], expected: str) -> str | None:
    if "data" not in envelope:
        return f"expected data to be an {expected}, got <missing>"
    data = envelope["data"]
    actual = _json_type(data)
    if actual == expected:
        return None
    shown = "" if data is None else f" {excerpt_json(data, 120)}"
    return f"expected data to be an {expected}, got {actual}{shown}"


def _outcome_failures(envelope: dict[str, Any], assertions: Any, routes_apply: bool) -> list[str]:
    failures = []
    outcome = expected_outcome(assertions)
    ok, error = envelope.get("ok"), envelope.get("error")

    def got() -> str:
        return f"got ok={_get(envelope, 'ok')}, error={_get(envelope, 'error')}"

    if outcome == "success":
        if ok is not True or error is not None:
            key = _outcome_key(assertions)
            failures.append(f"{key}: expected success (ok true, error null), {got()}")
    else:
        code = getattr(assertions, "expected_error_code", None)
        if ok is not False or not isinstance(error, dict):
            key = _outcome_key(assertions)
            failures.append(f"{key}: expected an error (ok false, error an object), {got()}")
        if code is not None and (not isinstance(error, dict) or error.get("code") != code):
            actual = (
                excerpt_json(error.get("code")) if isinstance(error, dict) else "no error object"
            )
            wanted = excerpt_json(code)
            failures.append(
                f"assertions.expected_error_code: expected error.code {wanted}, got {actual}"
            )
    expected_route = getattr(assertions, "expected_route_used", None)
    if routes_apply and expected_route is not None:
        meta = envelope.get("meta")
        has_route = isinstance(meta, dict) and "route_used" in meta
        route = meta.get("route_used") if isinstance(meta, dict) else None
        if not (has_route and isinstance(route, str) and route == expected_route):
            actual = excerpt_json(route) if has_route else "no meta.route_used"
            failures.append(
                f"assertions.expected_route_used: expected meta.route_used "
                f"{excerpt_json(expected_route)}, got {actual}"
            )
    return failures


def expected_outcome(assertions: Any) -> str:
    """``success`` or ``expected_error``, also from the legacy ``must_succeed`` key."""
    outcome = getattr(assertions, "outcome", None)
    if outcome is not None:
        return str(outcome)
    if getattr(assertions, "expected_outcome", None) is not None:
        return str(assertions.expected_outcome)
    return "expected_error" if getattr(assertions, "must_succeed", None) is False else "success"


def _outcome_key(assertions: Any) -> str:
    legacy = getattr(assertions, "expected_outcome", None) is None
    if legacy and getattr(assertions, "must_succeed", None) is not None:
        return "assertions.must_succeed"
    return "assertions.expected_outcome"
