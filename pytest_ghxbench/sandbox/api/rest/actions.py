"""REST routes for GitHub Actions: workflows and dispatches, runs (list, get, re-run,
cancel), jobs and artifacts (their zips: a ``302`` to a pre-signed link). Logs are in
:mod:`.logs`, timing (usage) in :mod:`.usage`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pytest_ghxbench.sandbox.api.rest.links import Links
from pytest_ghxbench.sandbox.api.rest.render_actions import (
    artifact_json,
    job_json,
    run_json,
    workflow_json,
)
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    call,
    or_not_found,
    paged,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.api.search_syntax import in_range
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.errors import Refused
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.operations.actions import latest_jobs, rerun
from pytest_ghxbench.sandbox.placeholders import artifact_zip
from pytest_ghxbench.sandbox.state import Artifact, Workflow, WorkflowRun

__all__ = ["counted", "find_run"]

_Item = TypeVar("_Item")
_RUN = "/repos/{owner}/{repo}/actions/runs/{run_id}"
_FLOW = "/repos/{owner}/{repo}/actions/workflows/{workflow_id}"


def counted(
    ctx: Ctx, key: str, items: list[_Item], render: Callable[[Links, _Item], Any]
) -> dict[str, Any]:
    """The Actions list shape: the count of all ``items`` and one page of them under ``key``."""
    links = Links(ctx.world, ctx.urls)
    return {"total_count": len(items), key: [render(links, i) for i in paged(ctx, items)]}


def _workflow(ctx: Ctx) -> Workflow:
    key = ctx.args["workflow_id"]
    return or_not_found(ctx.world.workflow(int(key) if key.isdigit() else key))


@route("GET", "/repos/{owner}/{repo}/actions/workflows")
def _workflows(ctx: Ctx) -> Any:
    return counted(ctx, "workflows", list(ctx.world.workflows), workflow_json)


@route("GET", _FLOW)
def _get_workflow(ctx: Ctx) -> Any:
    return workflow_json(Links(ctx.world, ctx.urls), _workflow(ctx))


@route("POST", _FLOW + "/dispatches", status=204)
def _dispatch(ctx: Ctx) -> Any:
    flow = _workflow(ctx)
    ref = ctx.body.get("ref")
    if not ref:
        raise RestError(422, 'Invalid request.\n\n"ref" wasn\'t supplied.')
    payload = {
        **repo_input(ctx),
        "workflowId": flow.path.rsplit("/", 1)[-1],
        "ref": str(ref),
        "inputs": dict(ctx.body.get("inputs") or {}),
    }
    dispatched = call(ctx, "actions/create-workflow-dispatch", payload)
    if ctx.body.get("return_run_details") is not True:
        return None
    # GitHub's answer since February 2026 when the run details are asked for
    run_id = dispatched["runId"]
    links = Links(ctx.world, ctx.urls)
    return ApiResponse.json(
        {
            "workflow_run_id": run_id,
            "run_url": links.api(f"actions/runs/{run_id}"),
            "html_url": links.web(f"actions/runs/{run_id}"),
        }
    )


def _toggle(ctx: Ctx, state: str) -> Any:
    flow = _workflow(ctx)
    flow.state = state  # type: ignore[assignment]
    flow.updated_at = ctx.world.tick()
    ctx.mutated = True
    return None


@route("PUT", _FLOW + "/enable", status=204)
def _enable(ctx: Ctx) -> Any:
    return _toggle(ctx, "active")


@route("PUT", _FLOW + "/disable", status=204)
def _disable(ctx: Ctx) -> Any:
    return _toggle(ctx, "disabled_manually")


def _runs(ctx: Ctx, runs: list[WorkflowRun]) -> Any:
    branch, event, status = ctx.param("branch"), ctx.param("event"), ctx.param("status")
    sha, actor = ctx.param("head_sha"), ctx.param("actor")
    created = ctx.param("created")
    chosen = [
        r
        for r in sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True)
        if branch in (None, r.head_branch)
        and event in (None, r.event)
        and status in (None, r.status, r.conclusion)
        and sha in (None, r.head_sha)
        and actor in (None, r.actor)
        and (created is None or in_range(created, r.created_at))
    ]
    data = counted(ctx, "workflow_runs", chosen, run_json)
    if ctx.param("exclude_pull_requests") == "true":
        for run in data["workflow_runs"]:
            run["pull_requests"] = []
    return data


@route("GET", _FLOW + "/runs")
def _workflow_runs(ctx: Ctx) -> Any:
    flow = _workflow(ctx)
    return _runs(ctx, [r for r in ctx.world.workflow_runs if r.workflow_id == flow.id])


@route("GET", "/repos/{owner}/{repo}/actions/runs")
def _all_runs(ctx: Ctx) -> Any:
    return _runs(ctx, list(ctx.world.workflow_runs))


def find_run(ctx: Ctx) -> WorkflowRun:
    return or_not_found(ctx.world.workflow_run(ctx.number("run_id")))


@route("GET", _RUN)
def _get_run(ctx: Ctx) -> Any:
    data = run_json(Links(ctx.world, ctx.urls), find_run(ctx))
    if ctx.param("exclude_pull_requests") == "true":
        data["pull_requests"] = []
    return data


@route("GET", _RUN + "/jobs")
def _jobs(ctx: Ctx) -> Any:
    run = find_run(ctx)
    if ctx.param("filter") == "all":
        jobs = [j for j in ctx.world.jobs if j.run_id == run.id]
    else:
        jobs = latest_jobs(ctx.world, run.id)
    return counted(ctx, "jobs", jobs, job_json)


@route("GET", _RUN + "/artifacts")
def _artifacts(ctx: Ctx) -> Any:
    run = find_run(ctx)
    name = ctx.param("name")
    found = [a for a in ctx.world.artifacts if a.run_id == run.id and name in (None, a.name)]
    return counted(ctx, "artifacts", found, artifact_json)


def _run_action(ctx: Ctx, task: str) -> Any:
    run = find_run(ctx)
    call(ctx, task, {**repo_input(ctx), "runId": run.id})
    return {}


@route("POST", _RUN + "/rerun")
def _rerun(ctx: Ctx) -> Any:
    return _run_action(ctx, "actions/re-run-workflow")


@route("POST", _RUN + "/rerun-failed-jobs")
def _rerun_failed(ctx: Ctx) -> Any:
    return _run_action(ctx, "actions/re-run-workflow-failed-jobs")


@route("POST", _RUN + "/cancel", status=202)
def _cancel(ctx: Ctx) -> Any:
    return _run_action(ctx, "actions/cancel-workflow-run")


@route("DELETE", _RUN, status=204)
def _delete_run(ctx: Ctx) -> Any:
    """The run goes, with its jobs, their check runs and its artifacts."""
    world, run = ctx.world, find_run(ctx)
    jobs = {j.id for j in world.jobs if j.run_id == run.id}
    world.workflow_runs.remove(run)
    world.jobs = [j for j in world.jobs if j.run_id != run.id]
    world.check_runs = [c for c in world.check_runs if c.job_id not in jobs]
    world.artifacts = [a for a in world.artifacts if a.run_id != run.id]
    ctx.mutated = True
    return None


@route("DELETE", _RUN + "/logs", status=204)
def _delete_logs(ctx: Ctx) -> Any:
    run = find_run(ctx)
    for job in ctx.world.jobs:
        if job.run_id == run.id:
            job.log = ""
    ctx.mutated = True
    return None


@route("POST", "/repos/{owner}/{repo}/actions/jobs/{job_id}/rerun")
def _rerun_job(ctx: Ctx) -> Any:
    world = ctx.world
    job = or_not_found(world.job(ctx.number("job_id")))
    run = or_not_found(world.workflow_run(job.run_id))
    if job not in latest_jobs(world, run.id):
        raise RestError(403, "This job is not part of the run's latest attempt")
    ctx.mutated = True
    try:
        rerun(world, run, job_id=job.id)
    except Refused as exc:
        raise RestError(403, exc.detail) from None
    return {}


@route("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}")
def _job(ctx: Ctx) -> Any:
    job = or_not_found(ctx.world.job(ctx.number("job_id")))
    return job_json(Links(ctx.world, ctx.urls), job)


@route("GET", "/repos/{owner}/{repo}/actions/artifacts")
def _repo_artifacts(ctx: Ctx) -> Any:
    name = ctx.param("name")
    found = [a for a in ctx.world.artifacts if name in (None, a.name)]
    return counted(ctx, "artifacts", found, artifact_json)


def _find_artifact(ctx: Ctx) -> Artifact:
    wanted = ctx.number("artifact_id")
    return or_not_found(next((a for a in ctx.world.artifacts if a.id == wanted), None))


@route("GET", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}")
def _artifact(ctx: Ctx) -> Any:
    return artifact_json(Links(ctx.world, ctx.urls), _find_artifact(ctx))


@route("GET", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}", status=302)
def _artifact_zip(ctx: Ctx) -> Any:
    artifact = _find_artifact(ctx)
    if ctx.args["archive_format"] != "zip":
        raise RestError(404, "Not Found")
    if artifact.expired:
        raise RestError(410, "Artifact has expired")
    # gap: the seed gives an artifact a size, not its files (the zip holds a placeholder)
    record_unsupported("workflow run artifact contents (a placeholder zip)")
    data = artifact_zip(artifact.name, artifact.size_in_bytes)
    url = ctx.request.blobs.put(data, "application/zip", f"{artifact.name}.zip")
    return ApiResponse(302, b"", {"Location": url})
