"""Building metric rows from an item's outcome (and from faults that left no outcome)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pytest_ghxbench.api import RunResult, Tokens
from pytest_ghxbench.metrics.row import RUNNER_ERROR
from pytest_ghxbench.run.redact import Redactor
from pytest_ghxbench.runlog.models import SCHEMA_VERSION, ItemRecord

ASSERTION_FAILED = "assertion_failed"
_ITEM_NAME = re.compile(r"^(?P<scenario>[^\[\]]+)\[(?P<mode>[^\[\]]+)-r(?P<rep>\d+)\]$")
_MAX_ERROR_MESSAGE = 2000


@dataclass(frozen=True)
class ItemIdentity:
    """What a row needs to know about the item it belongs to."""

    item_id: str
    run_id: str
    scenario_id: str
    scenario_set: str | None
    scenario_type: str
    mode: str
    iteration: int
    adapter: str
    backend: str | None
    git: Mapping[str, str | None]
    default_model: str | None


def item_name(scenario_id: str, mode: str, rep: int) -> str:
    return f"{scenario_id}[{mode}-r{rep}]"


def parse_item_name(nodeid: str) -> tuple[str, str, int] | None:
    """(scenario_id, mode, rep) from a node id like ``scenarios/x.yaml::pr-view-001[ghx-r2]``."""
    match = _ITEM_NAME.match(nodeid.rsplit("::", 1)[-1])
    if match is None:
        return None
    return match["scenario"], match["mode"], int(match["rep"])


def model_info(signature: str | None, mode: str, adapter: str) -> dict[str, Any]:
    if not signature:
        return {"provider_id": adapter, "model_id": "unknown", "mode": mode}
    provider, _, model = signature.partition("/")
    if not model:
        provider, model = adapter, provider
    return {"provider_id": provider, "model_id": model, "mode": mode}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _base(identity: ItemIdentity, external_retry_count: int) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "timestamp": _now(),
        "run_id": identity.run_id,
        "mode": identity.mode,
        "scenario_id": identity.scenario_id,
        "scenario_set": identity.scenario_set,
        "iteration": identity.iteration,
        "external_retry_count": external_retry_count,
        "git": {"repo": identity.git.get("repo"), "commit": identity.git.get("commit")},
        "item_id": identity.item_id,
        "adapter": identity.adapter,
        "backend": identity.backend,
        "scenario_type": identity.scenario_type,
    }


def _clip(message: str) -> str:
    return message if len(message) <= _MAX_ERROR_MESSAGE else message[:_MAX_ERROR_MESSAGE] + "…"


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _timing(result: RunResult | None, wall_ms: float) -> dict[str, float | None]:
    """The row's timing fields, one definition for every adapter (see :class:`RunResult`):
    latency runs from the runtime being ready to its final answer; startup before that."""
    startup = _number(result.startup_ms) if result is not None else None
    latency = _number(result.latency_ms) if result is not None else None
    if latency is None:
        latency = max(0.0, wall_ms - (startup or 0.0))
    return {
        "latency_ms_wall": latency,
        "startup_ms": startup if startup is not None else 0.0,
        "sdk_latency_ms": _number(result.sdk_latency_ms) if result is not None else None,
    }


def outcome_data(
    identity: ItemIdentity,
    *,
    result: RunResult,
    wall_ms: float,
    success: bool,
    output_valid: bool,
    failures: Sequence[str],
    checkpoints: Sequence[Mapping[str, Any]],
    external_retry_count: int,
    cost_usd: float,
) -> dict[str, Any]:
    """The row of an attempt that ran, as JSON-ready data (see :func:`finish_row`)."""
    error = {"type": ASSERTION_FAILED, "message": _clip("; ".join(failures))} if failures else None
    return dict(
        **_base(identity, external_retry_count),
        session_id=result.session_id,
        success=success,
        output_valid=output_valid,
        **_timing(result, wall_ms),
        timing_breakdown=dict(result.timing_breakdown) if result.timing_breakdown else None,
        tokens=result.tokens.model_dump(),
        cost=cost_usd,
        tool_calls=len(result.tool_calls),
        api_calls=result.api_calls or 0,
        internal_retry_count=result.internal_retry_count,
        model=model_info(result.model or identity.default_model, identity.mode, identity.adapter),
        error=error,
        failures=list(failures),
        checkpoints=[dict(c) for c in checkpoints],
    )


def runner_error_data(
    identity: ItemIdentity,
    message: str,
    *,
    wall_ms: float = 0.0,
    external_retry_count: int = 0,
    result: RunResult | None = None,
) -> dict[str, Any]:
    """The row of an item whose agent could not run to completion (exception, crash, timeout).
    Tokens the agent reported before failing still count."""
    tokens = result.tokens if result is not None and isinstance(result.tokens, Tokens) else None
    return dict(
        **_base(identity, external_retry_count),
        session_id=result.session_id if result is not None else None,
        success=False,
        output_valid=False,
        **_timing(result, wall_ms),
        tokens=(tokens or Tokens()).model_dump(),
        # Requests the runtime made before it failed were made (and maybe paid for).
        api_calls=_count(result.api_calls) if result is not None else 0,
        internal_retry_count=_count(result.internal_retry_count) if result is not None else 0,
        model=model_info(identity.default_model, identity.mode, identity.adapter),
        error={"type": RUNNER_ERROR, "message": _clip(message)},
        failures=[_clip(message)],
        checkpoints=[],
    )


def finish_row(data: Mapping[str, Any], redactor: Redactor) -> tuple[ItemRecord, str]:
    """Redact the row data and validate it into an :class:`ItemRecord`, in one pass over its
    JSON. Returns the record and its JSON text (what travels to the controller and into the
    file)."""
    text = redactor.json(data)
    return ItemRecord.model_validate_json(text), text
