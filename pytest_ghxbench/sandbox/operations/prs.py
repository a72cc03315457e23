"""World operations on pull requests: assignees, draft state, branch update and merge, and the
lookups and renderings the other pull request operations share.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pytest_ghxbench.sandbox.operations.actions import check_bucket, latest_checks
from pytest_ghxbench.sandbox.operations.registry import (
    CapabilityError,
    operation,
    require_collaborators,
    require_repo,
)
from pytest_ghxbench.sandbox.state import MergeStateStatus, PullRequest, World

__all__ = [
    "find_pull",
    "merge_state",
    "pull_url",
    "require_open",
    "review_decision",
    "touch",
]

MAX_ASSIGNEES = 10


# ---------------------------------------------------------------- lookups and derived state


def pull_url(world: World, number: int) -> str:
    """The pull request's page on GitHub."""
    return f"{world.repository.url}/pull/{number}"


def find_pull(world: World, input: dict[str, Any]) -> PullRequest:
    """The pull request ``input`` names (``owner``, ``name``, ``prNumber``), or ``NOT_FOUND``."""
    require_repo(world, input)
    number = input["prNumber"]
    pull = world.pull_request(number)
    if pull is None:
        hint = f" (#{number} is an issue)" if world.issue(number) else ""
        raise CapabilityError(
            "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}{hint}."
        )
    return pull


def require_open(pull: PullRequest, action: str) -> None:
    """``CONFLICT`` unless the pull request is open."""
    if pull.state != "OPEN":
        raise CapabilityError(
            "CONFLICT", f"cannot {action} pull request #{pull.number}: it is {pull.state.lower()}"
        )


def _base_protected(world: World, pull: PullRequest) -> bool:
    return any(b.name == pull.base_ref and b.protected for b in world.repository.branches)


def review_decision(world: World, pull: PullRequest) -> str | None:
    """APPROVED, CHANGES_REQUESTED, REVIEW_REQUIRED (protected base only) or None."""
    latest: dict[str, str] = {}
    for review in pull.reviews:
        if review.author != pull.author and review.state != "COMMENTED":
            latest[review.author] = review.state
    states = set(latest.values())
    if "CHANGES_REQUESTED" in states:
        return "CHANGES_REQUESTED"
    if "APPROVED" in states:
        return "APPROVED"
    return "REVIEW_REQUIRED" if _base_protected(world, pull) else None


def merge_state(world: World, pull: PullRequest) -> MergeStateStatus:
    """The merge state GitHub would report now (recomputed after a pull request changes)."""
    if pull.state != "OPEN":
        return "UNKNOWN"
    if pull.mergeable == "CONFLICTING":
        return "DIRTY"
    if pull.is_draft:
        return "DRAFT"
    buckets = {check_bucket(c) for c in latest_checks(world, pull.head_sha)}
    unsettled = bool(buckets & {"fail", "cancel", "pending"})
    if _base_protected(world, pull) and (unsettled or review_decision(world, pull) != "APPROVED"):
        return "BLOCKED"
    return "UNSTABLE" if unsettled else "CLEAN"


def touch(world: World, pull: PullRequest) -> None:
    """Record a change: new ``updated_at``, merge state recomputed."""
    pull.updated_at = world.tick()
    pull.merge_state_status = merge_state(world, pull)


def _sha(*parts: object) -> str:
    return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()


# ---------------------------------------------------------------- reads


# ---------------------------------------------------------------- mutations


@operation("pr.assignees.update")
def pr_assignees_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    add, remove = input.get("add", []), input.get("remove", [])
    if not add and not remove:
        raise CapabilityError("VALIDATION", "input: name at least one login in add or remove")
    require_collaborators(world, add, "input.add")
    assignees = [a for a in dict.fromkeys([*pull.assignees, *add]) if a not in remove]
    if len(assignees) > MAX_ASSIGNEES:
        raise CapabilityError(
            "VALIDATION", f"a pull request can have at most {MAX_ASSIGNEES} assignees"
        )
    pull.assignees = assignees
    touch(world, pull)
    return {
        "prNumber": pull.number,
        "add": list(add),
        "remove": list(remove),
        "assignees": list(assignees),
        "updated": True,
    }


@operation("pr.ready_for_review.set")
def pr_ready_for_review_set(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_open(pull, "mark ready" if input["ready"] else "convert to draft")
    if pull.is_draft == input["ready"]:
        pull.is_draft = not input["ready"]
        touch(world, pull)
    return {"prNumber": pull.number, "isDraft": pull.is_draft}


@operation("pr.branch.update")
def pr_branch_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_open(pull, "update the branch of")
    if pull.mergeable == "CONFLICTING":
        raise CapabilityError(
            "CONFLICT", f"merge conflict between base and head of pull request #{pull.number}"
        )
    branches = {b.name: b for b in world.repository.branches}
    base = branches.get(pull.base_ref)
    behind = base is not None and bool(pull.base_sha) and pull.base_sha != base.sha
    if behind and base is not None:
        pull.head_sha = _sha(pull.head_sha, base.sha)
        pull.base_sha = base.sha
        pull.commits += 1
        head = branches.get(pull.head_ref)
        if head is not None:
            head.sha = pull.head_sha
        touch(world, pull)
    return {"prNumber": pull.number, "updated": behind, "headSha": pull.head_sha}


@operation("pr.merge.execute")
def pr_merge_execute(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_open(pull, "merge")
    refusal = {
        "DRAFT": "it is still a draft",
        "DIRTY": "the merge commit cannot be cleanly created",
        "BLOCKED": "the base branch policy prohibits the merge",
    }.get(merge_state(world, pull))
    if refusal:
        raise CapabilityError(
            "CONFLICT", f"pull request #{pull.number} is not mergeable: {refusal}"
        )
    now = world.tick()
    repo = world.repository
    pull.state, pull.merged_at, pull.closed_at, pull.updated_at = "MERGED", now, now, now
    pull.merged_by = world.viewer
    pull.merge_commit_sha = _sha(pull.node_id, input["method"], now)
    pull.mergeable, pull.merge_state_status = "UNKNOWN", "UNKNOWN"
    for branch in repo.branches:
        if branch.name == pull.base_ref:
            branch.sha = pull.merge_commit_sha
    if pull.base_ref == repo.default_branch:
        for number in pull.closing_issues:
            issue = world.issue(number)
            if issue is not None and issue.state == "OPEN":
                issue.state, issue.state_reason = "CLOSED", "COMPLETED"
                issue.closed_at = issue.updated_at = now
    deleted = False
    if input["deleteBranch"]:
        kept = [b for b in repo.branches if b.name != pull.head_ref or b.protected]
        deleted = len(kept) < len(repo.branches)
        repo.branches = kept
    return {
        "prNumber": pull.number,
        "method": input["method"],
        "queued": False,
        "deleteBranch": input["deleteBranch"],
        "merged": True,
        "mergeCommitSha": pull.merge_commit_sha,
        "branchDeleted": deleted,
    }
