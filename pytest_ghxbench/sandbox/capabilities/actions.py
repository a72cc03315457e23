"""GitHub Actions capabilities: workflow runs, their jobs and artifacts, cancelling, re-runs.

Every input also has ``owner`` and ``name`` (the repository); lists take ``first`` / ``after``
and return ``{items, pageInfo}``. Workflows and dispatching are in :mod:`.workflows`, job logs
and check-run annotations in :mod:`.ci_logs`.

- ``workflow_runs.list`` (filters ``branch``, ``event``, ``status`` (a status or a conclusion),
  ``workflowId``; newest first) → items{id, workflowName, displayTitle, status, conclusion,
  event, headBranch, createdAt, url}
- ``workflow_run.get`` (``runId``) → the list fields plus headSha, runNumber, runAttempt,
  updatedAt, startedAt
- ``workflow_run.jobs.list`` (``runId``) → items{id, name, status, conclusion, startedAt,
  completedAt, url}
- ``workflow_run.artifacts.list`` (``runId``) → items{id, name, sizeInBytes, expired,
  createdAt, expiresAt, archiveDownloadUrl}
- ``workflow_run.cancel`` (``runId``) → runId, status, conclusion, cancelled
- ``workflow_run.rerun_all`` (``runId``) → runId, status, runAttempt
- ``workflow_run.rerun_failed`` (``runId``) → runId, rerunFailed, status, runAttempt

Mutations, as on GitHub: a re-run starts the run's next attempt (``runAttempt`` + 1): the
re-run jobs get new ids (a job's id is also its check run's id) and are ``queued``, jobs not
re-run keep their result, and the run is ``queued`` again. Job lists show each job's latest
attempt. Cancelling marks every unfinished job and the run ``completed``/``cancelled``.

Errors: ``NOT_FOUND`` for an unknown repository, workflow or run; ``CONFLICT`` for re-running a
run that has not completed and re-running the failed jobs of a run without any.

One deliberate difference: cancelling a run that has already completed is accepted and changes
nothing (``cancelled: false``; GitHub answers 409), so that one seeded run serves the cancel
and the re-run scenarios alike.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import (
    AFTER,
    FIRST,
    CapabilityError,
    capability,
    repo_schema,
    require_repo,
)
from pytest_ghxbench.sandbox.state import CheckRun, Conclusion, Job, WorkflowRun, World

__all__ = [
    "RUN_ID",
    "check_bucket",
    "check_url",
    "find_run",
    "job_url",
    "latest_checks",
    "latest_jobs",
    "rerun",
    "run_url",
]

RUN_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Workflow run id"}
BY_RUN = repo_schema("runId", runId=RUN_ID)
RUN_PAGE = repo_schema("runId", runId=RUN_ID, first=FIRST, after=AFTER)


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
        raise CapabilityError("NOT_FOUND", f"workflow run {run_id} not found")
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
}


def check_bucket(check: CheckRun) -> str:
    """gh's grouping of a check: pass, fail, pending, skipping or cancel."""
    return _BUCKETS.get((check.conclusion or "").upper(), "pending")


def _workflow_name(world: World, run: WorkflowRun) -> str:
    flow = next((f for f in world.workflows if f.id == run.workflow_id), None)
    return flow.name if flow is not None else run.name


def _render_run(world: World, run: WorkflowRun) -> dict[str, Any]:
    return {
        "id": run.id,
        "workflowName": _workflow_name(world, run),
        "displayTitle": run.display_title or run.name,
        "status": run.status,
        "conclusion": run.conclusion,
        "event": run.event,
        "headBranch": run.head_branch,
        "createdAt": run.created_at,
        "url": run_url(world, run.id),
    }


def _render_job(world: World, job: Job) -> dict[str, Any]:
    return {
        "id": job.id,
        "name": job.name,
        "status": job.status,
        "conclusion": job.conclusion,
        "startedAt": job.started_at,
        "completedAt": job.completed_at,
        "url": job_url(world, job),
    }


# ---------------------------------------------------------------- runs


@capability(
    "workflow_run.cancel",
    "Cancel a queued or in-progress workflow run.",
    BY_RUN,
    mutates=True,
)
def cancel_run(world: World, input: dict[str, Any]) -> dict[str, Any]:
    run = _run(world, input)
    cancelled = run.status != "completed"
    if cancelled:
        now = world.tick()
        for job in latest_jobs(world, run.id):
            if job.status != "completed":
                _finish(world, job, "cancelled", now)
        run.status, run.conclusion, run.updated_at = "completed", "cancelled", now
    return {
        "runId": run.id,
        "status": run.status,
        "conclusion": run.conclusion,
        "cancelled": cancelled,
    }


def _finish(world: World, job: Job, conclusion: Conclusion, now: str) -> None:
    job.status, job.conclusion, job.completed_at = "completed", conclusion, now
    check = world.check_run(job.check_run_id) if job.check_run_id is not None else None
    if check is not None:
        check.status, check.conclusion, check.completed_at = "completed", job.conclusion, now


_FAILED = ("failure", "cancelled", "timed_out", "startup_failure")


def rerun(world: World, run: WorkflowRun, *, failed_only: bool) -> list[Job]:
    """Start the run's next attempt, re-running all its jobs or only the failed ones.

    Returns the new (queued) jobs. Raises ``CONFLICT`` if the run has not completed, or if only
    failed jobs are asked for and none failed.
    """
    if run.status != "completed":
        raise CapabilityError(
            "CONFLICT", f"workflow run {run.id} is {run.status}; only a completed run can re-run"
        )
    jobs = latest_jobs(world, run.id)
    if failed_only:
        jobs = [j for j in jobs if j.conclusion in _FAILED]
        if not jobs:
            raise CapabilityError("CONFLICT", f"workflow run {run.id} has no failed jobs to re-run")
    now = world.tick()
    fresh = []
    for old in jobs:
        job_id = world.next_id()
        job = Job(
            id=job_id,
            run_id=run.id,
            name=old.name,
            node_id=world.node("CR", job_id),
            status="queued",
            conclusion=None,
            runner_name=old.runner_name,
            check_run_id=job_id,
        )
        world.jobs.append(job)
        world.check_runs.append(
            CheckRun(
                id=job_id,
                name=old.name,
                head_sha=run.head_sha,
                node_id=job.node_id,
                status="queued",
                conclusion=None,
                job_id=job_id,
            )
        )
        fresh.append(job)
    run.run_attempt += 1
    run.status, run.conclusion = "queued", None
    run.updated_at = run.run_started_at = now
    return fresh


@capability(
    "workflow_run.rerun_all",
    "Re-run every job of a completed workflow run.",
    BY_RUN,
    mutates=True,
)
def rerun_all(world: World, input: dict[str, Any]) -> dict[str, Any]:
    run = _run(world, input)
    rerun(world, run, failed_only=False)
    return {"runId": run.id, "status": run.status, "runAttempt": run.run_attempt}


@capability(
    "workflow_run.rerun_failed",
    "Re-run the failed jobs of a completed workflow run.",
    BY_RUN,
    mutates=True,
)
def rerun_failed(world: World, input: dict[str, Any]) -> dict[str, Any]:
    run = _run(world, input)
    rerun(world, run, failed_only=True)
    return {
        "runId": run.id,
        "rerunFailed": True,
        "status": run.status,
        "runAttempt": run.run_attempt,
    }
