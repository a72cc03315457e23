"""The plan in run.json, and --ghx-shard: deterministic shares of whole scenarios."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.runs.plan import plan_digest
from pytest_ghxbench.runs.shard import split_plan
from pytest_ghxbench.shard_spec import ShardSpec, ShardSpecError, parse_shard
from tests.plugin.support import atomic, setup_project

SCENARIOS = [atomic(f"repo-view-00{i}", timeout_ms=10_000 * i) for i in range(1, 7)]
ARGS = ("--ghx-mode=agent_direct,mcp", "--reps=2")  # no gate: ghx does not run


def _runs(pytester: pytest.Pytester, results: str = ".ghxbench") -> list[Path]:
    return sorted((pytester.path / results / "runs").glob("run_*"))


def _spec(run: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run / "run.json").read_text())
    return data


def _row_items(run: Path) -> list[str]:
    return [json.loads(line)["item_id"] for line in (run / "rows.jsonl").read_text().splitlines()]


def test_run_json_records_the_selection_after_k_as_the_plan(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS)
    result = pytester.runpytest(*ARGS, "-k", "not repo-view-006 and not mcp-r2")
    assert result.ret == 0
    (run,) = _runs(pytester)
    spec = _spec(run)
    assert len(spec["plan"]) == 5 * 3  # 5 scenarios x (agent_direct r1, r2, mcp r1)
    assert not any("repo-view-006" in item or "mcp-r2" in item for item in spec["plan"])
    assert spec["plan_digest"] == plan_digest(spec["plan"])
    assert spec["shard"] is None
    assert sorted(_row_items(run)) == sorted(spec["plan"])
    assert not (run / ".plan.json").exists()


@pytest.mark.parametrize("spec", ["4/3", "0/2", "a/b", "1/0", "2", "-1/2"])
def test_a_bad_shard_spec_is_one_usage_error(pytester: pytest.Pytester, spec: str) -> None:
    setup_project(pytester, SCENARIOS)
    result = pytester.runpytest(*ARGS, f"--ghx-shard={spec}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [f"ERROR: ghxbench: --ghx-shard {_why(spec)}, got {spec!r}"]
    assert not _runs(pytester)


def _why(spec: str) -> str:
    try:
        parse_shard(spec)
    except ShardSpecError as exc:
        return str(exc).rsplit(", got ", 1)[0]
    raise AssertionError(f"{spec} parsed")


def test_three_shards_cover_the_plan_once_with_whole_scenarios(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS)
    shares = []
    for index in (1, 2, 3):
        result = pytester.runpytest(*ARGS, f"--ghx-shard={index}/3", f"--ghx-results=s{index}")
        assert result.ret == 0, result.stdout.str()
        (run,) = _runs(pytester, f"s{index}")
        spec = _spec(run)
        assert spec["shard"]["index"] == index and spec["shard"]["count"] == 3
        assert spec["shard"]["balanced_by"] == "timeouts"
        assert sorted(_row_items(run)) == sorted(spec["shard"]["items"])
        shares.append((spec["plan_digest"], spec["plan"], spec["shard"]["items"]))
    digests, plans, items = zip(*shares, strict=True)
    assert len(set(digests)) == 1 and all(plan == plans[0] for plan in plans)
    flat = [item for share in items for item in share]
    assert sorted(flat) == sorted(plans[0]) and len(flat) == len(set(flat)) == 24
    for share in items:
        scenarios = {item.split("::")[-1].split("[")[0] for item in share}
        for scenario in scenarios:  # every mode and repetition of it, here
            assert sum(scenario in item for item in share) == 4
    # balanced by timeouts (10..60 s per scenario): 6+1, 5+2, 4+3
    weights = [
        sorted(int(i.split("[")[0][-1]) for i in {x.split("::")[-1] for x in s}) for s in items
    ]
    assert sorted(map(sum, ({*w} for w in weights))) == [7, 7, 7]


def test_a_shard_runs_its_items_under_xdist_and_records_the_plan(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    setup_project(pytester, SCENARIOS)
    serial = pytester.runpytest(*ARGS, "--ghx-shard=2/3", "--ghx-results=serial")
    parallel = pytester.runpytest(
        *ARGS, "--ghx-shard=2/3", "--ghx-results=parallel", "-p", "xdist", "-n", "2"
    )
    assert serial.ret == parallel.ret == 0, parallel.stdout.str()
    (one,) = _runs(pytester, "serial")
    (two,) = _runs(pytester, "parallel")
    assert {k: v for k, v in _spec(one).items() if k in ("plan", "plan_digest", "shard")} == {
        k: v for k, v in _spec(two).items() if k in ("plan", "plan_digest", "shard")
    }
    assert sorted(_row_items(two)) == sorted(_spec(two)["shard"]["items"])
    completeness = json.loads((two / "summary.json").read_text())["run"]["completeness"]
    assert completeness["complete"] and completeness["expected_items"] == 8
    assert not (two / ".plan.json").exists()


def test_durations_of_an_earlier_run_balance_the_shards(pytester: pytest.Pytester) -> None:
    # timeouts say 6 > 5 > ... but the earlier run says repo-view-001 took longest by far
    latency = {f"repo-view-00{i}": {"*": {"latency_ms": 100 * i}} for i in range(1, 7)}
    latency["repo-view-001"] = {"*": {"latency_ms": 10_500}}  # within its 10 s deadline + 1 s
    setup_project(pytester, SCENARIOS, behaviour=latency)
    assert pytester.runpytest(*ARGS, "--ghx-results=earlier").ret == 0
    (earlier,) = _runs(pytester, "earlier")
    result = pytester.runpytest(
        *ARGS, "--ghx-shard=1/2", f"--ghx-shard-durations={earlier}", "--ghx-results=now"
    )
    assert result.ret == 0
    (run,) = _runs(pytester, "now")
    shard = _spec(run)["shard"]
    assert shard["balanced_by"] == f"durations of {earlier}"
    assert {item.split("::")[-1].split("[")[0] for item in shard["items"]} == {"repo-view-001"}


def test_shard_durations_from_a_directory_that_is_no_run_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS)
    (pytester.path / "empty").mkdir()
    result = pytester.runpytest(*ARGS, "--ghx-shard=1/2", "--ghx-shard-durations=empty")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ghxbench: --ghx-shard-durations: *empty is not a run*"])


def test_split_is_deterministic_and_ties_go_to_the_lower_shard() -> None:
    items = [f"s.yaml::sc-{n:03d}[ghx-r1]" for n in range(1, 6)]
    first = split_plan(items, 2, lambda item: 1.0)
    assert first == split_plan(list(items), 2, lambda item: 1.0)
    assert [len(share) for share in first] == [3, 2]
    assert split_plan(items, 7, lambda item: 1.0)[5:] == [[], []]  # more shards than scenarios
    assert parse_shard(" 2 / 4 ") == ShardSpec(2, 4)


def test_a_shard_fails_only_for_what_went_wrong_in_it_not_for_its_partial_gate(
    pytester: pytest.Pytester,
) -> None:
    """Its scenarios are a part of the plan: the gate over them decides nothing (the merge
    gates the whole); an incomplete shard still fails."""
    setup_project(pytester, SCENARIOS)
    args = ("--ghx-mode=agent_direct,ghx", "--reps=2", "--gate-profile=verify_pr")
    result = pytester.runpytest(*args, "--ghx-shard=1/3")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["ghxbench verdict: *FAILED (*) -> exit 0 (shard 1/3: ghxbench merge gates the whole plan)"]
    )
    interrupted = pytester.runpytest(*args, "--ghx-shard=3/3", "--ghx-budget-tokens=1")
    assert interrupted.ret == 1
    interrupted.stdout.fnmatch_lines(["*incomplete: 1 of 8 items ran (budget exhausted)*"])
