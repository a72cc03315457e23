"""Pull request check capabilities: the head commit's checks, the failing ones, re-runs.

A pull request is addressed by ``owner``, ``name`` and ``prNumber``.

- ``pr.status.checks`` → items{name, state, bucket, workflow, link}, summary{total, passed,
  failed, pending, skipped}
- ``pr.checks.get_failed`` → the same, with only the failing (or cancelled) items; the summary
  still counts every check
- ``pr.checks.rerun_failed`` / ``pr.checks.rerun_all`` (``runId``) → prNumber, runId, mode
  (failed or all), queued, runAttempt

A pull request's checks are the newest check run per app and name on its head commit, as its
status rollup shows them. ``state`` is the conclusion (or, while unfinished, the status) in
capitals, ``bucket`` gh's grouping (pass, fail, pending, skipping, cancel), ``workflow`` the
Actions workflow that ran it ("" for other apps), ``link`` the job's or check run's page.
Re-running starts the run's next attempt, as ``workflow_run.rerun_*`` do (:func:`.actions.rerun`).

Errors: ``NOT_FOUND`` for an unknown repository, pull request or run; ``VALIDATION`` for a run
that did not run for the pull request; ``CONFLICT`` for a re-run the run's state forbids.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.actions import (
    check_bucket,
    check_url,
    find_run,
    latest_checks,
    rerun,
)
from pytest_ghxbench.sandbox.capabilities.prs import find_pull
from pytest_ghxbench.sandbox.capabilities.registry import CapabilityError
from pytest_ghxbench.sandbox.state import CheckRun, PullRequest, World

__all__: list[str] = []


def _check_row(world: World, check: CheckRun) -> dict[str, Any]:
    job = world.job(check.job_id) if check.job_id is not None else None
    run = world.workflow_run(job.run_id) if job is not None else None
    flow = next((f for f in world.workflows if run and f.id == run.workflow_id), None)
    return {
        "name": check.name,
        "state": (check.conclusion or check.status).upper(),
        "bucket": check_bucket(check),
        "workflow": flow.name if flow is not None else "",
        "link": check_url(world, check),
    }


def _checks(world: World, pull: PullRequest, *, failed_only: bool) -> dict[str, Any]:
    checks = latest_checks(world, pull.head_sha)
    buckets = [check_bucket(c) for c in checks]
    shown = [c for c in checks if check_bucket(c) in ("fail", "cancel")] if failed_only else checks
    return {
        "items": [_check_row(world, check) for check in shown],
        "summary": {
            "total": len(checks),
            "passed": buckets.count("pass"),
            "failed": buckets.count("fail") + buckets.count("cancel"),
            "pending": buckets.count("pending"),
            "skipped": buckets.count("skipping"),
        },
    }


def _rerun_checks(world: World, input: dict[str, Any], *, failed_only: bool) -> dict[str, Any]:
    pull = find_pull(world, input)
    run = find_run(world, input["runId"])
    if pull.number not in run.pull_requests and run.head_sha != pull.head_sha:
        raise CapabilityError(
            "VALIDATION",
            f"input.runId: workflow run {run.id} did not run for pull request #{pull.number}",
        )
    rerun(world, run, failed_only=failed_only)
    return {
        "prNumber": pull.number,
        "runId": run.id,
        "mode": "failed" if failed_only else "all",
        "queued": True,
        "runAttempt": run.run_attempt,
    }
