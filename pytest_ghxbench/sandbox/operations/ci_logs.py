"""A job's log as the API serves it (``workflow_job.logs.get``)."""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.operations.registry import CapabilityError, operation, require_repo
from pytest_ghxbench.sandbox.state import Job, World

__all__ = ["MAX_LOG_CHARS", "TOP_ERROR_LINES", "analyze_log"]

MAX_LOG_CHARS = 60_000
"""Longer logs are cut to their last ``MAX_LOG_CHARS`` characters (failures are at the end)."""


def _job(world: World, job_id: int) -> Job:
    job = world.job(job_id)
    if job is None:
        raise CapabilityError("NOT_FOUND", f"workflow job {job_id} not found")
    return job


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


@operation("workflow_job.logs.get")
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
