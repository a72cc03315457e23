"""Rows reduced to records, the strict plain-JSON row validator, and tables built from records."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES
from pytest_ghxbench.metrics.summary import build_summary
from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.records.row import (
    Row,
    RowRecord,
    is_timeout_stall_message,
    plain_row_validator,
)

from .factory import make_row, repeat

MINIMAL = {
    "timestamp": "2026-03-03T10:00:00Z",
    "run_id": "r1",
    "mode": "ghx",
    "scenario_id": "s-001",
    "success": True,
    "output_valid": False,
}
FULL = {
    **MINIMAL,
    "scenario_set": "pr",
    "iteration": 3,
    "session_id": "ses",
    "latency_ms_wall": 1500,
    "sdk_latency_ms": 12.5,
    "timing_breakdown": {"agent": 1.0, "nested": {"x": [1, 2]}},
    "tokens": {"input": 700, "output": 30, "total": 1000, "cache_read": 270, "vendor": "x"},
    "cost": 0.25,
    "tool_calls": 4,
    "api_calls": 2,
    "internal_retry_count": 1,
    "external_retry_count": 2,
    "model": {"provider_id": "openai", "model_id": "gpt-test", "tier": 1},
    "git": {"repo": "o/r", "commit": "abc"},
    "error": {"type": "runner_error", "message": "agent timed out", "code": 7},
    "adapter": "oracle",
}


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = plain_row_validator().validate_json(json.dumps(row))
    return result


@pytest.mark.parametrize("row", [MINIMAL, FULL], ids=["minimal", "full"])
def test_plain_validator_gives_exactly_what_row_holds(row):
    # Same field names at every level, same defaults, extras kept, ints widened to float where
    # Row has a float: the plain dict is the Row's model_dump.
    assert _plain(row) == Row.model_validate(row).model_dump()


def test_plain_validator_fills_defaults_like_row():
    plain = _plain(MINIMAL)
    assert plain["tokens"] == {
        "input": 0,
        "output": 0,
        "reasoning": 0,
        "cache_read": 0,
        "cache_write": 0,
        "total": 0,
    }
    assert plain["model"] == {"provider_id": "unknown", "model_id": "unknown", "mode": None}
    assert (plain["error"], plain["cost"], plain["external_retry_count"]) == (None, 0.0, 0)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tool_calls", "4"),  # Row converts it; the strict validator leaves that to Row
        ("success", "true"),
        ("success", 1),
        ("iteration", 2.0),
        ("iteration", True),
        ("cost", "0.5"),
        ("scenario_id", 7),
        ("tokens", {"total": "10"}),
        ("timing_breakdown", [1]),
        ("error", {"type": "runner_error"}),
    ],
)
def test_plain_validator_rejects_everything_that_is_not_an_exact_json_type(field, value):
    with pytest.raises(ValidationError):
        _plain({**MINIMAL, field: value})


def test_record_of_a_row_and_of_its_plain_json_agree():
    record = RowRecord.of_row(Row.model_validate(FULL))
    assert record == RowRecord.of_plain(_plain(FULL))
    assert record == RowRecord(
        mode="ghx",
        scenario_id="s-001",
        provider_id="openai",
        model_id="gpt-test",
        success=True,
        output_valid=False,
        external_retry_count=2,
        error_type="runner_error",
        error_message="agent timed out",
        tokens_total=1000,
        tokens_cache_read=270,
        latency_ms_wall=1500.0,
        tool_calls=4,
        cost=0.25,
    )


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("agent timed out", True),
        ("Timeout after 30 s", True),
        ("session STALLED", True),
        ("timeouts: 0", False),  # a word of its own, not a prefix
        ("crashed", False),
    ],
)
def test_timeout_stall_messages(message, expected):
    assert is_timeout_stall_message(message) is expected


def test_a_table_of_records_summarizes_like_a_table_of_rows():
    rows = [
        *repeat(3, "agent_direct", "s-001", tokens=2000, latency=3000.0, tool_calls=6),
        *repeat(3, "ghx", "s-001", tokens=1000, latency=1500.0, tool_calls=2, cost=0.005),
        make_row("ghx", "s-002", runner_error="agent timed out", success=False),
        make_row("ghx", "s-002", runner_error="crash", retries=1, model="anthropic/claude"),
    ]
    table = RowTable.from_records([RowRecord.of_row(row) for row in rows])
    options: dict[str, Any] = {
        "profile": BUILTIN_PROFILES["verify_pr"],
        "baseline": "agent_direct",
        "candidate": "ghx",
        "generated_at": "2026-03-03T10:00:00Z",
    }

    assert build_summary(table, **options) == build_summary(rows, **options)
    assert table.model_signatures == ["openai/gpt-test", "anthropic/claude"]
    ghx = build_summary(table, **options).modes["ghx"]
    # 5 ghx rows: 2 runner errors (1 a timeout), 1 retried
    assert (ghx["runner_failure_rate"], ghx["timeout_stall_rate"]) == (40.0, 20.0)
    assert ghx["retry_rate"] == 20.0


def test_an_empty_table_of_records():
    table = RowTable.from_records([])
    assert len(table) == 0
    assert table.modes == []
    assert table.model_signatures == []
