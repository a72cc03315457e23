"""World operations of GitHub Actions: dispatching, cancelling and re-running workflow
runs; and the lookups the API shares (a run's latest jobs, a commit's latest checks).
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.errors import Conflict, GitHubError, NotFound
from pytest_ghxbench.sandbox.operations.registry import operation, require_repo
from pytest_ghxbench.sandbox.operations.run_progress import finish_job, replay_plan, start_attempt
from pytest_ghxbench.sandbox.state import CheckRun, Job, WorkflowRun, World

__all__ = [
    "check_bucket",
    "check_url",
    "find_run",
    "job_url",
    "latest_checks",
    "latest_jobs",
    "rerun",
    "run_url",
]


# ---------------------------------------------------------------- lookups and rendering


def run_url(world: World, run_id: int) -> str:
    """The run's page on GitHub."""
    return f"{world.repository.url}/actions/runs/{run_id}"


def job_url(world: World, job: Job) -> str:
    """The job's page on GitHub."""
    return f"{run_url(world, job.run_id)}/job/{job.id}"


def check_url(world: World, check: CheckRun) -> str:
    """An Actions check links to its job; other apps' checks to the check run page."""
    job = world.job(check.job_id) if check.job_id is not None else None
    if job is not None:
        return job_url(world, job)
    return f"{world.repository.url}/runs/{check.id}"


def find_run(world: World, run_id: int) -> WorkflowRun:
    """The run with this id, or a ``NOT_FOUND`` error."""
    run = world.workflow_run(run_id)
    if run is None:
        raise NotFound(f"workflow run {run_id} not found")
    return run


def _run(world: World, input: dict[str, Any]) -> WorkflowRun:
    require_repo(world, input)
    return find_run(world, input["runId"])


def latest_jobs(world: World, run_id: int) -> list[Job]:
    """The run's jobs of its latest attempt: per job name the one added last, in the order
    the names first appear (ids cannot tell: seeded ids may exceed the ids handed out later)."""
    newest: dict[str, Job] = {}
    for job in world.jobs:
        if job.run_id == run_id:
            newest[job.name] = job
    return list(newest.values())


def latest_checks(world: World, head_sha: str) -> list[CheckRun]:
    """The check runs of a commit, only the one added last per app and name (as a PR's rollup
    shows)."""
    newest: dict[tuple[str, str], CheckRun] = {}
    for check in world.check_runs:
        if check.head_sha == head_sha:
            newest[(check.app, check.name)] = check
    return list(newest.values())


_BUCKETS = {
    "SUCCESS": "pass",
    "NEUTRAL": "skipping",
    "SKIPPED": "skipping",
    "CANCELLED": "cancel",
    "FAILURE": "fail",
    "TIMED_OUT": "fail",
    "ACTION_REQUIRED": "fail",
    "STARTUP_FAILURE": "fail",
    "ERROR": "fail",  # a commit status's state
}


def check_bucket(check: CheckRun) -> str:
    """How a check counts towards a pull request's rollup and mergeability, by its conclusion:
    pass, fail, pending, skipping or cancel."""
    return _BUCKETS.get((check.conclusion or "").upper(), "pending")


# ---------------------------------------------------------------- runs


@operation("actions/cancel-workflow-run")
def cancel_run(world: World, input: dict[str, Any]) -> dict[str, Any]:
    run = _run(world, input)
    if run.status == "completed":
        raise GitHubError(409, "Cannot cancel a workflow run that is completed.")
    now = world.tick()
    for job in latest_jobs(world, run.id):
        if job.status != "completed":
            finish_job(world, job, "cancelled", now)
    run.status, run.conclusion, run.updated_at = "completed", "cancelled", now
    run.progresses = False
    return {
        "runId": run.id,
        "status": run.status,
        "conclusion": run.conclusion,
        "cancelled": True,
    }


_FAILED = ("failure", "cancelled", "timed_out", "startup_failure")


def rerun(
    world: World, run: WorkflowRun, *, failed_only: bool = False, job_id: int | None = None
) -> list[Job]:
    """Start the run's next attempt, re-running all its jobs, only the failed ones, or only the
    job ``job_id``. Each re-run job will conclude as the job it re-runs did
    (:mod:`.run_progress`); the others keep their results.

    Returns the new (queued) jobs. GitHub's ``403`` if the run has not completed;
    ``CONFLICT`` if only failed jobs are asked for and none failed.
    """
    if run.status != "completed":
        raise GitHubError(403, "This workflow is already running")
    jobs = latest_jobs(world, run.id)
    if failed_only:
        jobs = [j for j in jobs if j.conclusion in _FAILED]
        if not jobs:
            raise Conflict(f"workflow run {run.id} has no failed jobs to re-run")
    if job_id is not None:
        jobs = [j for j in jobs if j.id == job_id]
    for job in world.jobs:
        if job.run_id == run.id and job.run_attempt is None:
            job.run_attempt = run.run_attempt
    now = world.tick()
    run.run_attempt += 1
    return start_attempt(world, run, replay_plan(jobs), now)


@operation("actions/re-run-workflow")
def rerun_all(world: World, input: dict[str, Any]) -> dict[str, Any]:
    run = _run(world, input)
    rerun(world, run, failed_only=False)
    return {"runId": run.id, "status": run.status, "runAttempt": run.run_attempt}


@operation("actions/re-run-workflow-failed-jobs")
def rerun_failed(world: World, input: dict[str, Any]) -> dict[str, Any]:
    run = _run(world, input)
    rerun(world, run, failed_only=True)
    return {
        "runId": run.id,
        "rerunFailed": True,
        "status": run.status,
        "runAttempt": run.run_attempt,
    }
