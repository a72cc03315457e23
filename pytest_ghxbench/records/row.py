"""The metric row: one item's measured outcome (SPEC section 6)."""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Mapping
from typing import Annotated, Any, NamedTuple, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt
from pydantic.types import AllowInfNan
from pydantic_core import CoreSchema, SchemaValidator
from pydantic_core import core_schema as cs

from pytest_ghxbench.api import Tokens, Usage

RUNNER_ERROR = "runner_error"
_TIMEOUT_STALL = re.compile(r"\b(timeout|timed out|stall|stalled)\b", re.IGNORECASE)

Measure = Annotated[float, annotated_types.Ge(0), AllowInfNan(False)]
"""A duration in ms or an amount of money: finite and >= 0. A negative or non-finite one would
count as a win in the gate (a "105% latency reduction"), and JSON has no NaN or Infinity."""


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="allow", protected_namespaces=())

    provider_id: str = "unknown"
    model_id: str = "unknown"
    mode: str | None = None

    @property
    def signature(self) -> str:
        return f"{self.provider_id}/{self.model_id}"


class GitInfo(BaseModel):
    model_config = ConfigDict(extra="allow")

    repo: str | None = None
    commit: str | None = None


class RowError(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    message: str


class SandboxGap(BaseModel):
    """One way the sandbox's answers to an item diverged from GitHub's (``kind``:
    ``unserved_route``, ``unmodelled_field``, ``unevaluated_parameter``, ``sandbox_fault`` or
    ``unsupported``; ``detail`` says which route, field, parameter or fake) and how many of the
    item's requests met it."""

    model_config = ConfigDict(extra="allow")

    kind: str
    detail: str
    count: Annotated[int, annotated_types.Ge(1)]


class Row(BaseModel):
    """One item's outcome. Extra fields are kept (``item_id``, ``adapter``, ``checkpoints``...)."""

    model_config = ConfigDict(extra="allow", protected_namespaces=())

    timestamp: str
    run_id: str
    mode: str
    scenario_id: str
    scenario_set: str | None = None
    iteration: int = 0
    session_id: str | None = None
    success: bool
    output_valid: bool
    latency_ms_wall: Measure = 0.0
    startup_ms: Measure | None = None
    sdk_latency_ms: Measure | None = None
    timing_breakdown: dict[str, Any] | None = None
    tokens: Tokens = Field(default_factory=Tokens)
    cost: Measure = 0.0
    tool_calls: NonNegativeInt = 0
    api_calls: NonNegativeInt = 0
    internal_retry_count: NonNegativeInt = 0
    external_retry_count: NonNegativeInt = 0
    model: ModelInfo = Field(default_factory=ModelInfo)
    git: GitInfo = Field(default_factory=GitInfo)
    error: RowError | None = None
    sandbox_gaps: list[SandboxGap] = Field(default_factory=list)
    """Where the sandbox diverged from GitHub for this item (always empty on other backends)."""

    @property
    def is_runner_error(self) -> bool:
        return self.error is not None and self.error.type == RUNNER_ERROR

    @property
    def is_timeout_stall(self) -> bool:
        return self.is_runner_error and bool(
            _TIMEOUT_STALL.search(self.error.message if self.error else "")
        )

    @property
    def is_stable(self) -> bool:
        """Counts toward efficiency: succeeded, valid output, no runner error."""
        return self.success and self.output_valid and not self.is_runner_error

    @property
    def usage(self) -> Usage:
        """The row's tokens and cost as one :class:`~pytest_ghxbench.Usage`."""
        return Usage(tokens=self.tokens, cost_usd=self.cost)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class RowRecord(NamedTuple):
    """What the summary and the gate need of one row, as plain values (see :meth:`of_row`)."""

    mode: str
    scenario_id: str
    provider_id: str
    model_id: str
    success: bool
    output_valid: bool
    external_retry_count: int
    error_type: str | None
    error_message: str | None
    tokens_total: int
    tokens_cache_read: int
    latency_ms_wall: float
    tool_calls: int
    cost: float
    sandbox_gaps: tuple[tuple[str, str, int], ...] = ()
    """``(kind, detail, count)`` of each of the row's sandbox gaps."""

    @classmethod
    def of_row(cls, row: Row) -> RowRecord:
        """The record of a validated :class:`Row`."""
        error = row.error
        return cls(
            row.mode,
            row.scenario_id,
            row.model.provider_id,
            row.model.model_id,
            row.success,
            row.output_valid,
            row.external_retry_count,
            None if error is None else error.type,
            None if error is None else error.message,
            row.tokens.total,
            row.tokens.cache_read,
            row.latency_ms_wall,
            row.tool_calls,
            row.cost,
            tuple((gap.kind, gap.detail, gap.count) for gap in row.sandbox_gaps),
        )

    @classmethod
    def of_plain(cls, row: Mapping[str, Any]) -> RowRecord:
        """The record of a row as :func:`plain_row_validator` returns it."""
        tokens, model, error = row["tokens"], row["model"], row["error"]
        return cls(
            row["mode"],
            row["scenario_id"],
            model["provider_id"],
            model["model_id"],
            row["success"],
            row["output_valid"],
            row["external_retry_count"],
            None if error is None else error["type"],
            None if error is None else error["message"],
            tokens["total"],
            tokens["cache_read"],
            row["latency_ms_wall"],
            row["tool_calls"],
            row["cost"],
            tuple((gap["kind"], gap["detail"], gap["count"]) for gap in row["sandbox_gaps"]),
        )


def is_timeout_stall_message(message: str) -> bool:
    """Whether a runner error's message says it timed out or stalled (SPEC section 7)."""
    return bool(_TIMEOUT_STALL.search(message))


@functools.cache
def plain_row_validator() -> SchemaValidator:
    """A validator of one row, as JSON text, into plain ``dict``s: the fast way to read rows.

    It is generated from :class:`Row` and its nested models, so the two cannot drift apart, but
    it is strict: it accepts only exact JSON types (a JSON integer where ``Row`` has an ``int``,
    ``true``/``false`` for a ``bool``, a string for a ``str``, a number for a ``float``) and
    keeps ``Row``'s bounds (``>= 0``, no NaN or infinity for a :data:`Measure`), so whatever
    it accepts ``Row`` accepts too, with the same values. Absent fields get ``Row``'s
    defaults, nested models become dicts of all their fields, extra fields are kept as they
    are. A row it rejects may still be a valid ``Row`` (``Row`` converts ``"3"`` to ``3``):
    give those to ``Row.model_validate`` for the conversions and the precise error messages.
    """
    return SchemaValidator(_plain_model_schema(Row))


def _plain_model_schema(model: type[BaseModel]) -> CoreSchema:
    fields: dict[str, cs.TypedDictField] = {}
    for name, info in model.model_fields.items():
        schema = _plain_schema(info.annotation, tuple(info.metadata))
        # Tokens derives an absent total from its parts: only a line that has one is plain.
        if info.is_required() or (model is Tokens and name == "total"):
            fields[name] = cs.typed_dict_field(schema, required=True)
            continue
        default = info.get_default(call_default_factory=True)
        if isinstance(default, BaseModel):
            default = default.model_dump()
        fields[name] = cs.typed_dict_field(
            cs.with_default_schema(schema, default=default), required=False
        )
    return cs.typed_dict_schema(fields, extra_behavior="allow", strict=True)


def _lower_bound(metadata: tuple[Any, ...]) -> int | None:
    bounds: list[int] = []
    for constraint in metadata:
        if isinstance(constraint, annotated_types.Ge):
            if not isinstance(constraint.ge, int):
                raise TypeError(f"no plain JSON schema for a row field bounded by {constraint!r}")
            bounds.append(constraint.ge)
    return max(bounds) if bounds else None


def _plain_schema(annotation: Any, metadata: tuple[Any, ...] = ()) -> CoreSchema:
    origin = get_origin(annotation)
    known = (annotated_types.Ge, AllowInfNan)
    if origin is Annotated:
        base, *constraints = get_args(annotation)
        return _plain_schema(base, (*metadata, *constraints))
    if any(not isinstance(constraint, known) for constraint in metadata):
        raise TypeError(f"no plain JSON schema for a row field constrained by {metadata!r}")
    if origin in (Union, types.UnionType):
        members = [member for member in get_args(annotation) if member is not type(None)]
        if len(members) == 1:
            return cs.nullable_schema(_plain_schema(members[0], metadata))
    elif annotation is bool:
        return cs.bool_schema(strict=True)
    elif annotation is int:
        return cs.int_schema(strict=True, ge=_lower_bound(metadata))
    elif annotation is float:
        finite = any(isinstance(c, AllowInfNan) and not c.allow_inf_nan for c in metadata)
        return cs.float_schema(strict=True, ge=_lower_bound(metadata), allow_inf_nan=not finite)
    elif annotation is str:
        return cs.str_schema(strict=True)
    elif origin is list:
        (item,) = get_args(annotation)
        return cs.list_schema(_plain_schema(item), strict=True)
    elif origin is dict and get_args(annotation) == (str, Any):
        return cs.dict_schema(cs.str_schema(strict=True), cs.any_schema(), strict=True)
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _plain_model_schema(annotation)
    # A new kind of field needs a case above; failing loudly keeps the fast path exact.
    raise TypeError(f"no plain JSON schema for a row field of type {annotation!r}")
