"""``gh run`` and ``gh workflow`` in the sandbox."""

from __future__ import annotations

import json

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.state import World

FAILED_RUN = "13500000003"


def gh(world: World, *argv: str) -> tuple[int, str, str, bool]:
    result = run_gh(world, argv)
    return result.exit_code, result.stdout, result.stderr, result.mutated


def test_run_list_rows(world: World) -> None:
    code, out, _, _ = gh(world, "run", "list", "-L", "1")
    assert code == 0
    assert out == (
        "completed\tfailure\tRelease the compaction lock before writing snapshots\tCI\t"
        "fix/compaction-lock\tpull_request\t13500000003\t6m32s\t2026-02-27T16:42:30Z\n"
    )


def test_run_list_json_and_filters(world: World) -> None:
    out = gh(world, "run", "list", "--workflow", "ci.yml", "--json", "databaseId,conclusion")[1]
    assert json.loads(out) == [
        {"conclusion": "failure", "databaseId": 13500000003},
        {"conclusion": "success", "databaseId": 13500000002},
    ]
    out = gh(world, "run", "list", "--status", "failure", "--json", "databaseId")[1]
    assert json.loads(out) == [{"databaseId": 13500000003}]


def test_run_view_summary_with_failed_job_steps_and_annotations(world: World) -> None:
    code, out, _, _ = gh(world, "run", "view", FAILED_RUN)
    assert code == 0
    assert "\nX fix/compaction-lock CI #7 · 13500000003\n" in out
    assert "JOBS\n✓ lint in 51s (ID 37800000005)\n" in out
    assert "X test (3.12) in 6m20s (ID 37800000007)\n  ✓ Set up job\n" in out
    assert "  X Run pytest\n" in out
    assert (
        "ANNOTATIONS\nX AssertionError: assert not True\ntest (3.12): tests/test_compaction.py#8\n"
        in out
    )
    assert "ARTIFACTS\ncoverage-3.11\ntest-results-3.12\n" in out
    assert out.endswith(
        "View this run on GitHub: https://github.com/acme-labs/tinykv/actions/runs/13500000003\n"
    )


def test_run_view_exit_status(world: World) -> None:
    assert gh(world, "run", "view", FAILED_RUN, "--exit-status")[0] == 1
    assert gh(world, "run", "view", "13500000002", "--exit-status")[0] == 0


def test_run_view_log_failed_shows_only_the_failing_step(world: World) -> None:
    code, out, _, _ = gh(world, "run", "view", FAILED_RUN, "--log-failed")
    assert code == 0
    lines = out.splitlines()
    assert lines and all(line.startswith("test (3.12)\tRun pytest\t") for line in lines)
    assert any("AssertionError: assert not True" in line for line in lines)
    assert not any("Successfully set up CPython" in line for line in lines)


def test_run_view_job_log_has_job_and_step_columns(world: World) -> None:
    out = gh(world, "run", "view", "--job", "37800000005", "--log")[1]
    assert out.splitlines() == [
        "lint\tRun ruff check .\t2026-02-27T16:43:25.4Z ##[group]Run ruff check .",
        "lint\tRun ruff check .\t2026-02-27T16:43:30.9Z All checks passed!",
    ]


def test_run_view_job_summary(world: World) -> None:
    out = gh(world, "run", "view", "--job", "37800000007")[1]
    assert "X test (3.12) in 6m20s (ID 37800000007)\n" in out
    assert "To see the full job log, try: gh run view --log --job=37800000007\n" in out


def test_run_view_json_jobs(world: World) -> None:
    out = gh(world, "run", "view", FAILED_RUN, "--json", "jobs,attempt,workflowName")[1]
    data = json.loads(out)
    assert data["attempt"] == 1 and data["workflowName"] == "CI"
    failed = [j for j in data["jobs"] if j["conclusion"] == "failure"]
    assert [j["databaseId"] for j in failed] == [37800000007]
    assert [s["name"] for s in failed[0]["steps"] if s["conclusion"] == "failure"] == ["Run pytest"]


def test_run_view_unknown_run(world: World) -> None:
    code, _, err, _ = gh(world, "run", "view", "1")
    assert code == 1 and err.startswith("failed to get run: HTTP 404: Not Found")


def test_rerun_failed_starts_attempt_two(world: World) -> None:
    code, _, err, mutated = gh(world, "run", "rerun", FAILED_RUN, "--failed")
    assert (code, mutated) == (0, True)
    assert err == "✓ Requested rerun (failed jobs) of run 13500000003\n"
    run = world.workflow_run(13500000003)
    assert run is not None and (run.run_attempt, run.status) == (2, "queued")
    code, _, err, _ = gh(world, "run", "rerun", FAILED_RUN)
    assert code == 1 and "cannot be rerun" in err


def test_cancel_reports_submission(world: World) -> None:
    assert gh(world, "run", "rerun", FAILED_RUN)[0] == 0
    code, _, err, mutated = gh(world, "run", "cancel", FAILED_RUN)
    assert (code, mutated) == (0, True)
    assert err == "✓ Request to cancel workflow 13500000003 submitted.\n"
    run = world.workflow_run(13500000003)
    assert run is not None and (run.status, run.conclusion) == ("completed", "cancelled")


def test_workflow_list_hides_disabled_unless_all(world: World) -> None:
    assert gh(world, "workflow", "list")[1] == "CI\tactive\t98765001\nRelease\tactive\t98765002\n"
    every = json.loads(gh(world, "workflow", "list", "--all", "--json", "name,state")[1])
    assert {"name": "Docs", "state": "disabled_manually"} in every


def test_workflow_view_summary(world: World) -> None:
    out = gh(world, "workflow", "view", "ci.yml")[1]
    assert out.startswith("CI - ci.yml\nID: 98765001\n\nTotal runs 2\nRecent runs\n")


def test_workflow_run_dispatches_with_inputs(world: World) -> None:
    before = len(world.workflow_runs)
    code, out, err, mutated = gh(
        world, "workflow", "run", "ci.yml", "--ref", "main", "-f", "channel=stable"
    )
    assert (code, mutated) == (0, True)
    assert err.startswith("✓ Created workflow_dispatch event for ci.yml at main\n")
    run = world.workflow_runs[-1]
    assert len(world.workflow_runs) == before + 1 and run.event == "workflow_dispatch"
    assert out == f"https://github.com/acme-labs/tinykv/actions/runs/{run.id}\n"


def test_workflow_run_of_disabled_workflow_fails(world: World) -> None:
    code, _, err, _ = gh(world, "workflow", "run", "docs.yml")
    assert code == 1 and "disabled workflow" in err


def test_workflow_unknown(world: World) -> None:
    code, _, err, _ = gh(world, "workflow", "view", "nope.yml")
    assert (code, err) == (1, "could not find any workflows named nope.yml\n")
