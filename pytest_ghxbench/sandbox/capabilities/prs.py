"""Pull request capabilities: reading, mergeability, assignees, draft state, branch and merge.

Checks are in :mod:`.pr_checks`, review threads and reviews in :mod:`.pr_reviews`. A pull
request is addressed by ``owner``, ``name`` and ``prNumber``; lists take ``first`` / ``after``
and return ``{items, pageInfo}``.

- ``pr.view`` (``exclude: ["body"]``) → id, number, title, state (OPEN, CLOSED, MERGED), url,
  body, labels, isDraft, author, headRefName, baseRefName
- ``pr.list`` (no ``prNumber``; ``state``: open (default), closed (includes merged), merged,
  all; newest first) → items{id, number, title, state, isDraft, url}
- ``pr.diff.list_files`` → items{path, additions, deletions, changeType}
- ``pr.mergeability.view`` → mergeable, mergeStateStatus, reviewDecision, isDraft, state
- ``pr.assignees.update`` (``add``, ``remove``: logins) → prNumber, add, remove, assignees,
  updated
- ``pr.ready_for_review.set`` (``ready``; false converts back to a draft) → prNumber, isDraft
- ``pr.branch.update`` → prNumber, updated, headSha
- ``pr.merge.execute`` (``method``: merge (default), squash, rebase; ``deleteBranch``) →
  prNumber, method, queued, deleteBranch, merged, mergeCommitSha, branchDeleted

``reviewDecision`` comes from each reviewer's latest approving or change-requesting review
(``REVIEW_REQUIRED`` only when nobody decided and the base branch is protected).

Mutations, as on GitHub: marking ready (or back to draft) changes ``isDraft`` (asking for the
state it has changes nothing); updating a branch that is behind its base adds a merge commit to
the head (an up-to-date branch is left alone: ``updated: false``); merging closes the issues the
pull request fixes when it targets the default branch, and may delete the head branch (never a
protected one). Every change recomputes the merge state (:func:`merge_state`).

Errors: ``NOT_FOUND`` for an unknown repository or pull request; ``VALIDATION`` for assignees
who are not collaborators, an assignee change naming nobody, or more than ten assignees;
``CONFLICT`` for changing a closed or merged pull request, merging a draft, conflicting or
blocked one, and updating a conflicting branch.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pytest_ghxbench.sandbox.capabilities.actions import check_bucket, latest_checks
from pytest_ghxbench.sandbox.capabilities.registry import (
    CapabilityError,
    capability,
    repo_schema,
    require_collaborators,
    require_repo,
)
from pytest_ghxbench.sandbox.state import MergeStateStatus, PullRequest, World

__all__ = [
    "BY_NUMBER",
    "LOGINS",
    "by_number",
    "find_pull",
    "merge_state",
    "pull_url",
    "require_open",
    "review_decision",
    "touch",
]

PR_NUMBER: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Pull request number"}
LOGINS: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}
MAX_ASSIGNEES = 10


def by_number(*required: str, **extra: dict[str, Any]) -> dict[str, Any]:
    """The input schema of a pull request addressed by number, with more properties."""
    return repo_schema("prNumber", *required, prNumber=PR_NUMBER, **extra)


BY_NUMBER = by_number()


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


_LIST_STATES = {"open": ("OPEN",), "closed": ("CLOSED", "MERGED"), "merged": ("MERGED",)}


# ---------------------------------------------------------------- mutations


@capability(
    "pr.assignees.update",
    "Add and/or remove assignees of a pull request (others stay assigned).",
    by_number(add=LOGINS, remove=LOGINS),
    mutates=True,
)
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


@capability(
    "pr.ready_for_review.set",
    "Mark a draft pull request ready for review (ready: false converts it back to a draft).",
    by_number("ready", ready={"type": "boolean"}),
    mutates=True,
)
def pr_ready_for_review_set(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_open(pull, "mark ready" if input["ready"] else "convert to draft")
    if pull.is_draft == input["ready"]:
        pull.is_draft = not input["ready"]
        touch(world, pull)
    return {"prNumber": pull.number, "isDraft": pull.is_draft}


@capability(
    "pr.branch.update",
    "Merge the base branch's latest commits into a pull request's head branch.",
    BY_NUMBER,
    mutates=True,
)
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


@capability(
    "pr.merge.execute",
    "Merge a pull request (merge, squash or rebase), optionally deleting its head branch.",
    by_number(
        method={"type": "string", "enum": ["merge", "squash", "rebase"], "default": "merge"},
        deleteBranch={"type": "boolean", "default": False},
    ),
    mutates=True,
)
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
