"""Pull request check capabilities: the head commit's checks, the failing ones, re-runs.

A pull request is addressed by ``owner``, ``name`` and ``prNumber``.

- ``pr.status.checks`` → items{name, state, bucket, workflow, link}, summary{total, passed,
  failed, pending, skipped}
- ``pr.checks.get_failed`` → the same, with only the failing (or cancelled) items; the summary
  still counts every check
- ``pr.checks.rerun_failed`` / ``pr.checks.rerun_all`` (``runId``) → prNumber, runId, mode
  (failed or all), queued, runAttempt

A pull request's checks are its head commit's status check rollup. ``state`` is the conclusion
(or, while unfinished, the status) in capitals, ``bucket`` gh's grouping (pass, fail, pending,
skipping, cancel), ``workflow`` the Actions workflow that ran it ("" for other apps), ``link``
the job's or check run's page.

Errors: ``NOT_FOUND`` for an unknown repository, pull request or run; ``VALIDATION`` for a run
that did not run for the pull request; ``CONFLICT`` for a re-run the run's state forbids.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.ghx.capabilities.prs import BY_NUMBER, by_number, find_pull, pull_graphql
from pytest_ghxbench.ghx.capabilities.shapes import repo_path
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import CapabilityError, capability

__all__ = ["CHECK_BUCKETS"]

RUN_ID: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Workflow run id"}

CHECK_BUCKETS = {
    "SUCCESS": "pass",
    "NEUTRAL": "skipping",
    "SKIPPED": "skipping",
    "CANCELLED": "cancel",
    "FAILURE": "fail",
    "TIMED_OUT": "fail",
    "ACTION_REQUIRED": "fail",
    "STARTUP_FAILURE": "fail",
    # commit statuses
    "ERROR": "fail",
}
"""gh's bucket of a check run's conclusion or a commit status's state (else pending)."""

_CONTEXTS = """
commits(last: 1) { nodes { commit { statusCheckRollup {
  contexts(first: 100) { nodes {
    __typename
    ... on CheckRun {
      name status conclusion detailsUrl
      checkSuite { workflowRun { workflow { name } } }
    }
    ... on StatusContext { context state targetUrl }
  } }
} } } }
"""


def _row(context: dict[str, Any]) -> dict[str, Any]:
    if context.get("__typename") == "StatusContext":
        state = str(context.get("state") or "PENDING")
        return {
            "name": context.get("context"),
            "state": state,
            "bucket": CHECK_BUCKETS.get(state, "pending"),
            "workflow": "",
            "link": context.get("targetUrl") or "",
        }
    conclusion = context.get("conclusion")
    run = (context.get("checkSuite") or {}).get("workflowRun") or {}
    return {
        "name": context.get("name"),
        "state": str(conclusion or context.get("status") or "").upper(),
        "bucket": CHECK_BUCKETS.get(str(conclusion or "").upper(), "pending"),
        "workflow": (run.get("workflow") or {}).get("name") or "",
        "link": context.get("detailsUrl"),
    }


def _checks(client: GitHubClient, input: dict[str, Any], *, failed_only: bool) -> dict[str, Any]:
    pull = pull_graphql(client, input, _CONTEXTS)
    commits = pull["commits"]["nodes"] or []
    rollup = commits[-1]["commit"].get("statusCheckRollup") if commits else None
    contexts = ((rollup or {}).get("contexts") or {}).get("nodes") or []
    rows = [_row(context) for context in contexts]
    buckets = [row["bucket"] for row in rows]
    shown = [row for row in rows if row["bucket"] in ("fail", "cancel")] if failed_only else rows
    return {
        "items": shown,
        "summary": {
            "total": len(rows),
            "passed": buckets.count("pass"),
            "failed": buckets.count("fail") + buckets.count("cancel"),
            "pending": buckets.count("pending"),
            "skipped": buckets.count("skipping"),
        },
    }


@capability("pr.status.checks", "List a pull request's checks with summary counts.", BY_NUMBER)
def pr_status_checks(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _checks(client, input, failed_only=False)


@capability(
    "pr.checks.get_failed",
    "List a pull request's failing checks (the summary counts every check).",
    BY_NUMBER,
)
def pr_checks_get_failed(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _checks(client, input, failed_only=True)


def _rerun_checks(
    client: GitHubClient, input: dict[str, Any], *, failed_only: bool
) -> dict[str, Any]:
    pull = find_pull(client, input)
    number, run_id = input["prNumber"], input["runId"]
    run_path = f"{repo_path(input)}/actions/runs/{run_id}"
    try:
        run = client.rest("GET", run_path)
    except GitHubError as exc:
        if exc.status == 404:
            raise CapabilityError("NOT_FOUND", f"workflow run {run_id} not found") from None
        raise
    numbers = {p.get("number") for p in run.get("pull_requests") or []}
    if number not in numbers and run.get("head_sha") != pull["head"]["sha"]:
        raise CapabilityError(
            "VALIDATION",
            f"input.runId: workflow run {run_id} did not run for pull request #{number}",
        )
    if run.get("status") != "completed":
        raise CapabilityError(
            "CONFLICT",
            f"workflow run {run_id} is {run.get('status')}; only a completed run can re-run",
        )
    try:
        client.rest("POST", f"{run_path}/{'rerun-failed-jobs' if failed_only else 'rerun'}")
    except GitHubError as exc:
        refused = exc.status == 403 and "rerun" in exc.message.lower().replace("-", "")
        if exc.status == 409 or refused:
            raise CapabilityError("CONFLICT", exc.message) from None
        raise
    attempt = client.rest("GET", run_path).get("run_attempt")
    return {
        "prNumber": number,
        "runId": run_id,
        "mode": "failed" if failed_only else "all",
        "queued": True,
        "runAttempt": attempt,
    }


@capability(
    "pr.checks.rerun_failed",
    "Re-run the failed jobs of one of a pull request's workflow runs.",
    by_number("runId", runId=RUN_ID),
    mutates=True,
)
def pr_checks_rerun_failed(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _rerun_checks(client, input, failed_only=True)


@capability(
    "pr.checks.rerun_all",
    "Re-run every job of one of a pull request's workflow runs.",
    by_number("runId", runId=RUN_ID),
    mutates=True,
)
def pr_checks_rerun_all(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _rerun_checks(client, input, failed_only=False)
