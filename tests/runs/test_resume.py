"""--ghx-resume: a stopped run is finished by running only what it lacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.plugin.support import atomic, setup_project

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]
EFFICIENT = {
    "agent_direct": {
        "tokens": {"input": 9000, "output": 400},
        "tool_calls": 5,
        "latency_ms": 15000,
        "cost": 0.04,
    },
    "ghx": {"tokens": {"input": 3000, "output": 200}, "tool_calls": 2, "latency_ms": 6000},
}
ARGS = ("--ghx-mode=agent_direct,ghx", "--reps=3", "--gate-profile=verify_pr")
CRASHING = {"*": EFFICIENT, "repo-view-004": {**EFFICIENT, "agent_direct": {"raise": "boom"}}}


def _run_dir(pytester: pytest.Pytester) -> Path:
    (run,) = sorted((pytester.path / ".ghxbench" / "runs").glob("run_*"))
    return run


def _lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "rows.jsonl").read_text().splitlines()]


def _stopped_run(pytester: pytest.Pytester) -> Path:
    """A run stopped by -x at a crashing agent: 19 of 24 items have a row, one a runner error."""
    setup_project(pytester, SCENARIOS, behaviour=CRASHING)
    first = pytester.runpytest(*ARGS, "-x")
    assert first.ret == 1
    run = _run_dir(pytester)
    assert len(_lines(run)) == 19
    (pytester.path / "behaviour.json").write_text(json.dumps({"*": EFFICIENT}))  # it recovers
    return run


@pytest.mark.parametrize("workers", [(), ("-p", "xdist", "-n", "2")], ids=["serial", "xdist"])
def test_resume_runs_exactly_the_missing_items_and_the_run_then_passes(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    if workers:
        pytest.importorskip("xdist")
    run = _stopped_run(pytester)
    before = _lines(run)
    crashed = [row["item_id"] for row in before if row["error"]]
    assert len(crashed) == 1 and crashed[0].endswith("repo-view-004[agent_direct-r1]")

    result = pytester.runpytest(*ARGS, f"--ghx-resume={run}", *workers)
    assert result.ret == 0, result.stdout.str()
    # under xdist the workers deselect; the controller's count has only what ran
    result.assert_outcomes(passed=6, deselected=0 if workers else 18)
    after = _lines(run)
    assert after[:19] == before  # appended, nothing rewritten
    rerun = [row["item_id"] for row in after[19:]]
    plan = json.loads((run / "run.json").read_text())["plan"]
    had_a_good_row = {row["item_id"] for row in before if not row["error"]}
    assert sorted(rerun) == sorted(set(plan) - had_a_good_row)
    assert {row["run_id"] for row in after} == {run.name}
    summary = json.loads((run / "summary.json").read_text())
    assert summary["run"]["completeness"]["complete"]
    assert summary["modes"]["agent_direct"]["runs"] == 12  # the crash's row was replaced
    assert summary["run"]["resumed_items"] == 6
    assert summary["gate"]["passed"] and "PASSED" in summary["run"]["verdict"]
    assert json.loads((run / "run.json").read_text())["resumed"][0]["items"] == 6
    assert any(p.name.endswith(".resume1.jsonl") for p in (run / "transcripts").iterdir())
    # the recomputed run reads as a verified, passing one
    report = pytester.run("ghxbench", "report", str(run), "--gate")
    assert report.ret == 0, report.stdout.str() + report.stderr.str()


def test_resume_alone_continues_the_run_as_it_was_started(pytester: pytest.Pytester) -> None:
    run = _stopped_run(pytester)
    result = pytester.runpytest(f"--ghx-resume={run}")  # modes, reps and the gate from run.json
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=6, deselected=18)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["run"]["completeness"]["complete"] and summary["gate"]["passed"]
    assert "gate verify_pr" in result.stdout.str()


def test_resume_alone_of_no_run_names_what_it_could_not_read(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour={"*": EFFICIENT})
    result = pytester.runpytest("--ghx-resume=nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--ghx-resume=nowhere: cannot read the run's modes from *run.json*"]
    )


def test_resuming_a_finished_run_runs_nothing_and_recomputes_it(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour={"*": EFFICIENT})
    assert pytester.runpytest(*ARGS).ret == 0
    run = _run_dir(pytester)
    (run / "summary.json").unlink()  # killed while writing its outputs
    result = pytester.runpytest(*ARGS, f"--ghx-resume={run}")
    assert result.ret == 0
    result.assert_outcomes(deselected=24)
    assert len(_lines(run)) == 24
    assert json.loads((run / "summary.json").read_text())["gate"]["passed"]


@pytest.mark.parametrize(
    ("target", "extra", "message"),
    [
        ("nowhere", (), "nowhere is not a run directory (it has no run.json)"),
        ("scenarios", (), "scenarios is not a run directory (it has no run.json)"),
        ("RUN", ("--ghx-model=other/model",), "was run with --ghx-model=test/scripted-1"),
        ("RUN", ("--ghx-shard=1/2",), "is not a shard; --ghx-shard=1/2 does not match it"),
    ],
)
def test_a_directory_that_cannot_be_resumed_is_one_usage_error(
    pytester: pytest.Pytester, target: str, extra: tuple[str, ...], message: str
) -> None:
    setup_project(pytester, SCENARIOS, behaviour={"*": EFFICIENT})
    if target == "RUN":
        assert pytester.runpytest(*ARGS, "--ghx-model=test/scripted-1").ret == 0
        target = str(_run_dir(pytester))
    result = pytester.runpytest(*ARGS, f"--ghx-resume={target}", *extra)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("ERROR: ghxbench: --ghx-resume: ")
    assert message in errors[0]


def test_resume_without_the_runs_selection_is_incomplete_and_says_why(
    pytester: pytest.Pytester,
) -> None:
    run = _stopped_run(pytester)
    result = pytester.runpytest(*ARGS, f"--ghx-resume={run}", "-k", "not repo-view-004")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*incomplete: 19 of 24 items ran (6 item(s) the resumed run needs were not selected*"]
    )
