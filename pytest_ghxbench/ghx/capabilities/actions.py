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
  completedAt, url} (the jobs of the run's latest attempt)
- ``workflow_run.artifacts.list`` (``runId``) → items{id, name, sizeInBytes, expired,
  createdAt, expiresAt, archiveDownloadUrl}
- ``workflow_run.cancel`` (``runId``) → runId, status, conclusion, cancelled
- ``workflow_run.rerun_all`` (``runId``) → runId, status, runAttempt
- ``workflow_run.rerun_failed`` (``runId``) → runId, rerunFailed, status, runAttempt

A re-run starts the run's next attempt; the state checks GitHub makes are made here first, so
the error codes do not depend on how a server words its refusal: ``CONFLICT`` for re-running a
run that has not completed and re-running the failed jobs of a run without any. Cancelling a
run that has already completed changes nothing (``cancelled: false``) instead of GitHub's 409.

Errors: ``NOT_FOUND`` for an unknown repository, workflow or run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.shapes import repo_path, rest_page
from pytest_ghxbench.ghx.capabilities.workflows import WORKFLOW_ID, find_workflow, workflow_names
from pytest_ghxbench.ghx.client import GitHubClient
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, repo_schema

__all__ = ["RUN_ID", "run_path"]

RUN_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Workflow run id"}
BY_RUN = repo_schema("runId", runId=RUN_ID)
RUN_PAGE = repo_schema("runId", runId=RUN_ID, first=FIRST, after=AFTER)
_FAILED = ("failure", "cancelled", "timed_out", "startup_failure")


def run_path(input: Mapping[str, Any]) -> str:
    return f"{repo_path(input)}/actions/runs/{input['runId']}"


def _get_run(client: GitHubClient, input: Mapping[str, Any]) -> dict[str, Any]:
    run: dict[str, Any] = client.rest("GET", run_path(input))
    return run


def _render_run(run: Mapping[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    return {
        "id": run["id"],
        "workflowName": names.get(int(run.get("workflow_id") or 0), run.get("name")),
        "displayTitle": run.get("display_title") or run.get("name"),
        "status": run["status"],
        "conclusion": run.get("conclusion"),
        "event": run.get("event"),
        "headBranch": run.get("head_branch"),
        "createdAt": run.get("created_at"),
        "url": run.get("html_url"),
    }


def _render_job(job: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": job["id"],
        "name": job["name"],
        "status": job["status"],
        "conclusion": job.get("conclusion"),
        "startedAt": job.get("started_at"),
        "completedAt": job.get("completed_at"),
        "url": job.get("html_url"),
    }


@capability(
    "workflow_runs.list",
    "List workflow runs, newest first; filter by branch, event, status or workflow.",
    repo_schema(
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
def list_runs(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    path = f"{repo_path(input)}/actions/runs"
    if "workflowId" in input:
        flow = find_workflow(client, input, input["workflowId"])
        path = f"{repo_path(input)}/actions/workflows/{flow['id']}/runs"
    names = workflow_names(client, input)
    params = {key: input.get(key) for key in ("branch", "event", "status")}
    return rest_page(
        client,
        path,
        input,
        lambda run: _render_run(run, names),
        params=params,
        wrapped="workflow_runs",
    )


@capability(
    "workflow_run.get",
    "Get one workflow run: status, conclusion, branch, commit, attempt.",
    BY_RUN,
)
def get_run(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    run = _get_run(client, input)
    return {
        **_render_run(run, workflow_names(client, input)),
        "headSha": run.get("head_sha"),
        "runNumber": run.get("run_number"),
        "runAttempt": run.get("run_attempt"),
        "updatedAt": run.get("updated_at"),
        "startedAt": run.get("run_started_at"),
    }


@capability(
    "workflow_run.jobs.list",
    "List the jobs of a workflow run (its latest attempt).",
    RUN_PAGE,
)
def list_jobs(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    path = f"{run_path(input)}/jobs"
    return rest_page(client, path, input, _render_job, params={"filter": "latest"}, wrapped="jobs")


@capability(
    "workflow_run.artifacts.list",
    "List the artifacts a workflow run uploaded.",
    RUN_PAGE,
)
def list_artifacts(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return rest_page(
        client,
        f"{run_path(input)}/artifacts",
        input,
        lambda artifact: {
            "id": artifact["id"],
            "name": artifact["name"],
            "sizeInBytes": artifact.get("size_in_bytes"),
            "expired": bool(artifact.get("expired")),
            "createdAt": artifact.get("created_at"),
            "expiresAt": artifact.get("expires_at"),
            "archiveDownloadUrl": artifact.get("archive_download_url"),
        },
        wrapped="artifacts",
    )


@capability(
    "workflow_run.cancel",
    "Cancel a queued or in-progress workflow run.",
    BY_RUN,
    mutates=True,
)
def cancel_run(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    run = _get_run(client, input)
    cancelled = run["status"] != "completed"
    if cancelled:
        client.request("POST", f"{run_path(input)}/cancel")
        run = _get_run(client, input)
    return {
        "runId": run["id"],
        "status": run["status"],
        "conclusion": run.get("conclusion"),
        "cancelled": cancelled,
    }


def _rerun(client: GitHubClient, input: Mapping[str, Any], *, failed_only: bool) -> dict[str, Any]:
    """Start the run's next attempt; the run as it is afterwards."""
    run = _get_run(client, input)
    if run["status"] != "completed":
        raise CapabilityError(
            "CONFLICT",
            f"workflow run {run['id']} is {run['status']}; only a completed run can re-run",
        )
    if failed_only:
        jobs = client.paginate(f"{run_path(input)}/jobs", {"filter": "latest"})
        if not any(job.get("conclusion") in _FAILED for job in jobs):
            raise CapabilityError(
                "CONFLICT", f"workflow run {run['id']} has no failed jobs to re-run"
            )
    action = "rerun-failed-jobs" if failed_only else "rerun"
    client.request("POST", f"{run_path(input)}/{action}", body={})
    return _get_run(client, input)


@capability(
    "workflow_run.rerun_all",
    "Re-run every job of a completed workflow run.",
    BY_RUN,
    mutates=True,
)
def rerun_all(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    run = _rerun(client, input, failed_only=False)
    return {"runId": run["id"], "status": run["status"], "runAttempt": run.get("run_attempt")}


@capability(
    "workflow_run.rerun_failed",
    "Re-run the failed jobs of a completed workflow run.",
    BY_RUN,
    mutates=True,
)
def rerun_failed(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    run = _rerun(client, input, failed_only=True)
    return {
        "runId": run["id"],
        "rerunFailed": True,
        "status": run["status"],
        "runAttempt": run.get("run_attempt"),
    }
