"""``GET .../actions/runs/{run_id}/timing`` and ``GET .../actions/workflows/{workflow_id}/timing``:
how long a run took and what GitHub bills for it, from the run's and its jobs' own times.

``run_duration_ms`` is the span of the run's latest attempt: from its ``run_started_at`` to its
completion (its ``updated_at``), or to now (the world's clock) while it is queued or in
progress; GitHub measures it in whole seconds. ``billable`` lists runner operating systems
only for what is billed: nothing for a public repository (Actions are free there, so GitHub
answers ``{}``). For a private one every job of every attempt counts (re-runs are billed too)
for the time from its start to its completion, as Linux time: the sandbox does not model which
runner a job ran on.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from pytest_ghxbench.sandbox.api.rest.actions import find_run
from pytest_ghxbench.sandbox.api.rest.router import Ctx, or_not_found, route
from pytest_ghxbench.sandbox.gaps import record_unsupported
from pytest_ghxbench.sandbox.state import Job, WorkflowRun, World

__all__ = ["job_ms", "run_duration_ms"]

_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def _ms(start: str, end: str) -> int:
    """Milliseconds from ``start`` to ``end`` (ISO 8601, UTC), never negative."""
    begins = datetime.strptime(start, _FORMAT).replace(tzinfo=timezone.utc)
    ends = datetime.strptime(end, _FORMAT).replace(tzinfo=timezone.utc)
    return max(int((ends - begins).total_seconds()) * 1000, 0)


def run_duration_ms(world: World, run: WorkflowRun) -> int:
    """The latest attempt's run time: to its completion, or so far."""
    start = run.run_started_at or run.created_at
    end = run.updated_at if run.status == "completed" else world.clock
    return _ms(start, end)


def job_ms(job: Job) -> int | None:
    """A finished job's run time; ``None`` for one that has not run to its end."""
    if job.status != "completed" or not job.started_at or not job.completed_at:
        return None
    return _ms(job.started_at, job.completed_at)


def _billable(world: World, jobs: list[Job], *, per_job: bool) -> dict[str, Any]:
    if not world.repository.is_private:
        return {}
    # gap: the runner a job ran on is not modelled; a private repository's time counts as Linux
    record_unsupported("billable time by runner operating system (all counted as UBUNTU)")
    timed = [(job, ms) for job in jobs if (ms := job_ms(job)) is not None]
    if not timed:
        return {}
    entry: dict[str, Any] = {"total_ms": sum(ms for _, ms in timed)}
    if per_job:
        entry["jobs"] = len(timed)
        entry["job_runs"] = [{"job_id": job.id, "duration_ms": ms} for job, ms in timed]
    return {"UBUNTU": entry}


@route("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}/timing")
def _run_timing(ctx: Ctx) -> Any:
    world, run = ctx.world, find_run(ctx)
    jobs = [j for j in world.jobs if j.run_id == run.id]
    return {
        "billable": _billable(world, jobs, per_job=True),
        "run_duration_ms": run_duration_ms(world, run),
    }


@route("GET", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/timing")
def _workflow_timing(ctx: Ctx) -> Any:
    """The workflow's billable time in the current billing cycle (the clock's month)."""
    world = ctx.world
    key = ctx.args["workflow_id"]
    flow = or_not_found(world.workflow(int(key) if key.isdigit() else key))
    month = world.clock[:7]
    runs = {r.id for r in world.workflow_runs if r.workflow_id == flow.id}
    jobs = [j for j in world.jobs if j.run_id in runs and (j.completed_at or "").startswith(month)]
    return {"billable": _billable(world, jobs, per_job=False)}
