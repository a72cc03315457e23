"""ghxbench merge: shards of one plan become one run with one gate; anything else is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.plugin.support import atomic, setup_project

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 4)]
EFFICIENT = {
    "agent_direct": {
        "tokens": {"input": 9000, "output": 400},
        "tool_calls": 5,
        "latency_ms": 15000,
        "cost": 0.04,
    },
    "ghx": {
        "tokens": {"input": 3000, "output": 200},
        "tool_calls": 2,
        "latency_ms": 6000,
        "cost": 0.01,
    },
}
ARGS = ("--ghx-mode=agent_direct,ghx", "--reps=3", "--gate-profile=verify_pr")


def _only_run(results: Path) -> Path:
    (run,) = sorted((results / "runs").glob("run_*"))
    return run


def _shards(pytester: pytest.Pytester, count: int = 3) -> list[Path]:
    runs = []
    for index in range(1, count + 1):
        pytester.runpytest(*ARGS, f"--ghx-shard={index}/{count}", f"--ghx-results=shard{index}")
        runs.append(_only_run(pytester.path / f"shard{index}"))
    return runs


def _merge(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run("ghxbench", "merge", *args)


def _summary(run: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run / "summary.json").read_text())
    return data


def _verdict(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.outlines if line.startswith("ghxbench verdict:")]
    return line


def test_three_merged_shards_are_the_unsharded_run_and_two_are_incomplete_until_resumed(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour={"*": EFFICIENT})
    whole = pytester.runpytest(*ARGS, "--ghx-results=whole")
    assert whole.ret == 0
    unsharded = _summary(_only_run(pytester.path / "whole"))
    shards = _shards(pytester)

    merged = _merge(pytester, *map(str, shards), "--out", "merged")
    assert merged.ret == 0, merged.stdout.str() + merged.stderr.str()
    out = pytester.path / "merged"
    summary = _summary(out)
    assert summary["run"]["row_count"] == unsharded["run"]["row_count"] == 18
    assert summary["gate"]["passed"] and unsharded["gate"]["passed"]
    checks = [(c["name"], c["passed"], c["value"]) for c in summary["gate"]["checks"]]
    assert checks == [(c["name"], c["passed"], c["value"]) for c in unsharded["gate"]["checks"]]
    assert summary["run"]["completeness"]["complete"]
    assert "PASSED (10/10 checks) -> exit 0" in _verdict(merged)
    spec = json.loads((out / "run.json").read_text())
    assert spec["plan_digest"] == json.loads((shards[0] / "run.json").read_text())["plan_digest"]
    assert [entry["shard"] for entry in spec["merged_from"]] == ["1/3", "2/3", "3/3"]
    assert (out / "report.html").is_file() and (out / "summary.md").is_file()
    for line in (out / "rows.jsonl").read_text().splitlines():
        assert (out / json.loads(line)["transcript"]["file"]).is_file()
    sealed = pytester.run("ghxbench", "report", "merged", "--gate")
    assert sealed.ret == 0 and "UNVERIFIED" not in sealed.stderr.str()
    assert "pooling" not in sealed.stderr.str()  # one merged run, whatever its rows' run ids

    partial = _merge(pytester, str(shards[0]), str(shards[1]), "--out", "partial")
    assert partial.ret == 1
    assert "incomplete: 12 of 18 items ran (shard(s) 3/3 not merged)" in _verdict(partial)
    partial.stdout.fnmatch_lines(["incomplete: 6 item(s) of the plan without a row*repo-view-*"])
    assert not _summary(pytester.path / "partial")["gate"]["passed"]

    resumed = pytester.runpytest(*ARGS, "--ghx-resume=partial")
    assert resumed.ret == 0, resumed.stdout.str()
    resumed.assert_outcomes(passed=6, deselected=12)
    again = _summary(pytester.path / "partial")
    assert again["run"]["completeness"]["complete"] and again["gate"]["passed"]
    assert pytester.run("ghxbench", "report", "partial", "--gate").ret == 0


def test_runs_that_cannot_be_merged_are_refused_with_one_line(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour={"*": EFFICIENT})
    one, two, _ = _shards(pytester)
    pytester.runpytest(*ARGS, "-k", "not repo-view-003", "--ghx-shard=2/3", "--ghx-results=other")
    other = _only_run(pytester.path / "other")
    pytester.runpytest(*ARGS, "--ghx-shard=1/3", "--ghx-results=again")
    again = _only_run(pytester.path / "again")
    (pytester.path / "empty").mkdir()
    cases = [
        ((str(one), str(other)), "runs of different plans: "),
        ((str(one), str(again)), "is in " + one.name + " (shard 1/3) and in " + again.name),
        (("empty",), "empty is not a run directory and holds none (no run.json)"),
    ]
    for args, message in cases:
        result = _merge(pytester, *args, "--out", "nowhere")
        assert result.ret == 4, result.stdout.str()
        errors = [line for line in result.errlines if line.strip()]
        assert len(errors) == 1 and errors[0].startswith("ghxbench merge: error: ")
        assert message in errors[0], errors[0]
        assert not (pytester.path / "nowhere").exists() or not any(
            (pytester.path / "nowhere").iterdir()
        )
    assert two.is_dir()


def test_an_unfinished_shard_is_left_out_and_the_merge_is_incomplete(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour={"*": EFFICIENT})
    shards = _shards(pytester)
    (shards[2] / "summary.json").unlink()  # killed before its summary
    results = pytester.path / "results"
    merged = _merge(pytester, *map(str, shards), "--results", str(results))
    assert merged.ret == 1
    assert f"{shards[2].name} (shard 3/3) left out: run {shards[2].name} did not finish" in (
        merged.stderr.str()
    )
    assert (results / "runs" / "latest" / "summary.json").is_file()  # a new run, now 'latest'
    taken = _merge(pytester, *map(str, shards), "--out", "taken", "--allow-unverified")
    assert taken.ret == 1  # complete, but never a pass
    assert "unverified: run " in _verdict(taken)
    shutil.rmtree(pytester.path / "taken")
