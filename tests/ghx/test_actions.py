"""ghx Actions capabilities over HTTP: workflows, runs, jobs, logs, artifacts, check-run
annotations."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from pytest_ghxbench.attempt.judge import Judgement, judge_atomic
from pytest_ghxbench.ghx.capabilities.ci_logs import MAX_LOG_CHARS, analyze_log
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.manifest import bind_input
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.ghx import conftest
from tests.ghx.conftest import error, ok, run
from tests.sandbox.conftest import external_atomic, needs_external

DOMAINS = ("workflow.", "workflow_dispatch.", "workflow_runs.", "workflow_run.", "workflow_job.")
SCENARIOS = external_atomic(*DOMAINS, "check_run.")
REPO = {"owner": "acme-labs", "name": "tinykv"}
FAILED_RUN, GREEN_RUN, RELEASE_RUN = 13500000003, 13500000002, 13500000001
FAILED_JOB = 37800000007


# ---------------------------------------------------------------- shared helpers


def github_urls(value: Any) -> Any:
    """``value`` with the served API's URLs read as github.com's (the world capabilities
    spell github.com; the server builds URLs on the host it was reached by)."""
    assert conftest._SERVER is not None
    api = conftest._SERVER.api_url.rstrip("/")
    web = api.removesuffix("/api/v3")
    if isinstance(value, str):
        return value.replace(api, "https://api.github.com").replace(web, "https://github.com")
    if isinstance(value, dict):
        return {k: github_urls(v) for k, v in value.items()}
    if isinstance(value, list):
        return [github_urls(v) for v in value]
    return value


def same_as_world(task: str, input: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`tests.ghx.conftest.assert_as_recorded`."""
    return conftest.assert_as_recorded(task, input)


def run_scenario(scenario: AtomicScenario) -> tuple[dict[str, Any], Judgement]:
    """The scenario's task on its bound input over HTTP on a fresh world, judged as ghx."""
    world = fresh_world()
    try:
        envelope = github_urls(run(world, scenario.task, bind_input(scenario, seeded().manifest)))
    finally:
        conftest.forget(world)
    judgement = judge_atomic(
        scenario, mode="ghx", final_text=json.dumps(envelope), tool_call_count=1
    )
    return envelope, judgement


def data(world: World, task: str, **input: Any) -> Any:
    return github_urls(ok(world, task, {**REPO, **input}))


def error_code(world: World, task: str, **input: Any) -> str:
    return str(error(world, task, {**REPO, **input})["code"])


def jobs(world: World, run_id: int) -> list[tuple[str, str, str | None]]:
    items = data(world, "workflow_run.jobs.list", runId=run_id)["items"]
    return [(job["name"], job["status"], job["conclusion"]) for job in items]


# ---------------------------------------------------------------- the external scenarios


@needs_external
def test_every_external_actions_scenario_is_covered() -> None:
    assert len(SCENARIOS) == 13


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.id)
def test_external_scenario_passes_in_ghx_mode(scenario: AtomicScenario) -> None:
    envelope, judgement = run_scenario(scenario)
    assert judgement.passed, judgement.failures
    assert envelope["meta"]["capability_id"] == scenario.task


# ---------------------------------------------------------------- as recorded

_DIFFERENTIAL: list[tuple[str, dict[str, Any]]] = [
    ("workflow.list", {}),
    ("workflow.list", {"first": 2}),
    ("workflow.list", {"name": "other"}),
    *[("workflow.get", {"workflowId": key}) for key in (98765001, "98765001", "ci.yml")],
    *[("workflow.get", {"workflowId": key}) for key in (".github/workflows/ci.yml", "CI")],
    ("workflow.get", {"workflowId": "docs.yml"}),
    ("workflow.get", {"workflowId": "nope.yml"}),
    ("workflow_dispatch.run", {"workflowId": "ci.yml", "ref": "main"}),
    ("workflow_dispatch.run", {"workflowId": "ci.yml", "ref": "main", "inputs": {"channel": "x"}}),
    ("workflow_dispatch.run", {"workflowId": "CI", "ref": "refs/heads/main"}),
    ("workflow_dispatch.run", {"workflowId": "missing.yml", "ref": "main"}),
    ("workflow_dispatch.run", {"workflowId": "ci.yml", "ref": "no-such-branch"}),
    ("workflow_dispatch.run", {"workflowId": "docs.yml", "ref": "main"}),
    ("workflow_dispatch.run", {"workflowId": "ci.yml", "ref": "main", "inputs": {"c": "red"}}),
    ("workflow_dispatch.run", {"workflowId": "release.yml", "ref": "main", "inputs": {"x": "y"}}),
    ("workflow_runs.list", {}),
    ("workflow_runs.list", {"first": 1}),
    ("workflow_runs.list", {"status": "failure"}),
    ("workflow_runs.list", {"status": "completed", "branch": "main"}),
    ("workflow_runs.list", {"event": "release"}),
    ("workflow_runs.list", {"workflowId": "ci.yml"}),
    ("workflow_runs.list", {"workflowId": "nope.yml"}),
    *[("workflow_run.get", {"runId": run_id}) for run_id in (FAILED_RUN, GREEN_RUN, 999)],
    *[("workflow_run.jobs.list", {"runId": run_id}) for run_id in (FAILED_RUN, RELEASE_RUN, 9)],
    ("workflow_run.jobs.list", {"runId": FAILED_RUN, "first": 2}),
    *[("workflow_run.artifacts.list", {"runId": r}) for r in (FAILED_RUN, RELEASE_RUN, 9)],
    *[("workflow_run.cancel", {"runId": run_id}) for run_id in (FAILED_RUN, 999)],
    *[("workflow_run.rerun_all", {"runId": run_id}) for run_id in (FAILED_RUN, GREEN_RUN, 999)],
    *[("workflow_run.rerun_failed", {"runId": r}) for r in (FAILED_RUN, GREEN_RUN, 999)],
    *[("workflow_job.logs.get", {"jobId": job_id}) for job_id in (FAILED_JOB, 1)],
    *[("workflow_job.logs.analyze", {"jobId": job_id}) for job_id in (FAILED_JOB, 1)],
    *[("check_run.annotations.list", {"checkRunId": c}) for c in (FAILED_JOB, 5)],
    ("check_run.annotations.list", {"checkRunId": FAILED_JOB, "first": 1}),
    ("workflow_run.get", {"runId": "13500000003"}),
]


@pytest.mark.parametrize(
    ("task", "input"), _DIFFERENTIAL, ids=[f"{t}-{i}" for i, (t, _) in enumerate(_DIFFERENTIAL)]
)
def test_same_as_the_world_capability(task: str, input: dict[str, Any]) -> None:
    same_as_world(task, {**REPO, **input})


def test_every_job_of_the_seed_has_the_same_log_and_analysis() -> None:
    for job in fresh_world().jobs:
        for task in ("workflow_job.logs.get", "workflow_job.logs.analyze"):
            same_as_world(task, {**REPO, "jobId": job.id})


# ---------------------------------------------------------------- workflows and dispatch


def test_a_workflow_is_found_by_id_file_name_path_or_name(world: World) -> None:
    for key in (98765001, "98765001", "ci.yml", ".github/workflows/ci.yml", "CI"):
        assert data(world, "workflow.get", workflowId=key)["id"] == 98765001
    assert error_code(world, "workflow.get", workflowId="nope.yml") == "NOT_FOUND"


def test_workflow_list_pages(world: World) -> None:
    first = data(world, "workflow.list", first=2)
    assert [flow["name"] for flow in first["items"]] == ["CI", "Release"]
    assert first["pageInfo"]["hasNextPage"] is True
    rest = data(world, "workflow.list", first=2, after=first["pageInfo"]["endCursor"])
    assert [(f["name"], f["state"]) for f in rest["items"]] == [("Docs", "disabled_manually")]
    assert rest["pageInfo"]["hasNextPage"] is False


def test_dispatch_queues_a_run_on_the_branch_head(world: World) -> None:
    result = data(world, "workflow_dispatch.run", workflowId="ci.yml", ref="main",
                  inputs={"channel": "stable"})  # fmt: skip
    assert result["dispatched"] is True
    newest = data(world, "workflow_runs.list", first=1)["items"][0]
    assert newest["id"] == result["runId"]
    assert (newest["event"], newest["status"], newest["conclusion"], newest["headBranch"]) == (
        "workflow_dispatch",
        "queued",
        None,
        "main",
    )
    run = data(world, "workflow_run.get", runId=result["runId"])
    assert run["runNumber"] == 219  # CI's runs so far are #211 and #218
    assert run["headSha"] == seeded().seed.commits["bench"]


def test_the_dispatch_endpoint_returns_the_run_when_asked(world: World) -> None:
    path = "/repos/acme-labs/tinykv/actions/workflows/ci.yml/dispatches"
    plain = conftest.client_for(world).request("POST", path, body={"ref": "main"})
    assert (plain.status, plain.data) == (204, None)
    asked = {"ref": "main", "return_run_details": True}
    details = conftest.client_for(world).request("POST", path, body=asked)
    assert details.status == 200
    assert details.data["workflow_run_id"] == world.workflow_runs[-1].id
    assert details.data["html_url"].endswith(f"/actions/runs/{world.workflow_runs[-1].id}")


@pytest.mark.parametrize(
    ("input", "code"),
    [
        ({"workflowId": "missing.yml", "ref": "main"}, "NOT_FOUND"),
        ({"workflowId": "ci.yml", "ref": "no-such-branch"}, "NOT_FOUND"),
        ({"workflowId": "docs.yml", "ref": "main"}, "CONFLICT"),
        ({"workflowId": "ci.yml", "ref": "main", "inputs": {"colour": "red"}}, "VALIDATION"),
        ({"workflowId": "release.yml", "ref": "main", "inputs": {"channel": "x"}}, "VALIDATION"),
        ({"workflowId": "ci.yml", "ref": "main", "inputs": {"channel": ["a"]}}, "VALIDATION"),
    ],
)
def test_dispatch_refusals(world: World, input: dict[str, Any], code: str) -> None:
    before = len(world.workflow_runs)
    assert error_code(world, "workflow_dispatch.run", **input) == code
    assert len(world.workflow_runs) == before


# ---------------------------------------------------------------- runs


def test_runs_are_listed_newest_first_and_filtered(world: World) -> None:
    def ids(**filters: Any) -> list[int]:
        return [run["id"] for run in data(world, "workflow_runs.list", **filters)["items"]]

    assert ids() == [FAILED_RUN, GREEN_RUN, RELEASE_RUN]
    assert ids(status="failure") == [FAILED_RUN]
    assert ids(status="completed") == [FAILED_RUN, GREEN_RUN, RELEASE_RUN]
    assert ids(branch="main") == [GREEN_RUN]
    assert ids(event="release") == [RELEASE_RUN]
    assert ids(workflowId="ci.yml") == [FAILED_RUN, GREEN_RUN]


def test_run_get_reports_the_failed_pr_run(world: World) -> None:
    run = data(world, "workflow_run.get", runId=FAILED_RUN)
    assert (run["workflowName"], run["status"], run["conclusion"]) == ("CI", "completed", "failure")
    assert (run["runNumber"], run["runAttempt"]) == (218, 1)
    assert run["url"] == f"https://github.com/acme-labs/tinykv/actions/runs/{FAILED_RUN}"


def test_jobs_of_the_failed_run(world: World) -> None:
    assert jobs(world, FAILED_RUN) == [
        ("lint", "completed", "success"),
        ("test (3.11)", "completed", "success"),
        ("test (3.12)", "completed", "failure"),
    ]


def test_artifacts_of_a_run(world: World) -> None:
    items = data(world, "workflow_run.artifacts.list", runId=RELEASE_RUN)["items"]
    assert [(a["name"], a["sizeInBytes"], a["expired"]) for a in items] == [("dist", 91234, True)]
    assert items[0]["archiveDownloadUrl"].endswith("/actions/artifacts/2800000003/zip")


def test_rerun_failed_starts_a_new_attempt_of_only_the_failed_job(world: World) -> None:
    result = data(world, "workflow_run.rerun_failed", runId=FAILED_RUN)
    assert result == {"runId": FAILED_RUN, "rerunFailed": True, "status": "queued", "runAttempt": 2}
    run = data(world, "workflow_run.get", runId=FAILED_RUN)
    assert (run["status"], run["conclusion"], run["runAttempt"]) == ("queued", None, 2)
    assert jobs(world, FAILED_RUN) == [
        ("lint", "completed", "success"),
        ("test (3.11)", "completed", "success"),
        ("test (3.12)", "queued", None),
    ]
    new_job = data(world, "workflow_run.jobs.list", runId=FAILED_RUN)["items"][2]
    assert new_job["id"] != FAILED_JOB
    # The first attempt's log stays readable; the new job has none until it finishes.
    assert "1 failed, 214 passed" in data(world, "workflow_job.logs.get", jobId=FAILED_JOB)["log"]
    assert error_code(world, "workflow_job.logs.get", jobId=new_job["id"]) == "CONFLICT"
    # A queued run cannot be re-run again.
    assert error_code(world, "workflow_run.rerun_failed", runId=FAILED_RUN) == "CONFLICT"


def test_rerun_all_requeues_every_job(world: World) -> None:
    result = data(world, "workflow_run.rerun_all", runId=GREEN_RUN)
    assert result == {"runId": GREEN_RUN, "status": "queued", "runAttempt": 2}
    assert jobs(world, GREEN_RUN) == [("test (3.12)", "queued", None)]


def test_rerun_failed_needs_a_failed_job(world: World) -> None:
    assert error_code(world, "workflow_run.rerun_failed", runId=GREEN_RUN) == "CONFLICT"
    assert data(world, "workflow_run.get", runId=GREEN_RUN)["runAttempt"] == 1


def test_cancel_stops_a_queued_run_and_its_jobs(world: World) -> None:
    data(world, "workflow_run.rerun_all", runId=FAILED_RUN)
    result = data(world, "workflow_run.cancel", runId=FAILED_RUN)
    assert result == {
        "runId": FAILED_RUN,
        "status": "completed",
        "conclusion": "cancelled",
        "cancelled": True,
    }
    assert {conclusion for _, _, conclusion in jobs(world, FAILED_RUN)} == {"cancelled"}


def test_cancelling_a_completed_run_changes_nothing(world: World) -> None:
    result = data(world, "workflow_run.cancel", runId=FAILED_RUN)
    assert (result["status"], result["conclusion"], result["cancelled"]) == (
        "completed",
        "failure",
        False,
    )
    assert jobs(world, FAILED_RUN)[2] == ("test (3.12)", "completed", "failure")


@pytest.mark.parametrize(
    "task",
    ["workflow_run.get", "workflow_run.jobs.list", "workflow_run.cancel", "workflow_run.rerun_all"],
)
def test_unknown_run_is_not_found(world: World, task: str) -> None:
    assert error_code(world, task, runId=999) == "NOT_FOUND"


# ---------------------------------------------------------------- logs and annotations


def test_log_analysis_of_the_failed_job(world: World) -> None:
    result = data(world, "workflow_job.logs.analyze", jobId=FAILED_JOB)
    assert (result["conclusion"], result["truncated"]) == ("failure", False)
    assert result["failedSteps"] == ["Run pytest"]
    summary = result["summary"]
    # Error lines: two pytest "E" lines, the traceback location, the FAILED summary line,
    # "1 failed, 214 passed", and the ##[error] marker.
    assert (summary["errorCount"], summary["warningCount"]) == (6, 0)
    assert summary["topErrorLines"][0] == "E       AssertionError: assert not True"
    assert summary["topErrorLines"][-1] == "##[error]Process completed with exit code 1."


def test_analyze_log_counts_warnings_and_quotes_each_error_once() -> None:
    log = "\n".join(
        [
            "2026-01-01T00:00:00.0Z ##[warning]Node 16 is deprecated",
            "2026-01-01T00:00:01.0Z ValueError: bad",
            "2026-01-01T00:00:02.0Z ValueError: bad",
            "all good",
        ]
    )
    assert analyze_log(log) == {
        "errorCount": 2,
        "warningCount": 1,
        "topErrorLines": ["ValueError: bad"],
    }


def test_long_logs_keep_their_end(world: World) -> None:
    job = world.job(FAILED_JOB)
    assert job is not None
    job.log = "x" * MAX_LOG_CHARS + "THE END"
    result = data(world, "workflow_job.logs.get", jobId=FAILED_JOB)
    assert result["truncated"] is True
    assert len(result["log"]) == MAX_LOG_CHARS and result["log"].endswith("THE END")


def test_unknown_job_is_not_found(world: World) -> None:
    assert error_code(world, "workflow_job.logs.get", jobId=1) == "NOT_FOUND"
    assert error_code(world, "workflow_job.logs.analyze", jobId=1) == "NOT_FOUND"


def test_annotations_of_the_failed_check(world: World) -> None:
    items = data(world, "check_run.annotations.list", checkRunId=FAILED_JOB)["items"]
    assert [(a["path"], a["startLine"], a["level"]) for a in items] == [
        ("tests/test_compaction.py", 12, "failure"),
        (".github", 1, "failure"),
    ]
    assert items[1]["title"] is None
    assert error_code(world, "check_run.annotations.list", checkRunId=5) == "NOT_FOUND"


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "input",
    [{"runId": "13500000003"}, {"runId": 0}, {}, {"runId": FAILED_RUN, "verbose": True}],
)
def test_bad_run_input_is_a_validation_error(world: World, input: dict[str, Any]) -> None:
    problem = error(world, "workflow_run.get", {**REPO, **input})
    assert problem["code"] == "VALIDATION"
    assert "workflow_run.get" in problem["message"]


def test_another_repository_is_not_found(world: World) -> None:
    problem = error(world, "workflow.list", {"owner": "acme-labs", "name": "other"})
    assert problem["code"] == "NOT_FOUND"
