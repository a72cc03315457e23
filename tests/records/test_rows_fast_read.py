"""The fast reading path (``read_row_records``) and its garbage-collector pause: the same rows,
values and problems as ``read_rows``, line for line."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ghxbench.records import jsonl
from pytest_ghxbench.records.jsonl import (
    RunFields,
    garbage_collection_paused,
    read_row_records,
    read_rows,
)
from pytest_ghxbench.records.row import RowRecord


def _write_lines(path: Path, lines: list[str], *, final_newline: bool = True) -> Path:
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    return path


def _assert_same_reading(paths: list[Path], **options: Any) -> None:
    rows = read_rows(paths, **options)
    records = read_row_records(paths, **options)
    # repr, because NaN (which json.dumps writes) is not equal to itself
    assert repr(records.records) == repr([RowRecord.of_row(row) for row in rows.rows])
    assert repr(records.run_fields) == repr([RunFields.of_row(row) for row in rows.rows])
    assert [str(problem) for problem in records.problems] == [str(p) for p in rows.problems]
    assert records.files == rows.files


def test_lines_the_fast_path_cannot_take_are_read_as_before(tmp_path, make_row):
    legacy = make_row(mode="baseline", retry_count=2)
    del legacy["external_retry_count"]
    lines = [
        json.dumps(make_row(adapter="oracle", backend="sandbox")),
        json.dumps(make_row(tool_calls="4", success="true")),  # Row converts these
        json.dumps(legacy),  # the TypeScript harness's retry_count
        json.dumps(make_row(mode="ghx_router", retry_count=9)),  # ignored: external is given
        '{"mode": "ghx"',
        "[1, 2]",
        "",
        json.dumps(make_row(success=None)),
        json.dumps(make_row(latency_ms_wall=float("nan"))),  # json.dumps writes NaN: refused
        json.dumps(make_row(error={"type": "runner_error", "message": "timed out"})),
        json.dumps(make_row())[:-3],
    ]
    path = _write_lines(tmp_path / "rows.jsonl", lines, final_newline=False)

    result = read_row_records([path])

    assert [record.mode for record in result.records] == [
        "ghx",
        "ghx",
        "agent_direct",
        "ghx",
        "ghx",
    ]
    assert [record.tool_calls for record in result.records][:2] == [2, 4]
    assert [record.external_retry_count for record in result.records][2:4] == [2, 0]
    assert result.run_fields[0] == RunFields("run_test", "abc123", "oracle", "sandbox")
    assert [(problem.line, problem.message.split(":")[0]) for problem in result.problems] == [
        (5, "invalid JSON"),
        (6, "expected a JSON object, got list"),
        (8, "field 'success'"),
        (9, "field 'latency_ms_wall'"),
        (11, "truncated last line (no newline at end of file)"),
    ]
    _assert_same_reading([path])


def test_bytes_that_are_not_utf8_are_the_same_problem(tmp_path, make_row):
    path = tmp_path / "rows.jsonl"
    good = json.dumps(make_row()).encode()
    path.write_bytes(good + b"\n" + good.replace(b"run_test", b"run\xfftest") + b"\n")

    result = read_row_records([path])

    assert len(result.records) == 1
    # byte 52 is the 0xff after "run" in the run_id's value
    assert str(result.problems[0]) == f"{path}:2: not UTF-8 text (invalid start byte at byte 52)"
    _assert_same_reading([path])


def test_mode_aliases_and_csv_files_are_read_as_before(tmp_path, make_row, eval_dir):
    path = _write_lines(
        tmp_path / "rows.jsonl", [json.dumps(make_row(mode=m)) for m in ("baseline", "mcp")]
    )
    options = {"mode_aliases": {"mcp": "github_mcp"}}
    result = read_row_records([path], **options)
    assert [record.mode for record in result.records] == ["agent_direct", "github_mcp"]
    _assert_same_reading([path, eval_dir / "results.csv"], **options)


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**20),
    st.floats(),
    st.sampled_from(["", "3", "true", "x", "agent timed out"]),
    st.just({}),
    st.just({"type": "runner_error", "message": "stalled"}),
    st.just({"total": 5, "cache_read": "2"}),
    st.just([1]),
)
_FIELDS = st.sampled_from(
    [
        "mode",
        "success",
        "output_valid",
        "iteration",
        "latency_ms_wall",
        "tokens",
        "cost",
        "tool_calls",
        "external_retry_count",
        "retry_count",
        "model",
        "git",
        "error",
        "timing_breakdown",
        "adapter",
    ]
)


# make_row builds a fresh deep copy on every call, so sharing the fixture between inputs is safe
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(changes=st.lists(st.tuples(_FIELDS, _VALUES), max_size=3), drop=st.booleans())
def test_any_row_reads_the_same_on_both_paths(tmp_path_factory, make_row, changes, drop):
    row = make_row()
    for field, value in changes:
        row[field] = value
    if drop and changes:
        row.pop(changes[0][0])
    path = tmp_path_factory.mktemp("rows") / "rows.jsonl"
    _write_lines(path, [json.dumps(row)])
    _assert_same_reading([path])


@pytest.mark.parametrize("was_enabled", [True, False])
def test_reading_pauses_the_garbage_collector_and_restores_it(tmp_path, make_row, was_enabled):
    path = _write_lines(tmp_path / "rows.jsonl", [json.dumps(make_row())])
    seen: list[bool] = []
    original = (gc.enable if was_enabled else gc.disable, gc.isenabled())
    original[0]()
    try:
        with garbage_collection_paused():
            seen.append(gc.isenabled())
        read_row_records([path])
        read_rows([path])
        seen.append(gc.isenabled())
    finally:
        (gc.enable if original[1] else gc.disable)()
    assert seen == [False, was_enabled]


def test_rows_as_the_harness_writes_them_never_take_the_slow_path(tmp_path, make_row, monkeypatch):
    # What makes reading many rows fast: no Row is built for a plain row (bench/report_speed.py
    # times 100,000 of them; see docs/performance.md).
    lines = [json.dumps(make_row(iteration=i, scenario_id=f"s-{i % 50:03d}")) for i in range(2000)]
    path = _write_lines(tmp_path / "rows.jsonl", lines)
    slow: list[int] = []
    read_line = jsonl._parse_jsonl_line

    def counted(*args: Any, **kwargs: Any) -> Any:
        slow.append(args[1])
        return read_line(*args, **kwargs)

    monkeypatch.setattr(jsonl, "_parse_jsonl_line", counted)
    result = read_row_records([path])
    assert len(result.records) == 2000 and not result.problems
    assert slow == []
    read_rows([path])  # the other reader takes the slow path for every line
    assert len(slow) == 2000
