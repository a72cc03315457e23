"""A job's log as the API serves it (``workflow_job.logs.get``)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.errors import Conflict, NotFound
from pytest_ghxbench.sandbox.operations.registry import operation, require_repo
from pytest_ghxbench.sandbox.state import Job, World

__all__ = ["MAX_LOG_CHARS"]

MAX_LOG_CHARS = 60_000
"""Longer logs are cut to their last ``MAX_LOG_CHARS`` characters (failures are at the end)."""


def _job(world: World, job_id: int) -> Job:
    job = world.job(job_id)
    if job is None:
        raise NotFound(f"workflow job {job_id} not found")
    return job


def _finished_log(world: World, input: dict[str, Any]) -> tuple[Job, str, bool]:
    require_repo(world, input)
    job = _job(world, input["jobId"])
    if job.status != "completed":
        raise Conflict(f"job {job.id} is {job.status}; logs are available once it completes")
    log = job.log
    truncated = len(log) > MAX_LOG_CHARS
    return job, log[-MAX_LOG_CHARS:] if truncated else log, truncated


@operation("actions/download-job-logs-for-workflow-run", mutates=False)
def get_job_log(world: World, input: dict[str, Any]) -> dict[str, Any]:
    job, log, truncated = _finished_log(world, input)
    return {"jobId": job.id, "log": log, "truncated": truncated}
