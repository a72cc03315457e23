"""Generated row sets: the summary is always plain JSON and its numbers stay in range."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES
from pytest_ghxbench.metrics.summary import build_summary
from pytest_ghxbench.records.row import Row

from .factory import make_row

RATE_METRICS = (
    "success_rate",
    "output_validity_rate",
    "runner_failure_rate",
    "timeout_stall_rate",
    "retry_rate",
)


@st.composite
def rows(draw: Any) -> Row:
    failed = draw(st.booleans())
    tokens = draw(st.integers(0, 100_000))
    return make_row(
        draw(st.sampled_from(["agent_direct", "ghx", "mcp"])),
        draw(st.sampled_from(["s-001", "s-002", "s-003"])),
        success=draw(st.booleans()),
        output_valid=draw(st.booleans()),
        latency=draw(st.floats(0, 1e7)),
        tokens=tokens,
        cache_read=draw(st.integers(0, tokens)),
        tool_calls=draw(st.integers(0, 50)),
        cost=draw(st.sampled_from([0.0, 0.001, 0.5, 2.0])),
        retries=draw(st.integers(0, 2)),
        runner_error=draw(st.sampled_from(["timeout", "crashed"])) if failed else None,
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(rows(), max_size=40), st.integers(1, 4))
def test_summary_is_json_with_rates_in_range(generated: list[Row], minimum: int) -> None:
    profile = BUILTIN_PROFILES["verify_pr"].with_values(
        {"min_samples_per_scenario_per_mode": minimum}
    )
    summary = build_summary(
        generated, profile=profile, baseline="agent_direct", candidate="ghx", resamples=50
    )
    json.dumps(summary.to_json_dict(), allow_nan=False)  # raises on NaN/inf or non-JSON types
    for metrics in summary.modes.values():
        for name in RATE_METRICS:
            assert 0 <= metrics[name] <= 100
        slack = 1e-9 * max(1.0, metrics["p95_latency_ms"])  # one rounding step of headroom
        assert metrics["median_latency_ms"] <= metrics["p90_latency_ms"] + slack
        assert metrics["p90_latency_ms"] <= metrics["p95_latency_ms"] + slack
        assert metrics["iqr_latency_ms"] >= 0
    gate = summary.gate
    if gate.evaluated:
        coverage = gate.efficiency["coverage_pct"]
        assert 0 <= coverage <= 100
        assert gate.passed == all(check.passed for check in gate.checks)
        assert len(gate.checks) == 10
        interval = gate.efficiency["tokens_active_reduction_ci95"]
        if interval is not None:
            assert interval[0] <= interval[1]
