"""Per-mode metrics and the summary.json document."""

from __future__ import annotations

import json
import re

import pytest

from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES
from pytest_ghxbench.metrics.summary import MODE_METRICS, build_summary, mode_metrics
from pytest_ghxbench.records.row import Row
from tests.summaries import bare_summary

from .factory import make_row, repeat

PR = BUILTIN_PROFILES["verify_pr"]
SPEC_METRICS = (
    "runs", "success_rate", "output_validity_rate", "runner_failure_rate", "timeout_stall_rate",
    "retry_rate", "median_latency_ms", "median_tokens_total", "median_tokens_active",
    "median_tool_calls", "median_cost_usd", "p90_latency_ms", "p95_latency_ms", "iqr_latency_ms",
    "cv_latency", "p90_tokens_active", "p95_tokens_active", "model_signature",
)  # fmt: skip


def _ghx_rows() -> list[Row]:
    """Ten ghx rows with latencies 100..1000, one runner timeout, one crash, one retry."""
    rows = [
        make_row(
            "ghx",
            f"s-{index % 2:03d}",
            latency=100.0 * index,
            tokens=1000 + 100 * index,
            cache_read=400,
            tool_calls=index,
            cost=0.01 * index,
            iteration=index,
        )
        for index in range(1, 11)
    ]
    rows[0] = make_row("ghx", "s-001", success=False, output_valid=False, latency=100.0,
                       tokens=1100, cache_read=400, tool_calls=1, cost=0.01,
                       runner_error="agent stalled: no output for 300 s")  # fmt: skip
    rows[1] = make_row("ghx", "s-000", success=False, output_valid=False, latency=200.0,
                       tokens=1200, cache_read=400, tool_calls=2, cost=0.02,
                       runner_error="process exited with code 1")  # fmt: skip
    rows[2].external_retry_count = 2
    rows[3].output_valid = False
    return rows


def test_metric_names_start_with_the_spec_names() -> None:
    assert MODE_METRICS[: len(SPEC_METRICS)] == SPEC_METRICS


def test_mode_metrics_by_hand() -> None:
    metrics = mode_metrics(_ghx_rows())
    assert list(metrics) == list(MODE_METRICS)
    assert metrics["runs"] == 10
    assert metrics["success_rate"] == 80.0
    assert metrics["output_validity_rate"] == 70.0
    assert metrics["runner_failure_rate"] == 20.0
    assert metrics["timeout_stall_rate"] == 10.0  # "stalled" matches, "exited" does not
    assert metrics["retry_rate"] == 10.0
    assert metrics["median_latency_ms"] == 550.0
    assert metrics["p90_latency_ms"] == pytest.approx(910.0)  # position 8.1 -> 900 + 0.1 * 100
    assert metrics["p95_latency_ms"] == pytest.approx(955.0)
    assert metrics["iqr_latency_ms"] == pytest.approx(450.0)  # 775 - 325
    # latencies 100..1000: mean 550, population stdev 100 * sqrt(8.25)
    assert metrics["cv_latency"] == pytest.approx(100 * 287.22813232690146 / 550)
    assert metrics["median_tokens_total"] == 1550.0
    assert metrics["median_tokens_active"] == 1150.0  # total - cache_read
    assert metrics["p90_tokens_active"] == pytest.approx(1510.0)
    assert metrics["p95_tokens_active"] == pytest.approx(1555.0)
    assert metrics["median_tool_calls"] == 5.5
    assert metrics["median_cost_usd"] == pytest.approx(0.055)
    assert metrics["model_signature"] == "openai/gpt-test"
    assert metrics["stable_runs"] == 7
    assert metrics["scenario_count"] == 2
    assert metrics["total_cost_usd"] == pytest.approx(0.55)


def test_mode_metrics_of_no_rows() -> None:
    metrics = mode_metrics([])
    assert metrics["runs"] == 0 and metrics["stable_runs"] == 0
    assert metrics["success_rate"] is None and metrics["median_latency_ms"] is None
    assert metrics["model_signature"] is None


def test_mixed_models_are_all_named_in_the_signature() -> None:
    rows = [make_row(model="openai/gpt-5"), make_row(model="anthropic/claude"), make_row()]
    assert mode_metrics(rows)["model_signature"] == (
        "anthropic/claude, openai/gpt-5, openai/gpt-test"
    )


def _two_mode_rows() -> list[Row]:
    rows: list[Row] = []
    for scenario in ("s-001", "s-002", "s-003"):
        rows += repeat(3, "agent_direct", scenario, tokens=1000, latency=2000.0, tool_calls=4,
                       cost=0.02)  # fmt: skip
        rows += repeat(3, "ghx", scenario, tokens=600, latency=1000.0, tool_calls=2, cost=0.01)
    rows += repeat(2, "mcp", "s-001", tokens=800)
    return rows


def test_summary_document_shape() -> None:
    summary = build_summary(
        _two_mode_rows(),
        profile=PR,
        baseline="agent_direct",
        candidate="ghx",
        run_info={"commit": "abc123", "model": "openai/gpt-test", "adapter": "oracle"},
        resamples=200,
        generated_at="2026-03-03T21:12:35Z",
    )
    document = summary.to_json_dict()
    keys = {"schema_version", "generated_at", "run", "modes", "scenarios", "delta", "gate"}
    assert set(document) == keys
    assert document["schema_version"] == 1
    assert document["generated_at"] == "2026-03-03T21:12:35Z"
    assert document["run"] == {
        "commit": "abc123", "model": "openai/gpt-test", "adapter": "oracle",
        "profile": "verify_pr", "baseline": "agent_direct", "candidate": "ghx", "row_count": 20,
    }  # fmt: skip
    assert list(document["modes"]) == ["agent_direct", "mcp", "ghx"]
    assert document["modes"]["mcp"]["runs"] == 2
    assert set(document["scenarios"]) == {"s-001", "s-002", "s-003"}
    assert list(document["scenarios"]["s-001"]) == ["agent_direct", "mcp", "ghx"]
    assert list(document["scenarios"]["s-002"]) == ["agent_direct", "ghx"]
    assert document["scenarios"]["s-002"]["ghx"]["median_tokens_active"] == 600.0
    assert document["gate"]["evaluated"] and document["gate"]["passed"]
    json.dumps(document, allow_nan=False)


def test_delta_is_candidate_minus_baseline() -> None:
    summary = build_summary(
        _two_mode_rows(), profile=PR, baseline="agent_direct", candidate="ghx", resamples=100
    )
    delta = summary.delta
    assert delta["baseline"] == "agent_direct" and delta["candidate"] == "ghx"
    assert delta["median_tokens_active"] == -400.0
    assert delta["median_latency_ms"] == -1000.0
    assert delta["median_tool_calls"] == -2.0
    assert delta["success_rate"] == 0.0
    assert delta["runs"] == 0
    assert delta["cv_latency"] == 0.0
    assert "model_signature" not in delta


def test_delta_is_empty_and_gate_not_evaluated_when_a_mode_is_absent() -> None:
    rows = [row for row in _two_mode_rows() if row.mode != "ghx"]
    summary = build_summary(rows, profile=PR, baseline="agent_direct", candidate="ghx")
    assert summary.delta == {}
    assert summary.gate.evaluated is False
    assert "candidate mode 'ghx'" in summary.gate.reason


def test_generated_at_defaults_to_now_in_utc() -> None:
    summary = build_summary([], profile=PR, baseline="agent_direct", candidate="ghx")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", summary.generated_at)
    assert summary.modes == {} and summary.scenarios == {}


def test_a_summary_of_no_rows_is_the_bare_summary_the_render_tests_use() -> None:
    summary = build_summary([], profile=PR, baseline="agent_direct", candidate="ghx")
    bare = bare_summary()
    assert (summary.modes, summary.scenarios, summary.gate) == (
        bare.modes,
        bare.scenarios,
        bare.gate,
    )


def test_non_finite_values_become_null() -> None:
    # rows refuse NaN since they are validated; model_copy skips validation, as a bug might
    nan = make_row("ghx").model_copy(update={"latency_ms_wall": float("nan")})
    rows = [nan, make_row("ghx", latency=1.0)]
    summary = build_summary(rows, profile=PR, baseline="agent_direct", candidate="ghx",
                            run_info={"budget": float("inf"), "tags": ("a", "b")})  # fmt: skip
    text = json.dumps(summary.to_json_dict(), allow_nan=False)
    assert summary.run["budget"] is None and summary.run["tags"] == ["a", "b"]
    assert "NaN" not in text


def test_pass_hat_k_per_scenario_and_mode() -> None:
    rows = [
        *[make_row("ghx", "a", success=ok) for ok in (True, True, True, False)],
        *[make_row("ghx", "b") for _ in range(4)],
        *[make_row("agent_direct", "a", success=ok) for ok in (True, False)],
        *[make_row("agent_direct", "b", success=ok) for ok in (True, True, True, False)],
    ]
    summary = build_summary(
        rows, profile=BUILTIN_PROFILES["verify_pr"], baseline="agent_direct", candidate="ghx"
    )
    scenarios = summary.scenarios
    # One scenario: did every one of its repetitions succeed?
    assert (scenarios["a"]["ghx"]["pass_hat_k"], scenarios["a"]["ghx"]["pass_k"]) == (0.0, 4)
    assert (scenarios["b"]["ghx"]["pass_hat_k"], scenarios["b"]["ghx"]["pass_k"]) == (100.0, 4)
    assert summary.modes["ghx"]["pass_hat_k"] == 50.0
    # Unequal repetitions: k is the fewest (2); C(1,2)/C(2,2) = 0 and C(3,2)/C(4,2) = 1/2.
    assert summary.modes["agent_direct"]["pass_k"] == 2
    assert summary.modes["agent_direct"]["pass_hat_k"] == pytest.approx(25.0)
    assert summary.modes["agent_direct"]["success_rate"] == pytest.approx(200 / 3)
