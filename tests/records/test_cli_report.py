from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_ghxbench.cli.main import main

GHXBENCH = Path(sys.executable).parent / "ghxbench"
PUBLISHED_MODES = {"baseline": "agent_direct", "mcp": "mcp", "ghx": "ghx"}


def _run(
    args: list[str], cwd: Path, *, as_module: bool = False
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest_ghxbench"] if as_module else [str(GHXBENCH)]
    return subprocess.run(
        [*command, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def _verdict(stdout: str) -> str:
    return stdout.strip().splitlines()[-1]


def test_console_script_reproduces_the_published_per_mode_medians(tmp_path, eval_dir):
    result = _run(["report", str(eval_dir / "results.csv"), "--summary-json", "out.json"], tmp_path)

    assert result.returncode == 0, result.stderr
    summary = json.loads((tmp_path / "out.json").read_text("utf-8"))
    published = json.loads((eval_dir / "summary.json").read_text("utf-8"))["modeBreakdowns"]
    assert set(summary["modes"]) == set(PUBLISHED_MODES.values())
    for published_mode, mode in PUBLISHED_MODES.items():
        expected, actual = published[published_mode], summary["modes"][mode]
        assert actual["runs"] == expected["count"]
        assert actual["median_latency_ms"] == expected["medians"]["wallMs"]
        assert actual["median_tokens_active"] == expected["medians"]["activeTokens"]
        assert actual["median_tool_calls"] == expected["medians"]["toolCalls"]
        assert actual["median_cost_usd"] == expected["medians"]["costUsd"]
        assert actual["success_rate"] == pytest.approx(expected["successRate"] * 100)
    # hand-checked against results.csv: agent_direct's ten wall times sorted put 69343 and
    # 70299 in the middle (the failed run counts as 0)
    assert summary["modes"]["agent_direct"]["median_latency_ms"] == 69821
    assert "agent_direct  " in result.stdout and "69,821" in result.stdout
    assert _verdict(result.stdout).endswith(
        "-> exit 0 (gate not required; pass --gate to enforce it)"
    )


def test_gate_fails_on_the_published_run_because_no_scenario_has_comparable_cost(
    tmp_path, eval_dir
):
    result = _run(
        ["report", str(eval_dir / "results.csv"), "--gate", "--summary-md", "summary.md"],
        tmp_path,
        as_module=True,
    )

    assert result.returncode == 1, result.stderr
    assert _verdict(result.stdout) == (
        "ghxbench verdict: gate verify_pr (ghx vs agent_direct) FAILED "
        "(1/10: efficiency_cost_reduction) -> exit 1 "
        "(gate required)"
    )
    assert "FAIL    efficiency_cost_reduction" in result.stdout
    markdown = (tmp_path / "summary.md").read_text("utf-8")
    assert markdown.startswith("## ❌ ghxbench gate `verify_pr` failed")


def test_release_profile_also_fails_coverage(capsys, eval_dir):
    # verify_release needs 5 stable rows per scenario and mode; agent_direct has only 4 for
    # pr-review-comment-001 (one run failed), so 1 of 2 scenarios is eligible: 50% coverage.
    status = main(
        ["report", str(eval_dir / "results.csv"), "--gate", "--gate-profile", "verify_release"]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "FAIL    efficiency_coverage                       50.0%  >=      75.0%" in out
    assert _verdict(out).startswith(
        "ghxbench verdict: gate verify_release (ghx vs agent_direct) FAILED "
        "(2/10: efficiency_coverage, "
        "efficiency_cost_reduction)"
    )


def test_unknown_profile_is_a_usage_error_listing_the_valid_ones(capsys, eval_dir):
    status = main(["report", str(eval_dir / "results.csv"), "--gate-profile", "nightly"])
    err = capsys.readouterr().err
    assert status == 4
    valid = "verify_pr, verify_pr_stat, verify_release, verify_release_stat"
    assert f"unknown gate profile 'nightly'; valid profiles: {valid}" in err


def test_profiles_and_model_expectations_come_from_a_pyproject(tmp_path, capsys, eval_dir):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        "[tool.ghxbench.profiles.nightly]\n"
        'extends = "verify_pr"\n'
        "efficiency_tool_call_reduction = 85\n"
        '[tool.ghxbench.expectations."openai/gpt-5.3-codex".nightly]\n'
        "min_samples_per_scenario_per_mode = 5\n",
        "utf-8",
    )
    args = ["report", str(eval_dir / "results.csv"), "--profiles-from", str(pyproject)]

    assert main([*args, "--gate-profile", "nightly"]) == 0
    out = capsys.readouterr().out
    # 5 samples per mode (the model's expectation) leave only pr-reply-threads-wf-001
    # eligible: coverage 1/2 = 50%, and its tool calls drop from a median 10 to 2: 80% < 85
    assert "FAIL    efficiency_tool_call_reduction            80.0%  >=      85.0%" in out
    assert "FAIL    efficiency_coverage                       50.0%" in out
    assert "gate nightly (ghx vs agent_direct) FAILED (3/10:" in _verdict(out)

    assert main([*args, "--gate-profile", "weekly"]) == 4
    valid = "nightly, verify_pr, verify_pr_stat, verify_release, verify_release_stat"
    assert f"valid profiles: {valid}" in capsys.readouterr().err


def test_malformed_lines_are_listed_and_counted_on_stderr(tmp_path, capsys, make_row):
    good = [make_row(mode=mode, iteration=i) for mode in ("agent_direct", "ghx") for i in (1, 2)]
    first = tmp_path / "a.jsonl"
    first.write_text(json.dumps(good[0]) + "\n{oops\n" + json.dumps(good[1]) + "\n", "utf-8")
    second = tmp_path / "b.jsonl"
    second.write_text("".join(json.dumps(row) + "\n" for row in good[2:]) + "[]\n", "utf-8")

    status = main(["report", str(first), str(second)])

    captured = capsys.readouterr()
    assert status == 0
    problems = [line for line in captured.err.splitlines() if "UNVERIFIED" not in line]
    assert problems == [
        f"{first}:2: invalid JSON: Expecting property name enclosed in double quotes at column 2",
        f"{second}:3: expected a JSON object, got list",
        "2 malformed lines skipped in 2 files",
    ]
    assert captured.out.splitlines()[0] == "4 rows from 2 file(s)"


def test_no_readable_rows_is_a_usage_error(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("not json\n", "utf-8")
    assert main(["report", str(rows), "--gate"]) == 4
    err = capsys.readouterr().err
    assert "1 malformed line skipped in 1 file" in err
    assert f"ghxbench report: error: no readable rows in {rows}" in err


def test_a_missing_path_is_a_usage_error_naming_it(tmp_path, capsys):
    missing = tmp_path / "nowhere.jsonl"
    assert main(["report", str(missing)]) == 4
    assert f"no such file or directory: {missing}" in capsys.readouterr().err


def test_gate_not_evaluated_without_candidate_rows(tmp_path, capsys, make_row):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(make_row(mode="agent_direct")) + "\n", "utf-8")

    assert main(["report", str(rows)]) == 0
    assert "NOT EVALUATED" in _verdict(capsys.readouterr().out)

    assert main(["report", str(rows), "--gate"]) == 1
    verdict = _verdict(capsys.readouterr().out)
    assert verdict.startswith(
        "ghxbench verdict: gate verify_pr (ghx vs agent_direct) NOT EVALUATED: "
    )
    assert "'ghx'" in verdict
    assert verdict.endswith("-> exit 1 (gate required)")


def test_mode_aliases_rename_modes_and_bad_ones_are_usage_errors(capsys, eval_dir):
    csv = str(eval_dir / "results.csv")
    assert main(["report", csv, "--mode-alias", "mcp=github_mcp"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].startswith("mode ")
    assert {line.split()[0] for line in table[2:5]} == {"agent_direct", "github_mcp", "ghx"}

    assert main(["report", csv, "--mode-alias", "mcp"]) == 4
    assert "--mode-alias expects OLD=NEW, got 'mcp'" in capsys.readouterr().err
    assert main(["report", csv, "--baseline", "ghx"]) == 4
    assert "--baseline and --candidate are both 'ghx'" in capsys.readouterr().err


def test_github_fixtures_need_a_token(capsys, monkeypatch):
    for name in ("GH_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    assert main(["fixtures", "seed", "--ghx-backend", "github", "--repo", "a/b"]) == 2
    assert "no GitHub token: set GH_TOKEN or GITHUB_TOKEN" in capsys.readouterr().err


def test_argument_errors_are_usage_errors(capsys):
    assert main(["frobnicate"]) == 4
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err
    assert main(["report"]) == 4
    assert main(["fixtures", "plant"]) == 4
    assert main(["report", "--help"]) == 0
    assert "--summary-json" in capsys.readouterr().out


def test_check_delegates_to_the_scenario_checker(monkeypatch, tmp_path):
    import pytest_ghxbench.scenario.check as check_module

    calls = []

    def fake_run_check(paths, out):
        calls.append(list(paths))
        return 1

    monkeypatch.setattr(check_module, "run_check", fake_run_check)
    assert main(["check", str(tmp_path)]) == 1
    assert main(["check"]) == 1
    assert calls == [[tmp_path], [Path("scenarios")]]


def test_gate_passes_when_the_candidate_is_cheaper_everywhere(tmp_path, capsys, make_row):
    rows = []
    for scenario in ("a-001", "b-001", "c-001"):
        for iteration in range(3):
            rows.append(
                make_row(
                    mode="agent_direct",
                    scenario_id=scenario,
                    iteration=iteration,
                    latency_ms_wall=1000,
                    tool_calls=10,
                    cost=0.01,
                    tokens={"input": 1000, "total": 1000},
                )
            )
            rows.append(
                make_row(
                    mode="ghx", scenario_id=scenario, iteration=iteration,
                    latency_ms_wall=500, tool_calls=2, cost=0.005,
                    tokens={"input": 600, "total": 600},
                )
            )  # fmt: skip
    path = tmp_path / "rows" / "run.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")

    # a hand-made rows file is no sealed run's: the same rows pass only when allowed
    assert main(["report", str(tmp_path), "--gate"]) == 1
    captured = capsys.readouterr()
    assert f"ghxbench report: UNVERIFIED: {path}: rows without their run's plan" in captured.err
    assert "FAILED (unverified: " in _verdict(captured.out)
    assert main(["report", str(tmp_path), "--gate", "--allow-unverified"]) == 0
    out = capsys.readouterr().out
    assert _verdict(out) == (
        "ghxbench verdict: gate verify_pr (ghx vs agent_direct) PASSED (10/10 checks) -> exit 0"
    )
    # every scenario: tokens 1000 -> 600 (40%), latency 1000 -> 500 (50%), tools 10 -> 2 (80%)
    checks = {
        line.split()[1]: line.split() for line in out.splitlines() if line[:5] in ("PASS ", "FAIL ")
    }
    assert checks["efficiency_tokens_active_reduction"][2] == "40.0%"
    assert checks["efficiency_latency_reduction"][2] == "50.0%"
    assert checks["efficiency_tool_call_reduction"][2] == "80.0%"
    assert checks["efficiency_cost_reduction"][2:4] == ["min", "50.0%"]  # of the scenarios


def test_the_report_summarizes_exactly_what_read_rows_reads(tmp_path, make_row):
    from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES
    from pytest_ghxbench.metrics.summary import build_summary
    from pytest_ghxbench.records.jsonl import read_rows

    rows = [
        make_row(mode=mode, scenario_id=f"s-{s:03d}", iteration=i, latency_ms_wall=100.0 * (i + s))
        for mode in ("agent_direct", "ghx")
        for s in range(3)
        for i in range(3)
    ]
    rows[1]["tool_calls"] = "7"  # converted by Row, so read past the fast path
    rows[2].update(mode="baseline", retry_count=1, adapter="oracle", backend="sandbox")
    del rows[2]["external_retry_count"]
    rows[-1]["git"] = {"repo": None, "commit": "def456"}
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + "{bad\n", "utf-8")

    assert main(["report", str(path), "--summary-json", str(tmp_path / "s.json")]) == 0

    summary = json.loads((tmp_path / "s.json").read_text("utf-8"))
    expected = build_summary(
        read_rows([path]).rows,
        profile=BUILTIN_PROFILES["verify_pr"],
        baseline="agent_direct",
        candidate="ghx",
        generated_at=summary["generated_at"],
    ).to_json_dict()
    assert {key: summary[key] for key in ("modes", "scenarios", "delta", "gate")} == {
        key: expected[key] for key in ("modes", "scenarios", "delta", "gate")
    }
    assert summary["run"] == {
        "commit": ["abc123", "def456"],
        "model": "openai/gpt-test",
        "adapter": "oracle",
        "backend": "sandbox",
        "profile": "verify_pr",
        "run_ids": "run_test",
        "source_files": [str(path)],
        "baseline": "agent_direct",
        "candidate": "ghx",
        "row_count": 18,
        "unverified": [
            f"{path}: rows without their run's plan and summary (not a run directory's rows.jsonl)"
        ],
    }
    assert summary["modes"]["agent_direct"]["retry_rate"] == pytest.approx(100 / 9)
    assert summary["modes"]["agent_direct"]["median_tool_calls"] == 2


def test_report_piped_into_a_closed_reader_exits_quietly(eval_dir: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest_ghxbench", "report", str(eval_dir / "results.csv")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone long before the report prints (imports take time)
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
