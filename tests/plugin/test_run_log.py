"""The run log as a user meets it: run directories, report.html, ghxbench report/view/compare on
runs, and --ghx-compare gating a regression against an earlier run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.cli.main import main
from tests.plugin.support import atomic, setup_project, summary
from tests.plugin.test_gate_exit import SCENARIOS, cheaper_candidate


def _latest(pytester: pytest.Pytester) -> Path:
    return (pytester.path / ".ghxbench" / "runs" / "latest").resolve()


def _with_ghx_tokens(pytester: pytest.Pytester, tokens: int) -> None:
    behaviour = cheaper_candidate()
    behaviour["*"]["ghx"]["tokens"] = {"input": tokens, "output": 300}
    (pytester.path / "behaviour.json").write_text(json.dumps(behaviour))


def test_compare_gates_a_regression_beyond_the_noise_and_the_threshold(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=cheaper_candidate())
    args = ["--ghx-mode=agent_direct,ghx", "--reps=3", "-p", "no:cacheprovider"]
    first = pytester.runpytest(*args, "--ghx-compare=latest")
    assert first.ret == 0
    first.stdout.fnmatch_lines(["*--ghx-compare=latest: nothing to compare with yet*"])
    first_run = _latest(pytester).name

    _with_ghx_tokens(pytester, 6000)  # 4,300 -> 6,300 active tokens per ghx item: +46.5%
    second = pytester.runpytest(*args, "--ghx-compare=latest", "--ghx-compare-fail=tokens:5%")
    assert second.ret == 1, second.stdout.str()
    second.stdout.fnmatch_lines(
        [
            f"*compared with base run {first_run}*",
            "*FAIL*tokens_active*+46.5%*",
            "*gate verify_pr (ghx vs agent_direct) PASSED*-> exit 1*--ghx-compare-fail rule(s) "
            "broken*",
        ]
    )
    comparison = summary(pytester)["comparison"]
    assert comparison["base_run"] == first_run and comparison["failed"]
    regressed = [e for e in comparison["entries"] if e["regression"]]
    assert {e["metric"] for e in regressed} == {"tokens_active"}  # cost and calls unchanged
    assert all(e["mode"] == "ghx" for e in regressed)

    # The same regression under a threshold it does not reach is shown, not failed.
    third = pytester.runpytest(*args, f"--ghx-compare={first_run}", "--ghx-compare-fail=tokens:60")
    assert third.ret == 0, third.stdout.str()
    assert summary(pytester)["comparison"]["failed"] == []


def test_compare_with_a_run_that_does_not_exist_is_one_usage_error(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    result = pytester.runpytest("--ghx-mode=ghx", "--ghx-compare=run_nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ghx-compare: no run 'run_nope' under *runs*"])
    bad_rule = pytester.runpytest("--ghx-mode=ghx", "--ghx-compare-fail=tokens:5%")
    assert bad_rule.ret == pytest.ExitCode.USAGE_ERROR
    bad_rule.stderr.fnmatch_lines(["*--ghx-compare-fail needs --ghx-compare=RUN|latest*"])


def _run_cli(monkeypatch: pytest.MonkeyPatch, where: Path, *argv: str) -> int:
    monkeypatch.chdir(where)
    return main(list(argv))


def test_report_latest_reproduces_the_run_summary_and_view_finds_the_report(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=cheaper_candidate())
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=3", "-p", "no:cacheprovider")
    assert result.ret == 0
    run = _latest(pytester)
    result.stdout.fnmatch_lines([f"report: {run / 'report.html'}"])
    recorded = json.loads((run / "summary.json").read_text())
    html = (run / "report.html").read_text()
    assert 'id="verdict"' in html and "http://" not in html.split("<body", 1)[0]

    status = _run_cli(
        monkeypatch, pytester.path, "report", "--latest", "--summary-json", "again.json"
    )
    assert status == 0
    again: dict[str, Any] = json.loads((pytester.path / "again.json").read_text())
    for key in ("modes", "scenarios", "delta", "gate"):
        assert again[key] == recorded[key], key
    capsys.readouterr()

    assert _run_cli(monkeypatch, pytester.path, "view", "--print") == 0
    assert capsys.readouterr().out.strip() == str(run / "report.html")
    (run / "report.html").unlink()  # view renders a missing report again
    assert _run_cli(monkeypatch, pytester.path, "view", "--print", run.name) == 0
    assert (run / "report.html").is_file()


def test_report_says_loudly_when_it_pools_runs_and_never_overwrites_its_input(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    for _ in range(2):
        assert pytester.runpytest("--ghx-mode=ghx", "-p", "no:cacheprovider").ret == 0
    capsys.readouterr()
    assert _run_cli(monkeypatch, pytester.path, "report", ".ghxbench") == 0
    assert "WARNING: pooling the rows of 2 runs" in capsys.readouterr().err
    rows = str(_latest(pytester) / "rows.jsonl")
    before = Path(rows).read_bytes()
    assert _run_cli(monkeypatch, pytester.path, "report", rows, "--summary-json", rows) == 4
    assert "is one of the rows files being read" in capsys.readouterr().err
    assert Path(rows).read_bytes() == before
    assert _run_cli(monkeypatch, pytester.path, "report", "run_nope") == 4
    assert "no run 'run_nope'" in capsys.readouterr().err


def test_compare_command_exits_1_on_a_broken_rule(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=cheaper_candidate())
    args = ["--ghx-mode=ghx", "--reps=3", "-p", "no:cacheprovider"]
    pytester.runpytest(*args)
    first = _latest(pytester).name
    _with_ghx_tokens(pytester, 6000)
    pytester.runpytest(*args)
    second = _latest(pytester).name
    capsys.readouterr()
    assert _run_cli(monkeypatch, pytester.path, "compare", first, second) == 0
    assert f"run {second} compared with base run {first}" in capsys.readouterr().out
    status = _run_cli(
        monkeypatch, pytester.path, "compare", first, "latest", "--fail", "tokens_active:5"
    )
    assert status == 1
    assert "FAIL" in capsys.readouterr().out


def test_a_rows_file_from_before_the_run_log_still_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A row as 0.1.0 wrote it, before schema_version and the transcript reference.
    old = {
        "timestamp": "2026-11-20T10:00:00.000Z", "run_id": "run_20261120T100000Z_aaaaaa",
        "mode": "ghx", "scenario_id": "repo-view-001", "scenario_set": None, "iteration": 1,
        "external_retry_count": 0, "git": {"repo": None, "commit": None},
        "item_id": "repo-view-001.json::repo-view-001[ghx-r1]", "adapter": "oracle",
        "backend": "sandbox", "scenario_type": "atomic", "session_id": None, "success": True,
        "output_valid": True, "latency_ms_wall": 5000.0, "startup_ms": 10.0,
        "sdk_latency_ms": None, "timing_breakdown": None,
        "tokens": {"input": 900, "output": 100, "reasoning": 0, "cache_read": 0,
                   "cache_write": 0, "total": 1000},
        "cost": 0.01, "tool_calls": 1, "api_calls": 2, "internal_retry_count": 0,
        "model": {"provider_id": "ghxbench", "model_id": "oracle", "mode": "ghx"},
        "error": None, "failures": [], "checkpoints": [],
    }  # fmt: skip
    rows = tmp_path / "rows" / "run_20261120T100000Z_aaaaaa.jsonl"
    rows.parent.mkdir()
    rows.write_text(json.dumps(old) + "\n")
    assert _run_cli(monkeypatch, tmp_path, "report", str(rows)) == 0
    out = capsys.readouterr().out
    assert "1 rows from 1 file(s)" in out and "1,000" in out

    from pytest_ghxbench.records.models import ItemRecord
    from pytest_ghxbench.records.row import Row

    record = ItemRecord.of_row(Row.model_validate(old))
    assert record.schema_version == 0 and record.transcript is None
    assert record.item_id == old["item_id"]
    with pytest.raises(ValueError, match="newer than this pytest-ghxbench reads"):
        ItemRecord.model_validate({**old, "schema_version": 99})
