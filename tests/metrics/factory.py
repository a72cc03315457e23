"""Row builders for the metrics tests: every argument a test cares about, sensible defaults."""

from __future__ import annotations

from collections.abc import Iterable

from pytest_ghxbench.records.row import ModelInfo, Row, RowError, Tokens


def make_row(
    mode: str = "ghx",
    scenario: str = "s-001",
    *,
    success: bool = True,
    output_valid: bool = True,
    latency: float = 1000.0,
    tokens: int = 1000,
    cache_read: int = 0,
    tool_calls: int = 1,
    cost: float = 0.01,
    retries: int = 0,
    runner_error: str | None = None,
    model: str = "openai/gpt-test",
    iteration: int = 0,
) -> Row:
    """One validated row. ``runner_error`` is the message of a runner error (none by default);
    a runner error row is unsuccessful and invalid unless the caller says otherwise."""
    provider, model_id = model.split("/", 1)
    return Row(
        timestamp="2026-03-03T10:00:00Z",
        run_id="run-test",
        mode=mode,
        scenario_id=scenario,
        iteration=iteration,
        success=success,
        output_valid=output_valid,
        latency_ms_wall=latency,
        tokens=Tokens(input=tokens - cache_read, cache_read=cache_read, total=tokens),
        cost=cost,
        tool_calls=tool_calls,
        external_retry_count=retries,
        model=ModelInfo(provider_id=provider, model_id=model_id),
        error=None if runner_error is None else RowError(type="runner_error", message=runner_error),
    )


def repeat(count: int, mode: str, scenario: str, **fields: object) -> list[Row]:
    """``count`` identical rows (iterations 0..count-1) of one scenario in one mode."""
    return [
        make_row(mode, scenario, iteration=index, **fields)  # type: ignore[arg-type]
        for index in range(count)
    ]


def flatten(groups: Iterable[list[Row]]) -> list[Row]:
    return [row for group in groups for row in group]
