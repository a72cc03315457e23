"""REST routes for one attempt of a workflow run (``gh run view --attempt N``): the run as it
was at that attempt, its jobs and its logs. An attempt's jobs are, per job name, the newest job
of that attempt or an earlier one (a re-run of failed jobs keeps the others' results)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.actions import counted, find_run
from pytest_ghxbench.sandbox.api.rest.logs import run_log_archive
from pytest_ghxbench.sandbox.api.rest.render_actions import job_json, run_json
from pytest_ghxbench.sandbox.api.rest.router import Ctx, RestError, route
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.operations.run_progress import run_conclusion
from pytest_ghxbench.sandbox.state import Job, WorkflowRun, World

__all__: list[str] = []

_ATTEMPT = "/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}"


def _attempt(ctx: Ctx) -> tuple[WorkflowRun, int]:
    run = find_run(ctx)
    number = ctx.number("attempt_number")
    if not 1 <= number <= run.run_attempt:
        raise RestError(404, "Not Found")
    return run, number


def attempt_jobs(world: World, run: WorkflowRun, number: int) -> list[Job]:
    newest: dict[str, Job] = {}
    for job in world.jobs:
        if job.run_id == run.id and (job.run_attempt or 1) <= number:
            newest[job.name] = job
    return list(newest.values())


@route("GET", _ATTEMPT)
def _run_attempt(ctx: Ctx) -> Any:
    run, number = _attempt(ctx)
    data = run_json(ctx.links, run)
    if ctx.param("exclude_pull_requests") == "true":
        data["pull_requests"] = []
    if number == run.run_attempt:
        return data
    jobs = [j for j in attempt_jobs(ctx.world, run, number) if (j.run_attempt or 1) == number]
    starts = [j.started_at for j in jobs if j.started_at]
    ends = [j.completed_at for j in jobs if j.completed_at]
    url = ctx.links.api(f"actions/runs/{run.id}")
    data.update(
        run_attempt=number,
        status="completed",
        conclusion=run_conclusion(attempt_jobs(ctx.world, run, number)),
        run_started_at=min(starts, default=run.created_at),
        updated_at=max(ends, default=run.created_at),
        previous_attempt_url=f"{url}/attempts/{number - 1}" if number > 1 else None,
    )
    return data


@route("GET", _ATTEMPT + "/jobs")
def _attempt_jobs(ctx: Ctx) -> Any:
    run, number = _attempt(ctx)
    return counted(ctx, "jobs", attempt_jobs(ctx.world, run, number), job_json)


@route("GET", _ATTEMPT + "/logs", status=302)
def _attempt_logs(ctx: Ctx) -> Any:
    run, number = _attempt(ctx)
    jobs = [j for j in attempt_jobs(ctx.world, run, number) if j.status == "completed"]
    if not jobs:
        raise RestError(404, "Not Found")
    name = f"logs_{run.id}_{number}.zip"
    url = ctx.request.blobs.put(run_log_archive(jobs), "application/zip", name)
    return ApiResponse(302, b"", {"Location": url})
