"""A copy of a rows file next to the original is not counted twice; a runaway line is one
problem, not a crash."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.cli.main import build_parser
from pytest_ghxbench.cli.report import run_report
from pytest_ghxbench.records.jsonl import read_row_records, read_rows


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _rows(make_row: Callable[..., dict[str, Any]], n: int) -> list[dict[str, Any]]:
    return [make_row(item_id=f"s.json::s[ghx-r{i}]", iteration=i) for i in range(1, n + 1)]


@pytest.mark.parametrize("read", [read_rows, read_row_records])
def test_a_copied_rows_file_is_counted_once_with_one_warning(
    tmp_path: Path, make_row: Callable[..., dict[str, Any]], read: Any
) -> None:
    original = _write(tmp_path / "results" / "rows.jsonl", _rows(make_row, 3))
    copy = tmp_path / "results" / "backup" / "rows.jsonl"
    copy.parent.mkdir()
    shutil.copy(original, copy)
    result = read([tmp_path / "results"])
    rows = result.rows if hasattr(result, "rows") else result.records
    assert len(rows) == 3
    assert result.warnings == [
        f"{original}: 3 row(s) repeat rows of {copy} (same run_id and item_id); "
        "each is counted once"
    ]


def test_rows_of_another_run_or_without_item_id_all_count(
    tmp_path: Path, make_row: Callable[..., dict[str, Any]]
) -> None:
    ours = _rows(make_row, 2)
    theirs = [{**row, "run_id": "run_other"} for row in ours]
    legacy = [make_row(), make_row()]  # the TypeScript harness's rows have no item id
    result = read_rows(
        [_write(tmp_path / "a.jsonl", ours + legacy), _write(tmp_path / "b.jsonl", theirs + legacy)]
    )
    assert len(result.rows) == 8 and result.warnings == []


def test_the_same_item_twice_in_one_file_keeps_the_last(
    tmp_path: Path, make_row: Callable[..., dict[str, Any]]
) -> None:
    first, second = make_row(item_id="x", success=False), make_row(item_id="x", success=True)
    result = read_row_records([_write(tmp_path / "rows.jsonl", [first, second])])
    assert [r.success for r in result.records] == [True] and result.warnings == []


def test_ghxbench_report_warns_and_counts_a_copy_once(
    tmp_path: Path, make_row: Callable[..., dict[str, Any]]
) -> None:
    original = _write(tmp_path / "results" / "run1.jsonl", _rows(make_row, 3))
    shutil.copy(original, tmp_path / "results" / "run1-copy.jsonl")
    out, err = io.StringIO(), io.StringIO()
    args = build_parser().parse_args(["report", str(tmp_path / "results")])
    assert run_report(args, out=out, err=err) == 0
    assert out.getvalue().startswith("3 rows from 2 file(s)")
    assert err.getvalue().count("WARNING") == 1
    (warning,) = [line for line in err.getvalue().splitlines() if "UNVERIFIED" not in line]
    assert "3 row(s) repeat rows of" in warning
    assert str(original) in warning and "run1-copy.jsonl" in warning


def test_a_line_nested_5000_deep_is_one_problem_with_file_and_line(
    tmp_path: Path, make_row: Callable[..., dict[str, Any]]
) -> None:
    path = _write(tmp_path / "rows.jsonl", [make_row()])
    with path.open("a") as handle:
        handle.write('{"a":' + "[" * 5_000 + "]" * 5_000 + "}\n")
    for read in (read_rows, read_row_records):
        result = read([path])
        assert len(result.problems) == 1
        problem = result.problems[0]
        assert (problem.path, problem.line) == (path, 2)
        assert "nested deeper than 100 levels" in str(problem)
