"""Job and run logs: like GitHub, the API answers ``302 Found`` with a short-lived download
link (the request's :class:`~..types.BlobStore`): a job's log as text, a run's logs as a zip
archive laid out as GitHub lays it out::

    0_lint.txt                        the whole log of each job, numbered in run order
    lint/1_Set up job.txt             one file per step of each job
    lint/2_Run actions_checkout@v4.txt
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from pytest_ghxbench.sandbox.api.rest.actions import find_run
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    call,
    or_not_found,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.operations.actions import latest_jobs
from pytest_ghxbench.sandbox.state import Job

__all__ = ["run_log_archive", "step_logs"]

_UNSAFE = re.compile(r'[/\\:*?"<>|]')
_GROUP = re.compile(r"^\S+ ##\[group\]")


def _redirect(url: str) -> ApiResponse:
    return ApiResponse(302, b"", {"Location": url})


@route("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", status=302)
def _job_logs(ctx: Ctx) -> Any:
    job_id = ctx.number("job_id")
    # the operation's refusals
    call(ctx, "actions/download-job-logs-for-workflow-run", {**repo_input(ctx), "jobId": job_id})
    job = or_not_found(ctx.world.job(job_id))
    # the whole log, as GitHub serves it (the capability keeps only the end of a long one)
    name = f"job-logs-{job_id}.txt"
    return _redirect(ctx.request.blobs.put(job.log.encode(), "text/plain", name))


@route("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}/logs", status=302)
def _run_logs(ctx: Ctx) -> Any:
    run = find_run(ctx)
    jobs = [j for j in latest_jobs(ctx.world, run.id) if j.status == "completed"]
    if not jobs:
        raise RestError(404, "Not Found")
    name = f"logs_{run.id}.zip"
    return _redirect(ctx.request.blobs.put(run_log_archive(jobs), "application/zip", name))


def step_logs(job: Job) -> list[tuple[int, str, str]]:
    """``(number, name, text)`` per step. The seed's logs do not say which step wrote a line:
    lines before the first ``##[group]`` belong to the first step; a group goes to the step it
    names (``Run pytest -q`` to ``Run pytest``), else to the step after the previous group's."""
    steps = sorted(job.steps, key=lambda s: s.number)
    if not steps:
        return [(1, "Run", job.log)]
    texts = [""] * len(steps)
    current = 0
    for line in job.log.splitlines(keepends=True):
        group = _GROUP.match(line)
        if group:
            title = line[group.end() :].strip()
            named = [
                i
                for i, s in enumerate(steps)
                if i >= current and (title == s.name or title.startswith(s.name + " "))
            ]
            current = named[0] if named else min(current + 1, len(steps) - 1)
        texts[current] += line
    return [(s.number, s.name, text) for s, text in zip(steps, texts, strict=True)]


def run_log_archive(jobs: list[Job]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, job in enumerate(jobs):
            folder = _UNSAFE.sub("_", job.name)
            archive.writestr(f"{index}_{folder}.txt", job.log)
            for number, name, text in step_logs(job):
                archive.writestr(f"{folder}/{number}_{_UNSAFE.sub('_', name)}.txt", text)
    return buffer.getvalue()
