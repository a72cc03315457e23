"""A summary of many noisy rows: every gate figure present and finite. Its speed on 100,000
rows is measured by bench/report_speed.py (docs/performance.md), not asserted here."""

from __future__ import annotations

import json

import numpy as np

from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES
from pytest_ghxbench.metrics.summary import build_summary
from pytest_ghxbench.records.row import ModelInfo, Row, Tokens


def _many_rows(scenarios: int = 100, per_group: int = 34) -> list[Row]:
    """100 scenarios x 3 modes x 34 rows = 10,200 rows, built without validation."""
    rng = np.random.default_rng(0)
    model = ModelInfo(provider_id="openai", model_id="gpt-test")
    token_objects = [Tokens(total=int(t), cache_read=int(t) // 3) for t in range(500, 5500, 50)]
    rows = []
    for scenario in range(scenarios):
        for mode, scale in (("agent_direct", 1.0), ("mcp", 0.95), ("ghx", 0.7)):
            latency = rng.lognormal(np.log(20_000 * scale), 0.3, per_group)
            success = rng.random(per_group) < 0.97
            choice = rng.integers(0, len(token_objects), per_group)
            for index in range(per_group):
                rows.append(
                    Row.model_construct(
                        timestamp="2026-03-03T10:00:00Z",
                        run_id="perf",
                        mode=mode,
                        scenario_id=f"s-{scenario:03d}",
                        iteration=index,
                        success=bool(success[index]),
                        output_valid=True,
                        latency_ms_wall=float(latency[index]),
                        tokens=token_objects[int(choice[index] * scale)],
                        cost=0.001 * scale,
                        tool_calls=int(6 * scale),
                        external_retry_count=0,
                        model=model,
                        error=None,
                    )
                )
    return rows


def test_a_summary_of_many_noisy_rows_has_every_gate_figure() -> None:
    rows = _many_rows()
    assert len(rows) > 10_000
    summary = build_summary(
        rows, profile=BUILTIN_PROFILES["verify_pr"], baseline="agent_direct", candidate="ghx"
    )
    efficiency = summary.gate.efficiency
    assert efficiency["eligible_scenario_count"] == 100
    assert efficiency["tokens_active_reduction_ci95"] is not None
    assert efficiency["latency_reduction_ci95"] is not None
    json.dumps(summary.to_json_dict(), allow_nan=False)
