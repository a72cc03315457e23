"""CI diagnostics: a job's log, a summary of it, and a check run's annotations.

Every input also has ``owner`` and ``name`` (the repository).

- ``workflow_job.logs.get`` (``jobId``) → jobId, log, truncated (logs longer than
  :data:`MAX_LOG_CHARS` keep their end, where failures are)
- ``workflow_job.logs.analyze`` (``jobId``) → jobId, conclusion, truncated, failedSteps,
  summary{errorCount, warningCount, topErrorLines} (see :func:`analyze_log`)
- ``check_run.annotations.list`` (``checkRunId``, ``first``, ``after``) → items{path,
  startLine, endLine, level, message, title, details}, pageInfo

A job's log is downloaded (GitHub redirects to a short-lived link, which the client follows)
and analysed here.

Errors: ``NOT_FOUND`` for an unknown repository, job or check run; ``CONFLICT`` for the log of a
job that has not finished (GitHub has none yet either).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.shapes import repo_path, rest_page
from pytest_ghxbench.ghx.client import GitHubClient
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, repo_schema

__all__ = ["MAX_LOG_CHARS", "TOP_ERROR_LINES", "analyze_log"]

MAX_LOG_CHARS = 60_000
"""Longer logs are cut to their last ``MAX_LOG_CHARS`` characters (failures are at the end)."""

JOB_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Workflow job id"}
BY_JOB = repo_schema("jobId", jobId=JOB_ID)


def _finished_log(
    client: GitHubClient, input: Mapping[str, Any]
) -> tuple[dict[str, Any], str, bool]:
    """The job, its log (cut to its end) and whether it was cut."""
    path = f"{repo_path(input)}/actions/jobs/{input['jobId']}"
    job: dict[str, Any] = client.rest("GET", path)
    if job["status"] != "completed":
        raise CapabilityError(
            "CONFLICT", f"job {job['id']} is {job['status']}; logs are available once it completes"
        )
    raw = client.rest("GET", f"{path}/logs")
    # the client decodes JSON-looking bodies; a log is text whatever it looks like
    log = "" if raw is None else raw if isinstance(raw, str) else str(raw)
    truncated = len(log) > MAX_LOG_CHARS
    return job, log[-MAX_LOG_CHARS:] if truncated else log, truncated


@capability(
    "workflow_job.logs.get",
    f"Get a finished job's log (its last {MAX_LOG_CHARS} characters when longer).",
    BY_JOB,
)
def get_job_log(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    job, log, truncated = _finished_log(client, input)
    return {"jobId": job["id"], "log": log, "truncated": truncated}


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
    BY_JOB,
)
def analyze_job_log(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    job, log, truncated = _finished_log(client, input)
    return {
        "jobId": job["id"],
        "conclusion": job.get("conclusion"),
        "truncated": truncated,
        "failedSteps": [
            s["name"] for s in job.get("steps") or [] if s.get("conclusion") == "failure"
        ],
        "summary": analyze_log(log),
    }


@capability(
    "check_run.annotations.list",
    "List the annotations (file, lines, level, message) a check run reported.",
    repo_schema(
        "checkRunId",
        checkRunId={"type": "integer", "minimum": 1, "description": "Check run id"},
        first=FIRST,
        after=AFTER,
    ),
)
def list_annotations(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return rest_page(
        client,
        f"{repo_path(input)}/check-runs/{input['checkRunId']}/annotations",
        input,
        lambda note: {
            "path": note["path"],
            "startLine": note.get("start_line"),
            "endLine": note.get("end_line"),
            "level": note.get("annotation_level"),
            "message": note.get("message"),
            "title": note.get("title") or None,
            "details": note.get("raw_details") or None,
        },
    )
