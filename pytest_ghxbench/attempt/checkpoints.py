"""Judging a workflow item by the state it left behind (SPEC §5, step 5).

**Workflow scenarios** are judged by the state they leave behind. ``output_valid`` means the
agent gave a non-empty final answer. Each checkpoint runs its ``verification_task`` on the
backend with the bound input overlaid by ``verification_input``; the result must have ``ok``
true. The value tested is the result's ``data``: first ``data[verification_field]`` when a
field is named (``None`` when absent or when ``data`` is not an object), then, if that value
is an object with an ``items`` list, the list. Conditions: ``empty`` (an empty list, or None),
``non_empty`` (a non-empty list, or anything else but None), ``count_eq`` / ``count_gte``
(a list whose length is / is at least ``expected_value``), ``field_equals`` (an object whose
fields equal every field of ``expected_value``, compared as JSON: ``1`` is not ``true``),
``contains`` / ``not_contains`` (the text ``expected_value`` is / is not in the value: a text,
any text of a list, or the JSON of anything else; case matters).
``success`` means every checkpoint holds; for ``expected_outcome: expected_error`` it means
the opposite: the checkpoints must *not* all hold.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pytest_ghxbench.attempt.envelope import excerpt, excerpt_json
from pytest_ghxbench.attempt.judge import Judgement, expected_outcome, names

__all__ = ["RunTask", "judge_workflow"]

RunTask = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]
"""A backend session's ``run_task(task, input) -> envelope``."""


def judge_workflow(
    scenario: Any,
    *,
    bound_input: Mapping[str, Any],
    final_text: str | None,
    tool_call_count: int,
    run_task: RunTask | None,
) -> Judgement:
    """Judge a workflow item by verifying its checkpoints on the backend.

    ``run_task(task, input)`` executes a capability and returns its envelope (a backend
    session's ``run_task``); ``None`` means there is no backend, so no checkpoint can hold.
    Exceptions raised by ``run_task`` fail their checkpoint; they are never propagated.
    ``tool_call_count`` is accepted for symmetry with :func:`judge_atomic`; workflows have no
    tool-call assertions.
    """
    assertions = scenario.assertions
    failures: list[str] = []
    output_valid = isinstance(final_text, str) and bool(final_text.strip())
    if not output_valid:
        if isinstance(final_text, str):
            failures.append(f"no final answer: the final answer is blank ({excerpt(final_text)})")
        else:
            got = "None" if final_text is None else type(final_text).__name__
            failures.append(f"no final answer: the agent returned {got} instead of text")

    results = []
    failed = []
    for checkpoint in assertions.checkpoints:
        passed, detail = _verify(checkpoint, bound_input, run_task)
        results.append({"name": checkpoint.name, "passed": passed, "detail": detail})
        if not passed:
            label = f"{checkpoint.verification_task}, condition {checkpoint.condition}"
            failed.append(f"checkpoint {checkpoint.name!r} ({label}): {detail}")

    if expected_outcome(assertions) == "expected_error":
        success = bool(failed)
        if not success:
            failures.append(
                f"assertions.expected_outcome: expected_error means the checkpoints must not "
                f"all hold, but all {len(results)} passed"
            )
    else:
        success = not failed
        failures.extend(failed)
    return Judgement(success, output_valid, failures, checkpoints=results)


def _verify(
    checkpoint: Any, bound_input: Mapping[str, Any], run_task: RunTask | None
) -> tuple[bool, str]:
    """Run one checkpoint: ``(passed, detail)``; never raises."""
    if run_task is None:
        return False, "no backend to verify checkpoints"
    task_input = {**bound_input, **(getattr(checkpoint, "verification_input", None) or {})}
    try:
        result = run_task(checkpoint.verification_task, task_input)
    except Exception as exc:
        return False, f"verification task raised {type(exc).__name__}: {excerpt(str(exc), 300)}"
    if not isinstance(result, Mapping):
        return False, f"verification task returned {type(result).__name__}, expected an envelope"
    if result.get("ok") is not True:
        ok, error = excerpt_json(result.get("ok")), excerpt_json(result.get("error"))
        return False, f"verification task failed: ok={ok}, error={error}"
    value = result.get("data")
    field_name = getattr(checkpoint, "verification_field", None)
    if field_name is not None:
        value = value.get(field_name) if isinstance(value, dict) else None
    if isinstance(value, dict) and isinstance(value.get("items"), list):
        value = value["items"]
    try:
        return _condition(checkpoint.condition, value, getattr(checkpoint, "expected_value", None))
    except Exception as exc:  # a malformed expected_value must not crash the session
        return False, f"cannot test condition {checkpoint.condition!r}: {type(exc).__name__}: {exc}"


def _count(value: list[Any]) -> str:
    return f"{len(value)} item" if len(value) == 1 else f"{len(value)} items"


def _condition(condition: str, value: Any, expected: Any) -> tuple[bool, str]:
    is_list = isinstance(value, list)
    if condition == "empty":
        if value is None or (is_list and not value):
            return True, "empty" if is_list else "nothing (null)"
        return False, f"got {_count(value)}" if is_list else f"got {excerpt_json(value)}"
    if condition == "non_empty":
        if value is not None and not (is_list and not value):
            return True, _count(value) if is_list else f"got {excerpt_json(value, 80)}"
        return False, "got 0 items" if is_list else "got nothing (null)"
    if condition in ("count_eq", "count_gte"):
        wanted = int(expected)
        if not is_list:
            return False, f"expected a list, got {excerpt_json(value)}"
        holds = len(value) == wanted if condition == "count_eq" else len(value) >= wanted
        relation = "exactly" if condition == "count_eq" else "at least"
        return holds, f"got {_count(value)}, expected {relation} {wanted}"
    if condition == "field_equals":
        if not isinstance(expected, Mapping):
            return False, f"expected_value must be an object, got {excerpt_json(expected)}"
        if not isinstance(value, dict):
            return False, f"expected an object, got {excerpt_json(value)}"
        mismatches = [
            f"{key}: expected {excerpt_json(want, 80)}, got "
            + (excerpt_json(value[key], 80) if key in value else "<missing>")
            for key, want in expected.items()
            if key not in value or not _json_equal(value[key], want)
        ]
        if mismatches:
            return False, "; ".join(mismatches)
        return True, f"{names(list(expected))} as expected"
    if condition in ("contains", "not_contains"):
        return _contains(condition == "contains", value, str(expected))
    return False, f"unknown condition {condition!r}"


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    return [] if value is None else [json.dumps(value, ensure_ascii=False)]


def _contains(wanted: bool, value: Any, text: str) -> tuple[bool, str]:
    """``text`` is (``wanted``) or is not in ``value``."""
    found = [t for t in _texts(value) if text in t]
    shown = excerpt_json(text, 80)
    if found:
        return wanted, f"{shown} found in {excerpt_json(found[0], 120)}"
    where = _count(value) if isinstance(value, list) else excerpt_json(value, 120)
    return not wanted, f"{shown} not found in {where}"


def _json_equal(left: Any, right: Any) -> bool:
    """Equality of JSON values: unlike ``==``, ``true`` is not ``1`` and ``1`` is not ``"1"``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(_json_equal(left[k], right[k]) for k in left)
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    return type(left) is type(right) and bool(left == right)
