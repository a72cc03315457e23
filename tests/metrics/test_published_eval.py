"""The published three-mode evaluation (ghx-eval-2026-03-03): our per-mode medians must equal
the medians that evaluation published in its summary.json."""

from __future__ import annotations

import csv
import json

import pytest

from pytest_ghxbench.metrics.summary import mode_metrics
from pytest_ghxbench.records.row import ModelInfo, Row, Tokens
from tests.paths import EVAL_DIR

MODE_NAMES = {"baseline": "agent_direct", "mcp": "mcp", "ghx": "ghx"}

pytestmark = pytest.mark.skipif(not EVAL_DIR.is_dir(), reason="published evaluation not present")


def _flag(text: str) -> bool:
    if text not in ("true", "false"):
        raise ValueError(f"expected 'true' or 'false', got {text!r}")
    return text == "true"


def _published_rows() -> list[Row]:
    rows = []
    with (EVAL_DIR / "results.csv").open(newline="", encoding="utf-8") as handle:
        for record in csv.DictReader(handle):
            provider, model = record["model"].split("/", 1)
            rows.append(
                Row(
                    timestamp="2026-03-03T21:12:35Z",
                    run_id=record["run_id"],
                    mode=MODE_NAMES[record["mode"]],
                    scenario_id=record["scenario_id"],
                    iteration=int(record["iteration"]),
                    session_id=record["session_id"],
                    success=_flag(record["success"]),
                    output_valid=_flag(record["output_valid"]),
                    latency_ms_wall=float(record["timing_wall_ms"]),
                    tokens=Tokens(
                        input=int(record["tokens_input"]),
                        output=int(record["tokens_output"]),
                        reasoning=int(record["tokens_reasoning"]),
                        cache_read=int(record["tokens_cache_read"]),
                        cache_write=int(record["tokens_cache_write"]),
                        total=int(record["tokens_total"]),
                    ),
                    tool_calls=int(record["tool_calls_total"]),
                    cost=float(record["cost_total_usd"]),
                    model=ModelInfo(provider_id=provider, model_id=model),
                )
            )
    return rows


@pytest.mark.parametrize("published_mode", ["baseline", "mcp", "ghx"])
def test_mode_medians_equal_the_published_summary(published_mode: str) -> None:
    published = json.loads((EVAL_DIR / "summary.json").read_text(encoding="utf-8"))
    expected = published["modeBreakdowns"][published_mode]
    mode = MODE_NAMES[published_mode]
    metrics = mode_metrics([row for row in _published_rows() if row.mode == mode])

    assert metrics["runs"] == expected["count"]
    assert metrics["median_latency_ms"] == expected["medians"]["wallMs"]
    assert metrics["median_tokens_active"] == expected["medians"]["activeTokens"]
    assert metrics["median_tool_calls"] == expected["medians"]["toolCalls"]
    assert metrics["median_cost_usd"] == expected["medians"]["costUsd"]
    assert metrics["success_rate"] == expected["successRate"] * 100
    assert metrics["model_signature"] == "openai/gpt-5.3-codex"


def test_active_tokens_match_the_published_column() -> None:
    with (EVAL_DIR / "results.csv").open(newline="", encoding="utf-8") as handle:
        published_active = sorted(
            float(record["tokens_active"]) for record in csv.DictReader(handle)
        )
    ours = sorted(float(row.tokens.total - row.tokens.cache_read) for row in _published_rows())
    assert ours == published_active
