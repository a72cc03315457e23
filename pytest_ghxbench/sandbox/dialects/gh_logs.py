"""Splitting a job's log into its steps, as ``gh run view --log`` shows it.

The sandbox stores one log per job; GitHub stores one per step. A ``##[group]Run ...`` line
starts a step: the first later step whose name begins the group's title (``Run pytest`` for
``Run pytest -q``), otherwise simply the next step. Lines before the first group belong to the
first step (``Set up job``).
"""

from __future__ import annotations

from pytest_ghxbench.sandbox.state import Job

__all__ = ["job_log_lines"]

_GROUP = "##[group]"
_FAILED = ("failure", "cancelled", "timed_out")


def _step_of_group(job: Job, title: str, current: int) -> int:
    names = [step.name for step in job.steps]
    for index in range(current + 1, len(names)):
        if title == names[index] or title.startswith(names[index] + " "):
            return index
    return min(current + 1, len(names) - 1)


def job_log_lines(job: Job, *, failed_only: bool = False) -> list[tuple[str, str]]:
    """``(step name, log line)`` pairs; with ``failed_only`` just the failed steps' lines
    (all lines when no step is marked as failed)."""
    if not job.steps:
        return [("UNKNOWN STEP", line) for line in job.log.splitlines()]
    current = 0
    pairs: list[tuple[int, str]] = []
    for line in job.log.splitlines():
        marker = line.find(_GROUP)
        if marker >= 0:
            title = line[marker + len(_GROUP) :].strip()
            current = _step_of_group(job, title, current if pairs else -1)
        pairs.append((current, line))
    if failed_only:
        failed = {i for i, step in enumerate(job.steps) if step.conclusion in _FAILED}
        if failed:
            pairs = [(i, line) for i, line in pairs if i in failed]
    return [(job.steps[i].name, line) for i, line in pairs]
