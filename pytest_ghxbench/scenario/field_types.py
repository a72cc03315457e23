"""The constrained values of the scenario models' fields: id, capability, tag and path
patterns, non-blank text, outcomes and checkpoint conditions, and the ``{{name}}``
placeholders of prompt templates.

Each pattern check says what was expected and shows the value it got.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, WithJsonSchema

from pytest_ghxbench.scenario.documents import show_value

__all__ = [
    "ATOMIC_ID_PATTERN",
    "ATOMIC_PLACEHOLDERS",
    "BINDING_TARGET_PATTERN",
    "CAPABILITY_PATTERN",
    "CONDITIONS_WITH_VALUE",
    "MANIFEST_PATH_PATTERN",
    "MAX_TIMEOUT_MS",
    "REPO_PATTERN",
    "TAG_PATTERN",
    "WORKFLOW_ID_PATTERN",
    "AtomicId",
    "BindingTarget",
    "CapabilityId",
    "Condition",
    "ManifestPath",
    "Outcome",
    "Tag",
    "Text",
    "WorkflowId",
    "placeholders",
    "substitute",
]

ATOMIC_ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9]{3}$"
WORKFLOW_ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*-wf-[0-9]{3}$"
CAPABILITY_PATTERN = r"^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$"
REPO_PATTERN = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"
BINDING_TARGET_PATTERN = r"^input(?:\.[^.\s]+)+$"
MANIFEST_PATH_PATTERN = r"^[^.\s]+(?:\.[^.\s]+)*$"
TAG_PATTERN = r"^\S+$"
MAX_TIMEOUT_MS = 86_400_000
"""A day: an item's deadline is at most this (a larger one is a typo, and overflows timers)."""

ATOMIC_PLACEHOLDERS = ("task", "scenario_id", "input_json", "fixture_repo")
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")

Outcome = Literal["success", "expected_error"]
Condition = Literal[
    "empty", "non_empty", "count_eq", "count_gte", "field_equals", "contains", "not_contains"
]
CONDITIONS_WITH_VALUE = ("count_eq", "count_gte", "field_equals", "contains", "not_contains")


def placeholders(template: str) -> list[str]:
    """The names of the ``{{name}}`` placeholders in a template, in order of appearance."""
    return [match.group(1) for match in _PLACEHOLDER.finditer(template)]


def substitute(template: str, values: dict[str, str]) -> str:
    """Replace every ``{{name}}`` whose name is in ``values``; leave the others as they are."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _pattern_check(pattern: str, expected: str) -> AfterValidator:
    """A validator rejecting strings not fully matching ``pattern``, saying what was expected."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise ValueError(f"must be {expected}, got {show_value(value)}")
        return value

    return AfterValidator(check)


def _pattern_schema(pattern: str) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "pattern": pattern})


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


Text = Annotated[
    str, AfterValidator(_not_blank), WithJsonSchema({"type": "string", "minLength": 1})
]
AtomicId = Annotated[
    str,
    _pattern_check(ATOMIC_ID_PATTERN, "kebab-case ending in -NNN, e.g. 'pr-view-001'"),
    _pattern_schema(ATOMIC_ID_PATTERN),
]
WorkflowId = Annotated[
    str,
    _pattern_check(WORKFLOW_ID_PATTERN, "kebab-case ending in -wf-NNN, e.g. 'pr-triage-wf-001'"),
    _pattern_schema(WORKFLOW_ID_PATTERN),
]
CapabilityId = Annotated[
    str,
    _pattern_check(
        CAPABILITY_PATTERN, "a capability id of dotted lower_snake_case words, e.g. 'pr.view'"
    ),
    _pattern_schema(CAPABILITY_PATTERN),
]
Tag = Annotated[
    str, _pattern_check(TAG_PATTERN, "a non-empty tag without spaces"), _pattern_schema(TAG_PATTERN)
]
BindingTarget = Annotated[
    str,
    _pattern_check(BINDING_TARGET_PATTERN, "a path into input such as 'input.prNumber'"),
    _pattern_schema(BINDING_TARGET_PATTERN),
]
ManifestPath = Annotated[
    str,
    _pattern_check(MANIFEST_PATH_PATTERN, "a dotted manifest path such as 'resources.pr.number'"),
    _pattern_schema(MANIFEST_PATH_PATTERN),
]
