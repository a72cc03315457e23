"""Copied, edited or forged rows never read as a passed gate; a whole, untouched run does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.runs.integrity import RowsSeal, verify_rows_files
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


def _report(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run("ghxbench", "report", *args)


def _verdict(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.outlines if line.startswith("ghxbench verdict:")]
    return line


def _only_run(pytester: pytest.Pytester) -> Path:
    (run,) = sorted((pytester.path / ".ghxbench" / "runs").glob("run_*"))
    return run


def test_a_whole_sealed_run_passes_and_its_copied_or_edited_rows_do_not(
    pytester: pytest.Pytester,
) -> None:
    failing = {**EFFICIENT, "ghx": {**EFFICIENT["ghx"], "answer": "no"}}
    setup_project(pytester, SCENARIOS, behaviour={"*": EFFICIENT, "repo-view-004": failing})
    assert pytester.runpytest(*ARGS).ret == 1  # ghx fails one scenario in 4: 25 pp drop
    run = _only_run(pytester)
    seal = json.loads((run / "summary.json").read_text())["run"]["integrity"]
    assert seal == {"rows_digest": RowsSeal.of_file(run / "rows.jsonl").digest, "rows_count": 24}

    report = _report(pytester, "--latest", "--gate")
    assert report.ret == 1 and "UNVERIFIED" not in report.stderr.str()

    # the failing rows dropped from the run's own file: the seal no longer matches
    kept = [
        line
        for line in (run / "rows.jsonl").read_text().splitlines(keepends=True)
        if '"success":false' not in line.replace(" ", "")
    ]
    (run / "rows.jsonl").write_text("".join(kept))
    edited = _report(pytester, "--latest", "--gate")
    assert edited.ret == 1
    assert f"UNVERIFIED: run {run.name}: rows.jsonl changed after the run (21 rows" in (
        edited.stderr.str()
    )
    assert "FAILED (unverified: run " in _verdict(edited)
    # with the flag the edited rows are reported, and then they pass: the user said so
    assert _report(pytester, "--latest", "--gate", "--allow-unverified").ret == 0

    # the same rows copied out of their run directory (a CI artifact of the rows alone)
    copy = pytester.path / "COPY"
    copy.mkdir()
    shutil.copy(run / "rows.jsonl", copy / "rows.jsonl")
    copied = _report(pytester, str(copy / "rows.jsonl"), "--gate")
    assert copied.ret == 1
    assert "rows without their run's plan and summary" in copied.stderr.str()


def test_forged_rows_under_other_run_ids_are_not_pooled_into_a_pass(
    pytester: pytest.Pytester,
) -> None:
    failing = {**EFFICIENT, "ghx": {**EFFICIENT["ghx"], "answer": "no"}}
    setup_project(pytester, SCENARIOS, behaviour={"*": failing})
    assert pytester.runpytest(*ARGS).ret == 1
    run = _only_run(pytester)
    forged: list[dict[str, Any]] = []
    for line in (run / "rows.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["mode"] == "ghx":
            row.update(run_id="run_forged", success=True, output_valid=True, error=None)
            row["item_id"] += "-forged"
            forged += [row] * 3
    (pytester.path / "forged.jsonl").write_text("".join(json.dumps(r) + "\n" for r in forged))
    pooled = _report(pytester, str(run), "forged.jsonl", "--gate")
    assert pooled.ret == 1, pooled.stdout.str()
    err = pooled.stderr.str()
    assert "forged.jsonl: rows without their run's plan and summary" in err


def test_rows_of_two_sealed_runs_are_pooled_only_when_allowed(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour={"*": EFFICIENT})
    assert pytester.runpytest(*ARGS, "-k", "repo-view-001 or repo-view-002").ret == 0
    assert pytester.runpytest(*ARGS, "-k", "repo-view-003 or repo-view-004").ret == 0
    runs = sorted((pytester.path / ".ghxbench" / "runs").glob("run_*"))
    pooled = _report(pytester, *map(str, runs), "--gate")
    assert pooled.ret == 1
    assert "the rows of 2 runs" in pooled.stderr.str() and "ghxbench merge" in pooled.stderr.str()
    assert _report(pytester, *map(str, runs), "--gate", "--allow-unverified").ret == 0


def test_a_run_from_before_plans_and_seals_reads_as_unverified(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "run_old"
    run.mkdir(parents=True)
    (run / "run.json").write_text(
        json.dumps({"run_id": "run_old", "started_at": "x", "adapter": "a"})
    )
    (run / "rows.jsonl").write_text("")
    (run / "summary.json").write_text(
        json.dumps({"generated_at": "x", "gate": {"profile": "p", "baseline": "a",
                    "candidate": "b", "evaluated": False}})
    )  # fmt: skip
    assert verify_rows_files([run / "rows.jsonl"]).problems == [
        "run run_old: run.json records no plan (written before plans were recorded)"
    ]
    spec = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**spec, "plan": [], "plan_digest": "sha256:0"}))
    assert verify_rows_files([run / "rows.jsonl"]).problems == [
        "run run_old: summary.json records no seal of its rows (written before rows were sealed)"
    ]
