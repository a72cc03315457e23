"""Imported rows with impossible numbers (negative, NaN, infinite latency, cost, counts) are
reported with file:line, naming the field and the value, and left out of every median: they
never turn into a "latency reduction 105%" or "cost reduction 50100%" pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.cli.main import main
from pytest_ghxbench.records.importers import read_eval_csv
from pytest_ghxbench.records.jsonl import DEFAULT_MODE_ALIASES, read_row_records, read_rows

_HEADER = (
    "run_id,scenario_id,mode,model,iteration,success,timing_wall_ms,tokens_total,"
    "tool_calls_total,cost_total_usd,output_valid"
)


def _rows_file(path: Path, rows: list[dict[str, Any]]) -> Path:
    # json.dumps writes NaN and Infinity as the non-standard literals a broken producer writes
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    return path


def _report(tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    out = tmp_path / "summary.json"
    main(["report", str(source), "--summary-json", str(out)])
    summary: dict[str, Any] = json.loads(out.read_text("utf-8"))
    summary["stderr"] = capsys.readouterr().err
    return summary


def test_impossible_jsonl_rows_are_reported_and_left_out_of_the_medians(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make_row: Any
) -> None:
    rows = [
        *[make_row(mode="agent_direct", iteration=i, latency_ms_wall=1000.0) for i in range(3)],
        *[make_row(mode="ghx", iteration=i, latency_ms_wall=400.0, cost=0.001) for i in range(3)],
        make_row(mode="ghx", iteration=3, latency_ms_wall=-50000.0),  # line 7
        make_row(mode="ghx", iteration=4, cost=-5.0),  # line 8
        make_row(mode="ghx", iteration=5, latency_ms_wall=float("nan")),  # line 9
        make_row(mode="ghx", iteration=6, cost=float("-inf")),  # line 10
        make_row(mode="ghx", iteration=7, tool_calls=-3),  # line 11
    ]
    path = _rows_file(tmp_path / "rows.jsonl", rows)

    summary = _report(tmp_path, path, capsys)

    problems = summary["stderr"].splitlines()
    assert problems[0].startswith(f"{path}:7: field 'latency_ms_wall': ")
    assert problems[0].endswith("(got -50000.0)")
    assert problems[1].startswith(f"{path}:8: field 'cost': ") and "(got -5.0)" in problems[1]
    assert problems[2].startswith(f"{path}:9: ")
    assert problems[3].startswith(f"{path}:10: ")
    assert problems[4].startswith(f"{path}:11: field 'tool_calls': ")
    assert problems[4].endswith("(got -3)")
    assert problems[5] == "5 malformed lines skipped in 1 file"
    ghx = summary["modes"]["ghx"]
    assert ghx["runs"] == 3
    assert (ghx["median_latency_ms"], ghx["median_cost_usd"]) == (400.0, 0.001)
    assert ghx["median_tool_calls"] == 2


@pytest.mark.parametrize("reader", [read_rows, read_row_records])
def test_both_readers_refuse_the_same_impossible_rows(
    tmp_path: Path, make_row: Any, reader: Any
) -> None:
    path = _rows_file(
        tmp_path / "rows.jsonl",
        [
            make_row(),
            make_row(startup_ms=-1.0),
            make_row(sdk_latency_ms=float("inf")),
            make_row(api_calls=-1),
            make_row(external_retry_count=-1),
            make_row(internal_retry_count=-1),
            make_row(latency_ms_wall=0.0, cost=0.0, startup_ms=0.0),
        ],
    )

    result = reader([path])

    assert [problem.line for problem in result.problems] == [2, 3, 4, 5, 6]
    assert len(getattr(result, "rows", None) or getattr(result, "records", [])) == 2


def test_a_csv_record_with_a_negative_number_is_a_problem_naming_the_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "results.csv"
    path.write_text(
        "\n".join(
            [
                _HEADER,
                "r1,s-001,baseline,openai/m,0,true,1000,5000,6,0.05,true",
                "r1,s-001,ghx,openai/m,0,true,400,2000,2,0.02,true",
                "r1,s-001,ghx,openai/m,1,true,400,2000,2,-0.5,true",
                "r1,s-001,ghx,openai/m,2,true,-9000,2000,2,0.02,true",
                "r1,s-001,ghx,openai/m,3,true,400,-2000,2,0.02,true",
                "r1,s-001,ghx,openai/m,4,true,400,2000,-2,0.02,true",
            ]
        )
        + "\n",
        "utf-8",
    )

    rows, problems = read_eval_csv(path, DEFAULT_MODE_ALIASES)

    assert [(row.mode, row.iteration) for row in rows] == [("agent_direct", 0), ("ghx", 0)]
    assert [str(problem) for problem in problems] == [
        f"{path}:4: column 'cost_total_usd': expected a number >= 0, got '-0.5'",
        f"{path}:5: column 'timing_wall_ms': expected a number >= 0, got '-9000'",
        f"{path}:6: column 'tokens_total': expected a whole number >= 0, got '-2000'",
        f"{path}:7: column 'tool_calls_total': expected a whole number >= 0, got '-2'",
    ]
    summary = _report(tmp_path, path, capsys)
    assert summary["modes"]["ghx"]["runs"] == 1
    assert summary["modes"]["ghx"]["median_cost_usd"] == 0.02
    assert "4 malformed lines skipped in 1 file" in summary["stderr"]
