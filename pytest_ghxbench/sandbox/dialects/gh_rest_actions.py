"""REST routes for checks and GitHub Actions: check runs and annotations, workflows and
dispatches, runs (list, get, re-run, cancel), jobs, job logs and artifacts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pytest_ghxbench.sandbox.capabilities.actions import latest_checks, latest_jobs
from pytest_ghxbench.sandbox.dialects.gh_rest import (
    RawText,
    RestError,
    RestRequest,
    call,
    or_not_found,
    paged,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.dialects.gh_rest_render_actions import (
    annotation_rest,
    artifact_rest,
    check_run_rest,
    job_rest,
    run_rest,
    workflow_rest,
)
from pytest_ghxbench.sandbox.state import CheckRun, Workflow, WorkflowRun, World

__all__: list[str] = []


_Item = TypeVar("_Item")


def _counted_page(
    request: RestRequest, key: str, items: list[_Item], render: Callable[[World, _Item], Any]
) -> dict[str, Any]:
    """The Actions and checks list shape: the count of all ``items``, and one page of them
    rendered under ``key``."""
    world = request.ctx.world
    return {"total_count": len(items), key: [render(world, item) for item in paged(request, items)]}


def _check(request: RestRequest) -> CheckRun:
    return or_not_found(request.ctx.world.check_run(request.number()))


@route("GET", r"commits/(.+)/check-runs")
def _commit_checks(request: RestRequest) -> Any:
    world = request.ctx.world
    ref = request.groups[0]
    branch = next((b.sha for b in world.repository.branches if b.name == ref), None)
    pull_heads = {p.head_ref: p.head_sha for p in world.pull_requests}
    sha = branch or pull_heads.get(ref) or ref
    checks = [
        c for c in latest_checks(world, sha) if request.params.get("check_name") in (None, c.name)
    ]
    if request.params.get("status"):
        checks = [c for c in checks if c.status == request.params["status"]]
    return _counted_page(request, "check_runs", checks, check_run_rest)


@route("GET", r"check-runs/(\d+)")
def _check_run(request: RestRequest) -> Any:
    return check_run_rest(request.ctx.world, _check(request))


@route("GET", r"check-runs/(\d+)/annotations")
def _annotations(request: RestRequest) -> Any:
    check = _check(request)
    return paged(request, [annotation_rest(request.ctx.world, check, n) for n in check.annotations])


def _workflow(request: RestRequest) -> Workflow:
    key = request.groups[0]
    return or_not_found(request.ctx.world.workflow(int(key) if key.isdigit() else key))


@route("GET", "actions/workflows")
def _workflows(request: RestRequest) -> Any:
    return _counted_page(request, "workflows", list(request.ctx.world.workflows), workflow_rest)


@route("GET", r"actions/workflows/([^/]+)")
def _get_workflow(request: RestRequest) -> Any:
    return workflow_rest(request.ctx.world, _workflow(request))


@route("POST", r"actions/workflows/([^/]+)/dispatches")
def _dispatch(request: RestRequest) -> Any:
    flow = _workflow(request)
    ref = request.body.get("ref")
    if not ref:
        raise RestError(422, 'Invalid request.\n\n"ref" wasn\'t supplied.')
    call(
        request,
        "workflow_dispatch.run",
        {
            **repo_input(request),
            "workflowId": flow.path.rsplit("/", 1)[-1],
            "ref": str(ref),
            "inputs": dict(request.body.get("inputs") or {}),
        },
    )
    return None


@route("PUT", r"actions/workflows/([^/]+)/(enable|disable)")
def _toggle(request: RestRequest) -> Any:
    flow = _workflow(request)
    request.ctx.mutated = True
    flow.state = "active" if request.groups[1] == "enable" else "disabled_manually"
    flow.updated_at = request.ctx.world.tick()
    return None


def _runs(request: RestRequest, runs: list[WorkflowRun]) -> Any:
    params = request.params
    chosen = [
        r
        for r in sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True)
        if params.get("branch") in (None, r.head_branch)
        and params.get("event") in (None, r.event)
        and params.get("status") in (None, r.status, r.conclusion)
        and params.get("head_sha") in (None, r.head_sha)
        and params.get("actor") in (None, r.actor)
    ]
    return _counted_page(request, "workflow_runs", chosen, run_rest)


@route("GET", r"actions/workflows/([^/]+)/runs")
def _workflow_runs(request: RestRequest) -> Any:
    flow = _workflow(request)
    return _runs(request, [r for r in request.ctx.world.workflow_runs if r.workflow_id == flow.id])


@route("GET", "actions/runs")
def _all_runs(request: RestRequest) -> Any:
    return _runs(request, list(request.ctx.world.workflow_runs))


def _run(request: RestRequest) -> WorkflowRun:
    return or_not_found(request.ctx.world.workflow_run(request.number()))


@route("GET", r"actions/runs/(\d+)")
def _get_run(request: RestRequest) -> Any:
    return run_rest(request.ctx.world, _run(request))


@route("GET", r"actions/runs/(\d+)/jobs")
def _jobs(request: RestRequest) -> Any:
    world = request.ctx.world
    run = _run(request)
    if request.params.get("filter") == "all":
        jobs = [j for j in world.jobs if j.run_id == run.id]
    else:
        jobs = latest_jobs(world, run.id)
    return _counted_page(request, "jobs", jobs, job_rest)


@route("GET", r"actions/runs/(\d+)/artifacts")
def _artifacts(request: RestRequest) -> Any:
    world = request.ctx.world
    run = _run(request)
    found = [a for a in world.artifacts if a.run_id == run.id]
    return _counted_page(request, "artifacts", found, artifact_rest)


@route("GET", r"actions/runs/(\d+)/logs")
def _run_logs(request: RestRequest) -> Any:
    run = _run(request)
    raise RestError(
        415,
        f"Run logs are a zip archive; in the sandbox read each job's log with "
        f"repos/{request.ctx.full_name}/actions/jobs/<job-id>/logs (jobs of run {run.id}: "
        f"repos/{request.ctx.full_name}/actions/runs/{run.id}/jobs)",
    )


def _run_action(request: RestRequest, task: str) -> Any:
    run = _run(request)
    call(request, task, {**repo_input(request), "runId": run.id})
    return {}


@route("POST", r"actions/runs/(\d+)/rerun")
def _rerun(request: RestRequest) -> Any:
    return _run_action(request, "workflow_run.rerun_all")


@route("POST", r"actions/runs/(\d+)/rerun-failed-jobs")
def _rerun_failed(request: RestRequest) -> Any:
    return _run_action(request, "workflow_run.rerun_failed")


@route("POST", r"actions/runs/(\d+)/cancel")
def _cancel(request: RestRequest) -> Any:
    return _run_action(request, "workflow_run.cancel")


@route("GET", r"actions/jobs/(\d+)")
def _job(request: RestRequest) -> Any:
    job = or_not_found(request.ctx.world.job(request.number()))
    return job_rest(request.ctx.world, job)


@route("GET", r"actions/jobs/(\d+)/logs")
def _job_logs(request: RestRequest) -> Any:
    data = call(
        request, "workflow_job.logs.get", {**repo_input(request), "jobId": request.number()}
    )
    return RawText(data["log"])


@route("GET", r"actions/artifacts")
def _repo_artifacts(request: RestRequest) -> Any:
    world = request.ctx.world
    found = [a for a in world.artifacts if request.params.get("name") in (None, a.name)]
    return _counted_page(request, "artifacts", found, artifact_rest)
