from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.records.models import RunSummary
from tests.paths import EVAL_DIR

_ROW: dict[str, Any] = {
    "timestamp": "2026-03-03T10:00:00Z",
    "run_id": "run_test",
    "mode": "ghx",
    "scenario_id": "pr-view-001",
    "scenario_set": "pr",
    "iteration": 1,
    "session_id": "ses_1",
    "success": True,
    "output_valid": True,
    "latency_ms_wall": 1200.0,
    "sdk_latency_ms": None,
    "tokens": {
        "input": 1000,
        "output": 50,
        "reasoning": 10,
        "cache_read": 400,
        "cache_write": 0,
        "total": 1460,
    },
    "cost": 0.002,
    "tool_calls": 2,
    "api_calls": 3,
    "internal_retry_count": 0,
    "external_retry_count": 0,
    "model": {"provider_id": "openai", "model_id": "gpt-test", "mode": None},
    "git": {"repo": None, "commit": "abc123"},
    "error": None,
}


@pytest.fixture
def make_row() -> Callable[..., dict[str, Any]]:
    """A valid row as a plain dict; keyword arguments replace top-level fields."""

    def build(**overrides: Any) -> dict[str, Any]:
        row = copy.deepcopy(_ROW)
        row.update(overrides)
        return row

    return build


@pytest.fixture
def eval_dir() -> Path:
    if not (EVAL_DIR / "results.csv").exists():
        pytest.skip("published evaluation data not available")
    return EVAL_DIR


def _check(name: str, passed: bool, value: float | None, threshold: float, op: str = ">=") -> dict:
    return {"name": name, "passed": passed, "value": value, "threshold": threshold, "operator": op}


_SUMMARY: dict[str, Any] = {
    "generated_at": "2026-03-04T12:00:00Z",
    "run": {
        "commit": "abc123",
        "model": "openai/gpt-test",
        "adapter": "oracle",
        "backend": "sandbox",
        "profile": "verify_pr",
    },
    "modes": {
        "agent_direct": {
            "runs": 10,
            "success_rate": 90.0,
            "output_validity_rate": 90.0,
            "runner_failure_rate": 10.0,
            "timeout_stall_rate": 0.0,
            "retry_rate": 20.0,
            "median_latency_ms": 69821.0,
            "median_tokens_total": 120000,
            "median_tokens_active": 26705.5,
            "median_tool_calls": 7.5,
            "median_cost_usd": 0.0123,
            "p90_latency_ms": 81692.4,
            "p95_latency_ms": None,
            "iqr_latency_ms": 15000,
            "cv_latency": 35.25,
            "p90_tokens_active": 30000,
            "p95_tokens_active": 40000,
            "model_signature": "openai/gpt-test",
        },
        "ghx": {
            "runs": 10,
            "success_rate": 100.0,
            "output_validity_rate": None,
            "runner_failure_rate": 0.0,
            "timeout_stall_rate": 0.0,
            "retry_rate": 0.0,
            "median_latency_ms": 32378.5,
            "median_tokens_total": None,
            "median_tokens_active": 21757,
            "median_tool_calls": 2,
            "median_cost_usd": None,
            "p90_latency_ms": 41000,
            "model_signature": None,
        },
    },
    "scenarios": {
        "pr-view-001": {
            "agent_direct": {"runs": 5, "success_rate": 80.0, "median_latency_ms": 1000},
            "ghx": {"runs": 5, "success_rate": 100.0, "median_latency_ms": None},
        }
    },
    "delta": {},
    "gate": {
        "profile": "verify_pr",
        "baseline": "agent_direct",
        "candidate": "ghx",
        "evaluated": True,
        "passed": False,
        "reason": "2 checks failed",
        "reliability": {
            "baseline_runs": 10,
            "candidate_runs": 10,
            "baseline_success_rate": 90.0,
            "candidate_success_rate": 100.0,
            "success_rate_delta_pp": 10.0,
        },
        "efficiency": {
            "coverage_pct": 50.0,
            "eligible_scenario_count": 1,
            "total_scenario_count": 2,
            "tokens_active_reduction_pct": 18.5,
            "latency_reduction_pct": 53.6,
            "tool_call_reduction_pct": 73.3,
            "min_scenario_cost_reduction_pct": None,
            "scenario_win_rate_tokens_active_pct": 100.0,
            "tokens_active_reduction_ci95": [8.04, 25.0],
            "latency_reduction_ci95": None,
            "scenarios": {
                "pr-view-001": {
                    "eligible": True,
                    "baseline_stable_runs": 4,
                    "candidate_stable_runs": 5,
                    "tokens_active_reduction_pct": 18.5,
                    "latency_ms_reduction_pct": 53.6,
                    "tool_calls_reduction_pct": 73.3,
                    "cost_usd_reduction_pct": None,
                },
                "issue-view-001": {"eligible": False, "baseline_stable_runs": 1},
            },
        },
        "checks": [
            _check("reliability_success_rate_non_inferior", True, 10.0, -3.0),
            _check("reliability_runner_failure_rate", True, 0.0, 7.0, "<="),
            _check("efficiency_coverage", False, 50.0, 70.0),
            _check("efficiency_cost_reduction", False, None, 10.0),
        ],
    },
}


@pytest.fixture
def summary_document() -> dict[str, Any]:
    """A hand-built SPEC section 8 summary as ``summary.json`` holds it: two modes, some values
    None, a failed gate with four checks (two failing)."""
    return copy.deepcopy(_SUMMARY)


@pytest.fixture
def summary(summary_document: dict[str, Any]) -> RunSummary:
    """:func:`summary_document` as the renderers take it."""
    return RunSummary.model_validate(summary_document)
