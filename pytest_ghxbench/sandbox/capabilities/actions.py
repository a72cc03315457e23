"""GitHub Actions capabilities: workflows, runs, jobs, logs, artifacts and check-run annotations.

======================== =============================================== =====================
capability               input (besides ``owner``, ``name``)             data
======================== =============================================== =====================
workflow.list            ``first``, ``after``                            items{id, name, path,
                                                                         state, url}, pageInfo
workflow.get             ``workflowId`` (id, file name, path or name)    id, name, path, state,
                                                                         url
workflow_dispatch.run    ``workflowId``, ``ref``, ``inputs``             workflowId, ref,
                                                                         dispatched, runId
workflow_runs.list       ``first``, ``after``, ``branch``, ``event``,    items{id, workflowName,
                         ``status`` (a status or a conclusion),          displayTitle, status,
                         ``workflowId``                                  conclusion, event,
                                                                         headBranch, createdAt,
                                                                         url}, pageInfo
workflow_run.get         ``runId``                                       id, workflowName, ...,
                                                                         runNumber, runAttempt
workflow_run.jobs.list   ``runId``, ``first``, ``after``                 items{id, name, status,
                                                                         conclusion, startedAt,
                                                                         completedAt, url},
                                                                         pageInfo
workflow_run.artifacts   ``runId``, ``first``, ``after``                 items{id, name,
.list                                                                    sizeInBytes, expired,
                                                                         archiveDownloadUrl},
                                                                         pageInfo
workflow_run.cancel      ``runId``                                       runId, status,
                                                                         conclusion, cancelled
workflow_run.rerun_all   ``runId``                                       runId, status,
                                                                         runAttempt
workflow_run.rerun_      ``runId``                                       runId, rerunFailed,
failed                                                                   status, runAttempt
workflow_job.logs.get    ``jobId``                                       jobId, log, truncated
workflow_job.logs        ``jobId``                                       jobId, conclusion,
.analyze                                                                 truncated, failedSteps,
                                                                         summary{errorCount,
                                                                         warningCount,
                                                                         topErrorLines}
check_run.annotations    ``checkRunId``, ``first``, ``after``            items{path, startLine,
.list                                                                    endLine, level, message,
                                                                         title, details},
                                                                         pageInfo
======================== =============================================== =====================

Mutations, as on GitHub: dispatching queues a new run of the workflow on the ref's head; a
re-run starts the run's next attempt (``runAttempt`` + 1): the re-run jobs get new ids (a job's
id is also its check run's id) and are ``queued``, jobs that are not re-run keep their result,
and the run is ``queued`` again. Job lists show each job's latest attempt. Cancelling marks
every unfinished job and the run ``completed``/``cancelled``.

Errors: ``NOT_FOUND`` for an unknown repository, workflow, run, job, check run or dispatch ref;
``VALIDATION`` for dispatch inputs the workflow does not declare; ``CONFLICT`` for dispatching a
disabled workflow or one without a ``workflow_dispatch`` trigger, re-running a run that has not
completed, re-running failed jobs of a run without any, or reading logs of an unfinished job.

One deliberate difference: cancelling a run that has already completed is accepted and changes
nothing (``cancelled: false``; GitHub answers 409), so that one seeded run serves the cancel
and the re-run scenarios alike.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import (
    AFTER,
    FIRST,
    NAME,
    OWNER,
    CapabilityError,
    capability,
    input_schema,
    page,
    require_repo,
)
from pytest_ghxbench.sandbox.state import CheckRun, Conclusion, Job, Workflow, WorkflowRun, World

__all__ = [
    "MAX_LOG_CHARS",
    "check_url",
    "find_run",
    "job_url",
    "latest_checks",
    "latest_jobs",
    "rerun",
    "run_url",
]

MAX_LOG_CHARS = 60_000
"""Longer logs are cut to their last ``MAX_LOG_CHARS`` characters (failures are at the end)."""

RUN_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Workflow run id"}
JOB_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Workflow job id"}
WORKFLOW_ID: dict[str, Any] = {
    "type": ["string", "integer"],
    "minLength": 1,
    "minimum": 1,
    "description": "Workflow id, file name (ci.yml), path or name",
}
_UNFINISHED = ("queued", "in_progress", "waiting", "requested", "pending")


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


def _workflow(world: World, key: int | str) -> Workflow:
    flow = world.workflow(key)
    if flow is None and isinstance(key, str) and key.isdigit():
        flow = world.workflow(int(key))
    if flow is None:
        raise CapabilityError("NOT_FOUND", f"could not find any workflows named {key}")
    return flow


def find_run(world: World, run_id: int) -> WorkflowRun:
    """The run with this id, or a ``NOT_FOUND`` error."""
    run = world.workflow_run(run_id)
    if run is None:
        raise CapabilityError("NOT_FOUND", f"workflow run {run_id} not found")
    return run


def _job(world: World, job_id: int) -> Job:
    job = world.job(job_id)
    if job is None:
        raise CapabilityError("NOT_FOUND", f"workflow job {job_id} not found")
    return job


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


def _workflow_name(world: World, run: WorkflowRun) -> str:
    flow = next((f for f in world.workflows if f.id == run.workflow_id), None)
    return flow.name if flow is not None else run.name


def _render_workflow(world: World, flow: Workflow) -> dict[str, Any]:
    repo = world.repository
    return {
        "id": flow.id,
        "name": flow.name,
        "path": flow.path,
        "state": flow.state,
        "url": f"{repo.url}/blob/{repo.default_branch}/{flow.path}",
    }


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


# ---------------------------------------------------------------- workflows


@capability(
    "workflow.list",
    "List the repository's workflows.",
    input_schema(["owner", "name"], owner=OWNER, name=NAME, first=FIRST, after=AFTER),
)
def list_workflows(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    return page(world.workflows, input, lambda flow: _render_workflow(world, flow))


@capability(
    "workflow.get",
    "Get one workflow by id, file name (ci.yml), path or name.",
    input_schema(["owner", "name", "workflowId"], owner=OWNER, name=NAME, workflowId=WORKFLOW_ID),
)
def get_workflow(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    return _render_workflow(world, _workflow(world, input["workflowId"]))


@capability(
    "workflow_dispatch.run",
    "Trigger a workflow_dispatch run of a workflow on a branch, with its inputs.",
    input_schema(
        ["owner", "name", "workflowId", "ref"],
        owner=OWNER,
        name=NAME,
        workflowId=WORKFLOW_ID,
        ref={"type": "string", "minLength": 1, "description": "Branch to run on"},
        inputs={
            "type": "object",
            "additionalProperties": {"type": ["string", "number", "boolean"]},
            "description": "Values of the workflow's dispatch inputs",
        },
    ),
    mutates=True,
)
def dispatch_workflow(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    flow = _workflow(world, input["workflowId"])
    if flow.state != "active":
        raise CapabilityError(
            "CONFLICT", f"Cannot trigger a 'workflow_dispatch' on a disabled workflow ({flow.path})"
        )
    if not flow.dispatchable:
        raise CapabilityError(
            "CONFLICT", f"Workflow does not have 'workflow_dispatch' trigger ({flow.path})"
        )
    ref = input["ref"].removeprefix("refs/heads/")
    branch = next((b for b in world.repository.branches if b.name == ref), None)
    if branch is None:
        raise CapabilityError("NOT_FOUND", f"No ref found for: {input['ref']}")
    unexpected = sorted(set(input.get("inputs") or {}) - set(flow.dispatch_inputs))
    if unexpected:
        declared = ", ".join(flow.dispatch_inputs) or "none"
        raise CapabilityError(
            "VALIDATION",
            f"input.inputs: unexpected inputs provided: {unexpected} ({flow.path} declares: "
            f"{declared})",
        )
    now = world.tick()
    numbers = [r.run_number for r in world.workflow_runs if r.workflow_id == flow.id]
    run = WorkflowRun(
        id=world.next_id(),
        workflow_id=flow.id,
        name=flow.name,
        display_title=flow.name,
        run_number=max(numbers, default=0) + 1,
        event="workflow_dispatch",
        status="queued",
        conclusion=None,
        head_branch=branch.name,
        head_sha=branch.sha,
        actor=world.viewer,
        created_at=now,
        updated_at=now,
    )
    run.node_id = world.node("WFR", run.id)
    world.workflow_runs.append(run)
    return {
        "workflowId": str(input["workflowId"]),
        "ref": input["ref"],
        "dispatched": True,
        "runId": run.id,
    }


# ---------------------------------------------------------------- runs


@capability(
    "workflow_runs.list",
    "List workflow runs, newest first; filter by branch, event, status or workflow.",
    input_schema(
        ["owner", "name"],
        owner=OWNER,
        name=NAME,
        first=FIRST,
        after=AFTER,
        branch={"type": "string", "minLength": 1},
        event={"type": "string", "minLength": 1},
        status={
            "type": "string",
            "minLength": 1,
            "description": "A status (queued, in_progress, completed...) or a conclusion",
        },
        workflowId=WORKFLOW_ID,
    ),
)
def list_runs(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    runs = sorted(world.workflow_runs, key=lambda r: (r.created_at, r.id), reverse=True)
    if "workflowId" in input:
        flow_id = _workflow(world, input["workflowId"]).id
        runs = [r for r in runs if r.workflow_id == flow_id]
    if "branch" in input:
        runs = [r for r in runs if r.head_branch == input["branch"]]
    if "event" in input:
        runs = [r for r in runs if r.event == input["event"]]
    if "status" in input:
        runs = [r for r in runs if input["status"] in (r.status, r.conclusion)]
    return page(runs, input, lambda run: _render_run(world, run))


@capability(
    "workflow_run.get",
    "Get one workflow run: status, conclusion, branch, commit, attempt.",
    input_schema(["owner", "name", "runId"], owner=OWNER, name=NAME, runId=RUN_ID),
)
def get_run(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    run = find_run(world, input["runId"])
    return {
        **_render_run(world, run),
        "headSha": run.head_sha,
        "runNumber": run.run_number,
        "runAttempt": run.run_attempt,
        "updatedAt": run.updated_at,
        "startedAt": run.run_started_at,
    }


@capability(
    "workflow_run.jobs.list",
    "List the jobs of a workflow run (its latest attempt).",
    input_schema(
        ["owner", "name", "runId"], owner=OWNER, name=NAME, runId=RUN_ID, first=FIRST, after=AFTER
    ),
)
def list_jobs(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    run = find_run(world, input["runId"])
    return page(latest_jobs(world, run.id), input, lambda job: _render_job(world, job))


@capability(
    "workflow_run.artifacts.list",
    "List the artifacts a workflow run uploaded.",
    input_schema(
        ["owner", "name", "runId"], owner=OWNER, name=NAME, runId=RUN_ID, first=FIRST, after=AFTER
    ),
)
def list_artifacts(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    run = find_run(world, input["runId"])
    api = f"https://api.github.com/repos/{world.repository.full_name}/actions/artifacts"
    return page(
        [a for a in world.artifacts if a.run_id == run.id],
        input,
        lambda artifact: {
            "id": artifact.id,
            "name": artifact.name,
            "sizeInBytes": artifact.size_in_bytes,
            "expired": artifact.expired,
            "createdAt": artifact.created_at,
            "expiresAt": artifact.expires_at,
            "archiveDownloadUrl": f"{api}/{artifact.id}/zip",
        },
    )


@capability(
    "workflow_run.cancel",
    "Cancel a queued or in-progress workflow run.",
    input_schema(["owner", "name", "runId"], owner=OWNER, name=NAME, runId=RUN_ID),
    mutates=True,
)
def cancel_run(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    run = find_run(world, input["runId"])
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
    input_schema(["owner", "name", "runId"], owner=OWNER, name=NAME, runId=RUN_ID),
    mutates=True,
)
def rerun_all(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    run = find_run(world, input["runId"])
    rerun(world, run, failed_only=False)
    return {"runId": run.id, "status": run.status, "runAttempt": run.run_attempt}


@capability(
    "workflow_run.rerun_failed",
    "Re-run the failed jobs of a completed workflow run.",
    input_schema(["owner", "name", "runId"], owner=OWNER, name=NAME, runId=RUN_ID),
    mutates=True,
)
def rerun_failed(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    run = find_run(world, input["runId"])
    rerun(world, run, failed_only=True)
    return {
        "runId": run.id,
        "rerunFailed": True,
        "status": run.status,
        "runAttempt": run.run_attempt,
    }


# ---------------------------------------------------------------- logs and annotations


def _finished_log(world: World, input: dict[str, Any]) -> tuple[Job, str, bool]:
    require_repo(world, input)
    job = _job(world, input["jobId"])
    if job.status != "completed":
        raise CapabilityError(
            "CONFLICT", f"job {job.id} is {job.status}; logs are available once it completes"
        )
    log = job.log
    truncated = len(log) > MAX_LOG_CHARS
    return job, log[-MAX_LOG_CHARS:] if truncated else log, truncated


@capability(
    "workflow_job.logs.get",
    f"Get a finished job's log (its last {MAX_LOG_CHARS} characters when longer).",
    input_schema(["owner", "name", "jobId"], owner=OWNER, name=NAME, jobId=JOB_ID),
)
def get_job_log(world: World, input: dict[str, Any]) -> dict[str, Any]:
    job, log, truncated = _finished_log(world, input)
    return {"jobId": job.id, "log": log, "truncated": truncated}


_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+Z ?")
_ERROR = re.compile(r"##\[error\]|^E\s|\berror\b|\bfailed\b|\w+(Error|Exception)\b", re.IGNORECASE)
_WARNING = re.compile(r"##\[warning\]|\bwarning\b", re.IGNORECASE)
TOP_ERROR_LINES = 10


def analyze_log(log: str) -> dict[str, Any]:
    """Count error and warning lines of a log and quote the first distinct error lines.

    A line (its timestamp removed) is an error line if it has an ``##[error]`` marker, starts
    with pytest's ``E``, or mentions ``error``, ``failed`` or an ``...Error``/``...Exception``
    name; otherwise a warning line if it has ``##[warning]`` or ``warning``.
    """
    errors: list[str] = []
    warnings = 0
    for raw in log.splitlines():
        line = _TIMESTAMP.sub("", raw).rstrip()
        if _ERROR.search(line):
            errors.append(line)
        elif _WARNING.search(line):
            warnings += 1
    top = list(dict.fromkeys(line.strip() for line in errors))[:TOP_ERROR_LINES]
    return {"errorCount": len(errors), "warningCount": warnings, "topErrorLines": top}


@capability(
    "workflow_job.logs.analyze",
    "Summarise a finished job's log: error and warning counts, the first error lines, and "
    "the steps that failed.",
    input_schema(["owner", "name", "jobId"], owner=OWNER, name=NAME, jobId=JOB_ID),
)
def analyze_job_log(world: World, input: dict[str, Any]) -> dict[str, Any]:
    job, log, truncated = _finished_log(world, input)
    return {
        "jobId": job.id,
        "conclusion": job.conclusion,
        "truncated": truncated,
        "failedSteps": [s.name for s in job.steps if s.conclusion == "failure"],
        "summary": analyze_log(log),
    }


@capability(
    "check_run.annotations.list",
    "List the annotations (file, lines, level, message) a check run reported.",
    input_schema(
        ["owner", "name", "checkRunId"],
        owner=OWNER,
        name=NAME,
        checkRunId={"type": "integer", "minimum": 1, "description": "Check run id"},
        first=FIRST,
        after=AFTER,
    ),
)
def list_annotations(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    check = world.check_run(input["checkRunId"])
    if check is None:
        raise CapabilityError("NOT_FOUND", f"check run {input['checkRunId']} not found")
    return page(
        check.annotations,
        input,
        lambda note: {
            "path": note.path,
            "startLine": note.start_line,
            "endLine": note.end_line,
            "level": note.annotation_level,
            "message": note.message,
            "title": note.title or None,
            "details": note.raw_details or None,
        },
    )
