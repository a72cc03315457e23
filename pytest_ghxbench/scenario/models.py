"""The scenario file format (SPEC section 4) as pydantic models.

Field names follow the TypeScript ghx benchmark so its JSON scenarios load unchanged. Unknown
fields are rejected so typos surface as errors. Cross-field rules are field validators placed
on the later field, so each error's location names the field to fix.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from pytest_ghxbench.scenario.documents import show_value
from pytest_ghxbench.scenario.field_types import (
    ATOMIC_PLACEHOLDERS,
    CONDITIONS_WITH_VALUE,
    MAX_TIMEOUT_MS,
    REPO_PATTERN,
    AtomicId,
    BindingTarget,
    CapabilityId,
    Condition,
    ManifestPath,
    Outcome,
    Tag,
    Text,
    WorkflowId,
    placeholders,
)

__all__ = [
    "AtomicAssertions",
    "AtomicScenario",
    "Checkpoint",
    "Fixture",
    "OracleStep",
    "Scenario",
    "WorkflowAssertions",
    "WorkflowScenario",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class Fixture(_Model):
    """Which fixture repository the scenario runs against and what it takes from the manifest."""

    repo: str | None = Field(
        default=None,
        description="Fixture repository as owner/name (a manifest's repo.full_name wins).",
        json_schema_extra={"pattern": REPO_PATTERN},
    )
    bindings: dict[BindingTarget, ManifestPath] = Field(
        default_factory=dict,
        description="Target in input (input.x, may be nested) -> dotted path in the manifest.",
        json_schema_extra={"additionalProperties": False},
    )
    requires: list[Text] = Field(
        default_factory=list,
        description="Manifest resources (keys of manifest.resources) the scenario needs.",
    )

    @field_validator("repo")
    @classmethod
    def _repo_is_owner_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(REPO_PATTERN, value):
            raise ValueError(f"must be 'owner/name', got {show_value(value)}")
        return value


class AtomicAssertions(_Model):
    """How an atomic scenario's answer envelope is judged."""

    expected_outcome: Outcome | None = Field(
        default=None, description="success or expected_error (default: success)."
    )
    must_succeed: bool | None = Field(
        default=None, description="Legacy: true = success, false = expected_error."
    )
    expect_valid_output: bool = Field(
        default=True, description="The answer must be a valid envelope."
    )
    required_fields: list[str] = Field(default_factory=list, description="Envelope keys.")
    required_data_fields: list[str] = Field(default_factory=list, description="Keys of data.")
    required_meta_fields: list[str] = Field(
        default_factory=list,
        description="Keys of meta (route_used is only checked in the ghx mode).",
    )
    data_type: Literal["array", "object"] | None = Field(
        default=None, description="Required JSON type of data."
    )
    expected_route_used: str | None = Field(
        default=None, description="Required meta.route_used (ghx mode only), e.g. cli, graphql."
    )
    expected_error_code: str | None = Field(
        default=None,
        validate_default=True,
        description="Required error.code; mandatory when an error is expected.",
    )
    require_tool_calls: bool = Field(
        default=False, description="The agent must make at least one tool call."
    )
    min_tool_calls: int | None = Field(default=None, ge=0, description="Fewest tool calls.")
    max_tool_calls: int | None = Field(default=None, ge=0, description="Most tool calls.")
    require_attempt_trace: bool = Field(
        default=False, description="meta must carry an attempt trace."
    )

    @property
    def outcome(self) -> Outcome:
        """The expected outcome: ``expected_outcome``, else the legacy ``must_succeed``."""
        return _outcome(self.expected_outcome, self.must_succeed)

    @field_validator("must_succeed")
    @classmethod
    def _agrees_with_expected_outcome(cls, value: bool | None, info: ValidationInfo) -> bool | None:
        declared = info.data.get("expected_outcome")
        if value is not None and declared is not None and (declared == "success") != value:
            meaning = "success" if value else "expected_error"
            raise ValueError(
                f"{str(value).lower()} means {meaning!r} but expected_outcome is {declared!r}; "
                "remove the legacy must_succeed"
            )
        return value

    @field_validator("expected_error_code")
    @classmethod
    def _code_matches_outcome(cls, value: str | None, info: ValidationInfo) -> str | None:
        if "expected_outcome" not in info.data or "must_succeed" not in info.data:
            return value  # an earlier field is invalid and already reported
        outcome = _outcome(info.data["expected_outcome"], info.data["must_succeed"])
        if outcome == "expected_error" and not value:
            raise ValueError("required when the expected outcome is 'expected_error'")
        if outcome == "success" and value is not None:
            raise ValueError(
                f"given ({value!r}) but the expected outcome is 'success'; "
                "set expected_outcome: expected_error or remove expected_error_code"
            )
        return value

    @field_validator("max_tool_calls")
    @classmethod
    def _max_not_below_min(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is None:
            return value
        low = info.data.get("min_tool_calls")
        if low is not None and value < low:
            raise ValueError(f"must be >= min_tool_calls ({low}), got {value}")
        if info.data.get("require_tool_calls") and value < 1:
            raise ValueError(f"must be >= 1 when require_tool_calls is true, got {value}")
        return value


def _outcome(expected_outcome: Outcome | None, must_succeed: bool | None) -> Outcome:
    if expected_outcome is not None:
        return expected_outcome
    if must_succeed is not None:
        return "success" if must_succeed else "expected_error"
    return "success"


class AtomicScenario(_Model):
    """One capability call, judged from the agent's answer envelope."""

    type: Literal["atomic"] = "atomic"
    id: AtomicId
    name: Text
    task: CapabilityId
    input: dict[str, Any]
    prompt_template: str = Field(
        description="Placeholders: {{task}} {{scenario_id}} {{input_json}} {{fixture_repo}}."
    )
    timeout_ms: int = Field(gt=0, le=MAX_TIMEOUT_MS)
    allowed_retries: int = Field(ge=0)
    fixture: Fixture | None = None
    assertions: AtomicAssertions
    tags: list[Tag] = Field(default_factory=list)

    @property
    def kind(self) -> Literal["atomic"]:
        return "atomic"

    @field_validator("prompt_template")
    @classmethod
    def _known_placeholders(cls, value: str) -> str:
        for name in placeholders(value):
            if name not in ATOMIC_PLACEHOLDERS:
                allowed = ", ".join(f"{{{{{p}}}}}" for p in ATOMIC_PLACEHOLDERS)
                raise ValueError(f"unknown placeholder {{{{{name}}}}}; allowed: {allowed}")
        return value

    @field_validator("fixture")
    @classmethod
    def _targets_fit_input(cls, value: Fixture | None, info: ValidationInfo) -> Fixture | None:
        _check_binding_targets(value, info.data.get("input"))
        return value


class Checkpoint(_Model):
    """A check run against the backend after a workflow agent is done."""

    name: Text
    verification_task: CapabilityId
    verification_input: dict[str, Any] = Field(
        default_factory=dict, description="Overlaid on the scenario's bound input."
    )
    verification_field: str | None = Field(
        default=None, description="Field of the result data the condition tests."
    )
    condition: Condition
    expected_value: Any = Field(
        default=None,
        validate_default=True,
        description=(
            "count_eq/count_gte: an integer; field_equals: an object of field: value; "
            "contains/not_contains: a text."
        ),
    )

    @field_validator("expected_value")
    @classmethod
    def _fits_condition(cls, value: Any, info: ValidationInfo) -> Any:
        condition = info.data.get("condition")
        if condition is None:
            return value
        if condition in ("count_eq", "count_gte"):
            if value is None:
                raise ValueError(f"required for condition {condition!r} (a count, e.g. 1)")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"condition {condition!r} needs a non-negative integer, got {show_value(value)}"
                )
        elif condition == "field_equals":
            if value is None:
                raise ValueError("required for condition 'field_equals' (an object field: value)")
            if not isinstance(value, dict) or not value:
                raise ValueError(
                    f"condition 'field_equals' needs a non-empty object of field: value, "
                    f"got {show_value(value)}"
                )
        elif condition in ("contains", "not_contains"):
            if not isinstance(value, str) or not value:
                raise ValueError(
                    f"condition {condition!r} needs a non-empty text, got {show_value(value)}"
                )
        elif value is not None:
            raise ValueError(
                f"not used by condition {condition!r}; remove it "
                f"(or use one of {', '.join(CONDITIONS_WITH_VALUE)})"
            )
        return value


class WorkflowAssertions(_Model):
    """How a workflow scenario is judged: every checkpoint must hold."""

    expected_outcome: Outcome = "success"
    checkpoints: list[Checkpoint] = Field(json_schema_extra={"minItems": 1})

    @field_validator("checkpoints")
    @classmethod
    def _at_least_one_distinct(cls, value: list[Checkpoint]) -> list[Checkpoint]:
        if not value:
            raise ValueError("at least one checkpoint is required")
        seen: set[str] = set()
        for checkpoint in value:
            if checkpoint.name in seen:
                raise ValueError(f"checkpoint name {checkpoint.name!r} is used twice")
            seen.add(checkpoint.name)
        return value


class OracleStep(_Model):
    """One step of a workflow's reference plan (what the oracle agent executes)."""

    task: CapabilityId
    input: dict[str, Any] = Field(
        default_factory=dict, description="May contain {{key}} placeholders of the bound input."
    )


class WorkflowScenario(_Model):
    """A natural-language task judged by checkpoints against the backend."""

    type: Literal["workflow"]
    id: WorkflowId
    name: Text
    input: dict[str, Any] = Field(default_factory=dict)
    fixture: Fixture | None = None
    prompt: Text = Field(description="Placeholders {{key}} name keys of the bound input.")
    expected_capabilities: list[CapabilityId] = Field(default_factory=list)
    timeout_ms: int = Field(gt=0, le=MAX_TIMEOUT_MS)
    allowed_retries: int = Field(ge=0)
    assertions: WorkflowAssertions
    tags: list[Tag] = Field(default_factory=list)
    oracle: list[OracleStep] | None = None

    @property
    def kind(self) -> Literal["workflow"]:
        return "workflow"

    @field_validator("fixture")
    @classmethod
    def _targets_fit_input(cls, value: Fixture | None, info: ValidationInfo) -> Fixture | None:
        _check_binding_targets(value, info.data.get("input"))
        return value

    @field_validator("prompt")
    @classmethod
    def _placeholders_are_input_keys(cls, value: str, info: ValidationInfo) -> str:
        if "input" not in info.data or "fixture" not in info.data:
            return value  # reported already
        keys = set(info.data["input"])
        fixture: Fixture | None = info.data["fixture"]
        if fixture is not None:
            keys.update(target.split(".")[1] for target in fixture.bindings)
        for name in placeholders(value):
            if name not in keys:
                known = ", ".join(sorted(keys)) or "none"
                raise ValueError(
                    f"unknown placeholder {{{{{name}}}}}: placeholders must be keys of input "
                    f"or binding targets (input.<key>); known keys: {known}"
                )
        return value


def _check_binding_targets(fixture: Fixture | None, input_data: Any) -> None:
    """A nested target like ``input.a.b`` must not pass through a non-object value of input."""
    if fixture is None or not isinstance(input_data, dict):
        return
    for target in fixture.bindings:
        node: Any = input_data
        walked = "input"
        for part in target.split(".")[1:-1]:
            walked += f".{part}"
            if not isinstance(node, dict) or part not in node:
                break
            node = node[part]
            if not isinstance(node, dict):
                raise ValueError(
                    f"binding target {target!r} goes through {walked}, which is not an object "
                    f"in input (it is {show_value(node)})"
                )


Scenario: TypeAlias = AtomicScenario | WorkflowScenario
