from __future__ import annotations

from collections import Counter

from pytest_ghxbench.records.importers import normalize_ts_row, read_eval_csv
from pytest_ghxbench.records.jsonl import DEFAULT_MODE_ALIASES, read_rows

_HEADER = "run_id,scenario_id,mode,model,iteration,success,timing_wall_ms,tokens_total,output_valid"


def test_published_csv_rows_map_onto_row_fields(eval_dir):
    rows, problems = read_eval_csv(eval_dir / "results.csv", DEFAULT_MODE_ALIASES)

    assert problems == []
    assert Counter(row.mode for row in rows) == {"agent_direct": 10, "mcp": 10, "ghx": 10}
    first = rows[0]
    # run_1772555729706,pr-reply-threads-wf-001,baseline,openai/gpt-5.3-codex,0,true,69343,
    # 22444,1935,854,75776,0,101009,25233,8,0,0,0,...,4,4,true,opencode,ses_34b7...,5,stop
    assert first.scenario_id == "pr-reply-threads-wf-001"
    assert first.iteration == 0
    assert (first.success, first.output_valid) == (True, True)
    assert first.latency_ms_wall == 69343
    assert first.tokens.model_dump() == {
        "input": 22444,
        "output": 1935,
        "reasoning": 854,
        "cache_read": 75776,
        "cache_write": 0,
        "total": 101009,
    }
    assert first.tokens.active == 25233
    assert (first.tool_calls, first.api_calls, first.cost) == (8, 5, 0.0)
    assert (first.model.provider_id, first.model.model_id) == ("openai", "gpt-5.3-codex")
    assert first.session_id == "ses_34b702690ffe01F5FSZ1Wjx2mY"
    assert first.error is None
    extra = first.model_extra or {}
    assert extra["checkpoints_passed"] == 4
    assert extra["provider"] == "opencode"
    assert extra["completion_reason"] == "stop"
    # the run id carries the run's start time in epoch milliseconds
    assert first.timestamp == "2026-03-03T16:35:29.706Z"


def test_a_session_that_ended_in_error_is_a_runner_error(eval_dir):
    rows, _ = read_eval_csv(eval_dir / "results.csv", DEFAULT_MODE_ALIASES)
    failed = [row for row in rows if not row.success]
    assert len(failed) == 1
    assert failed[0].is_runner_error
    assert failed[0].session_id is None
    assert (failed[0].scenario_id, failed[0].iteration) == ("pr-review-comment-001", 3)


def test_bad_cells_are_problems_with_their_line_and_column(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text(
        "\n".join(
            [
                _HEADER,
                "r1,s-001,ghx,openai/m,0,true,100,10,true",
                "r1,s-001,ghx,openai/m,1,yes,100,10,true",
                "r1,s-001,ghx,openai/m,2,true,fast,10,true",
                "r1,s-001,,openai/m,3,true,100,10,true",
                "r1,s-001,ghx,openai/m,4.5,true,100,10,true",
                "r1,s-001,ghx,openai/m,5,true,100,10,true,surplus",
                "r1,s-001,mcp,local-model,6,FALSE,,,false",
            ]
        )
        + "\n",
        "utf-8",
    )

    rows, problems = read_eval_csv(path, DEFAULT_MODE_ALIASES)

    assert [(row.iteration, row.mode) for row in rows] == [(0, "ghx"), (6, "mcp")]
    last = rows[1]
    assert (last.success, last.latency_ms_wall, last.tokens.total) == (False, 0.0, 0)
    assert (last.model.provider_id, last.model.model_id) == ("unknown", "local-model")
    assert [(problem.line, problem.message) for problem in problems] == [
        (3, "column 'success': expected true or false, got 'yes'"),
        (4, "column 'timing_wall_ms': expected a number, got 'fast'"),
        (5, "column 'mode' is empty"),
        (6, "column 'iteration': expected a whole number, got '4.5'"),
        (7, "more cells than header columns"),
    ]


def test_a_csv_without_the_required_columns_is_one_problem(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("name,value\na,1\n", "utf-8")
    rows, problems = read_eval_csv(path, DEFAULT_MODE_ALIASES)
    assert rows == []
    assert [str(problem) for problem in problems] == [
        f"{path}:1: CSV header lacks required column(s) 'run_id', 'scenario_id', 'mode', "
        "'success', 'output_valid'"
    ]


def test_read_rows_reads_csv_files_with_the_mode_aliases(eval_dir):
    result = read_rows([eval_dir / "results.csv"], mode_aliases={"mcp": "github_mcp"})
    assert Counter(row.mode for row in result.rows) == {
        "agent_direct": 10,
        "github_mcp": 10,
        "ghx": 10,
    }


def test_normalize_ts_row_leaves_its_input_alone_and_prefers_explicit_counts():
    legacy = {"mode": "ghx_router", "retry_count": 1, "external_retry_count": 3}
    normalized = normalize_ts_row(legacy, DEFAULT_MODE_ALIASES)
    assert normalized == {
        "mode": "ghx",
        "external_retry_count": 3,
        "internal_retry_count": 0,
        "scenario_set": None,
    }
    assert legacy == {"mode": "ghx_router", "retry_count": 1, "external_retry_count": 3}
