"""CI diagnostics: a job's log, a summary of it, and a check run's annotations.

Every input also has ``owner`` and ``name`` (the repository).

- ``workflow_job.logs.get`` (``jobId``) → jobId, log, truncated (logs longer than
  :data:`MAX_LOG_CHARS` keep their end, where failures are)
- ``workflow_job.logs.analyze`` (``jobId``) → jobId, conclusion, truncated, failedSteps,
  summary{errorCount, warningCount, topErrorLines} (see :func:`analyze_log`)
- ``check_run.annotations.list`` (``checkRunId``, ``first``, ``after``) → items{path,
  startLine, endLine, level, message, title, details}, pageInfo

Errors: ``NOT_FOUND`` for an unknown repository, job or check run; ``CONFLICT`` for the log of a
job that has not finished (GitHub has none yet either).
"""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import (
    CapabilityError,
    capability,
    repo_schema,
    require_repo,
)
from pytest_ghxbench.sandbox.state import Job, World

__all__ = ["MAX_LOG_CHARS", "TOP_ERROR_LINES", "analyze_log"]

MAX_LOG_CHARS = 60_000
"""Longer logs are cut to their last ``MAX_LOG_CHARS`` characters (failures are at the end)."""

JOB_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Workflow job id"}
BY_JOB = repo_schema("jobId", jobId=JOB_ID)


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


@capability(
    "workflow_job.logs.get",
    f"Get a finished job's log (its last {MAX_LOG_CHARS} characters when longer).",
    BY_JOB,
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
