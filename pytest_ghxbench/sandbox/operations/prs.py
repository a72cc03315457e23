"""World operations on pull requests: assignees, draft state, branch update and merge, and the
lookups and renderings the other pull request operations share.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.code import (
    branch_sha,
    github_committer,
    person,
    pull_commits,
    sync_pulls,
)
from pytest_ghxbench.sandbox.errors import Conflict, GitHubError, NotFound, Unprocessable
from pytest_ghxbench.sandbox.operations.actions import check_bucket, latest_checks
from pytest_ghxbench.sandbox.operations.registry import (
    operation,
    require_collaborators,
    require_repo,
)
from pytest_ghxbench.sandbox.state import MergeStateStatus, PullRequest, World
from pytest_ghxbench.sandbox.workflow_triggers import note_pull_opened

__all__ = [
    "closing_references",
    "find_pull",
    "merge_state",
    "open_pull",
    "pull_url",
    "require_base",
    "require_mergeable",
    "require_open",
    "require_state",
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
        raise NotFound(f"Could not resolve to a PullRequest with the number of {number}{hint}.")
    return pull


def require_open(pull: PullRequest, action: str) -> None:
    """``CONFLICT`` unless the pull request is open."""
    if pull.state != "OPEN":
        raise Conflict(f"cannot {action} pull request #{pull.number}: it is {pull.state.lower()}")


def _base_protected(world: World, pull: PullRequest) -> bool:
    return pull.base_ref in world.repository.protected_branches


def review_decision(world: World, pull: PullRequest) -> str | None:
    """APPROVED, CHANGES_REQUESTED, REVIEW_REQUIRED (protected base only) or None."""
    latest: dict[str, str] = {}
    for review in pull.reviews:
        if review.author != pull.author and review.state not in ("COMMENTED", "PENDING"):
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


NOT_MERGEABLE = "Pull Request is not mergeable"


def require_mergeable(world: World, pull: PullRequest) -> None:
    """GitHub's ``405`` (its words on REST and GraphQL alike) unless ``pull`` can be merged
    now: open, not a draft, without conflicts, and on a protected base approved with its
    checks passed."""
    if pull.state != "OPEN" or pull.mergeable == "CONFLICTING":
        raise GitHubError(405, NOT_MERGEABLE)
    if pull.is_draft:
        raise GitHubError(405, "Pull Request is still a draft")
    if not _base_protected(world, pull):
        return
    if review_decision(world, pull) != "APPROVED":
        raise GitHubError(
            405, "At least 1 approving review is required by reviewers with write access."
        )
    for check in latest_checks(world, pull.head_sha):
        bucket = check_bucket(check)
        if bucket in ("fail", "cancel", "pending"):
            state = "expected" if bucket == "pending" else "failing"
            raise GitHubError(405, f'Required status check "{check.name}" is {state}.')


def touch(world: World, pull: PullRequest) -> None:
    """Record a change: new ``updated_at``, merge state recomputed."""
    pull.updated_at = world.tick()
    pull.merge_state_status = merge_state(world, pull)


_CLOSING = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:([\w.-]+/[\w.-]+))?#(\d+)\b",
    re.IGNORECASE,
)


def closing_references(world: World, text: str) -> list[int]:
    """Issues a pull request's text closes (``Fixes #3``, ``closes acme-labs/tinykv#3``)."""
    found = []
    for repo, number in _CLOSING.findall(text or ""):
        same = not repo or repo.casefold() == world.repository.full_name.casefold()
        if same and world.issue(int(number)) is not None and int(number) not in found:
            found.append(int(number))
    return found


def open_pull(
    world: World, *, head: str, base: str, title: str, body: str = "", draft: bool = False
) -> PullRequest:
    """A new pull request from branch ``head`` into branch ``base``, as GitHub opens one:
    both must exist, differ, and not already have an open pull request between them. An issue
    its body says it fixes is linked (when ``base`` is the default branch)."""
    git = world.git
    head_sha, base_sha = branch_sha(world, head), branch_sha(world, base)
    if base_sha is None:
        raise NotFound(f"base branch {base!r} does not exist")
    if head_sha is None:
        raise NotFound(f"head branch {head!r} does not exist")
    owner = world.repository.owner
    for pull in world.pull_requests:
        if (pull.head_ref, pull.base_ref, pull.state) == (head, base, "OPEN"):
            raise Unprocessable(f"A pull request already exists for {owner}:{head}.")
    if git.is_ancestor(head_sha, base_sha):
        raise Unprocessable(f"No commits between {base} and {head}")
    number, now = world.next_issue_number(), world.tick()
    closes = closing_references(world, body) if base == world.repository.default_branch else []
    pull = PullRequest(
        number=number,
        title=title,
        node_id=world.node("PR", number),
        body=body,
        author=world.viewer,
        is_draft=draft,
        head_ref=head,
        head_sha=head_sha,
        base_ref=base,
        base_sha=base_sha,
        closing_issues=closes,
        created_at=now,
        updated_at=now,
    )
    world.pull_requests.append(pull)
    history.opened(world, pull)
    sync_pulls(world)
    pull.merge_state_status = merge_state(world, pull)
    note_pull_opened(world, pull)
    return pull


# ---------------------------------------------------------------- mutations


def require_base(world: World, pull: PullRequest, base: str) -> None:
    """GitHub's 422 unless branch ``base`` can become ``pull``'s base."""
    if pull.state != "OPEN":
        message = "Cannot change the base branch of a closed pull request"
        raise GitHubError.validation("PullRequest", "base", "invalid", message=message)
    if branch_sha(world, base) is None:
        message = f"Proposed base branch '{base}' was not found"
        raise GitHubError.validation("PullRequest", "base", "invalid", message=message)


def require_state(world: World, pull: PullRequest, state: str) -> None:
    """GitHub's 422 when ``pull`` cannot become ``state`` (``OPEN``/``CLOSED``): a merged
    pull request cannot be reopened, nor one whose head branch is gone."""
    if state != "OPEN" or pull.state == "OPEN":
        return
    if pull.state == "MERGED":
        reason = "The pull request cannot be reopened."
    elif branch_sha(world, pull.head_ref) is None:
        reason = f"The {pull.head_ref} branch has been deleted."
    else:
        return
    message = f"state cannot be changed. {reason}"
    raise GitHubError.validation("PullRequest", "state", "custom", message=message)


@operation("updatePullRequest(baseRefName:)")
def pr_base_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    base = str(input["baseRefName"])
    require_base(world, pull, base)
    if base != pull.base_ref:
        with history.tracked(world, pull):
            pull.base_ref = base
            sync_pulls(world)
            touch(world, pull)
    return {"prNumber": pull.number, "baseRefName": pull.base_ref}


def _set_state(
    world: World, input: dict[str, Any], state: Literal["OPEN", "CLOSED"]
) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_state(world, pull, state)
    if pull.state not in (state, "MERGED"):
        with history.tracked(world, pull):
            now = world.tick()
            pull.state, pull.updated_at = state, now
            pull.closed_at = now if state == "CLOSED" else None
            pull.merge_state_status = merge_state(world, pull)
    return {"prNumber": pull.number, "state": pull.state}


@operation("closePullRequest")
def pr_close(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _set_state(world, input, "CLOSED")


@operation("reopenPullRequest")
def pr_reopen(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _set_state(world, input, "OPEN")


@operation("updatePullRequest(assigneeIds:)")
def pr_assignees_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    add, remove = input.get("add", []), input.get("remove", [])
    if not add and not remove:
        raise Unprocessable("name at least one login in add or remove")
    require_collaborators(world, add)
    assignees = [a for a in dict.fromkeys([*pull.assignees, *add]) if a not in remove]
    if len(assignees) > MAX_ASSIGNEES:
        raise Unprocessable(f"a pull request can have at most {MAX_ASSIGNEES} assignees")
    with history.tracked(world, pull):
        pull.assignees = assignees
        touch(world, pull)
    return {
        "prNumber": pull.number,
        "add": list(add),
        "remove": list(remove),
        "assignees": list(assignees),
        "updated": True,
    }


@operation("markPullRequestReadyForReview|convertPullRequestToDraft")
def pr_ready_for_review_set(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_open(pull, "mark ready" if input["ready"] else "convert to draft")
    if pull.is_draft == input["ready"]:
        with history.tracked(world, pull):
            pull.is_draft = not input["ready"]
            touch(world, pull)
    return {"prNumber": pull.number, "isDraft": pull.is_draft}


@operation("updatePullRequestBranch")
def pr_branch_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_open(pull, "update the branch of")
    if pull.mergeable == "CONFLICTING":
        raise Conflict(f"merge conflict between base and head of pull request #{pull.number}")
    git = world.git
    base = branch_sha(world, pull.base_ref)
    behind = base is not None and not git.is_ancestor(base, pull.head_sha)
    if behind and base is not None:
        tree = git.merged_tree(pull.head_sha, base)
        if tree is None:
            raise Conflict(f"merge conflict between base and head of pull request #{pull.number}")
        now = world.tick()
        message = f"Merge branch '{pull.base_ref}' into {pull.head_ref}\n"
        sha = git.write_commit(
            tree, [pull.head_sha, base], message, person(world, world.viewer, now),
            github_committer(now),
        )  # fmt: skip
        git.set_ref(f"refs/heads/{pull.head_ref}", sha)
        world.repository.pushed_at = now
        sync_pulls(world)
        touch(world, pull)
    return {"prNumber": pull.number, "updated": behind, "headSha": pull.head_sha}


def _merge_commits(world: World, pull: PullRequest, input: dict[str, Any], now: str) -> str:
    """Write what merging ``pull`` by ``input["method"]`` adds to its base branch; the new tip."""
    git = world.git
    base = branch_sha(world, pull.base_ref)
    if base is None:
        raise Conflict(f"base branch {pull.base_ref} no longer exists")
    merger, committer = person(world, world.viewer, now), github_committer(now)
    method = input.get("method") or "merge"
    conflict = GitHubError(405, NOT_MERGEABLE)
    if method == "rebase":
        tip = base
        for commit in pull_commits(world, pull):
            tree = git.picked_tree(commit.sha, tip)
            if tree is None:
                raise conflict
            tip = git.write_commit(tree, [tip], commit.message, commit.author, committer)
        return tip
    tree = git.merged_tree(base, pull.head_sha)
    if tree is None:
        raise conflict
    if method == "squash":
        title = input.get("commitTitle") or f"{pull.title} (#{pull.number})"
        listed = "\n\n".join(f"* {c.message.strip()}" for c in pull_commits(world, pull))
        body = input.get("commitBody")
        message = f"{title}\n\n{listed if body is None else body}".rstrip() + "\n"
        return git.write_commit(tree, [base], message, person(world, pull.author, now), committer)
    source = f"{world.repository.owner}/{pull.head_ref}"
    title = input.get("commitTitle") or f"Merge pull request #{pull.number} from {source}"
    body = pull.title if input.get("commitBody") is None else input["commitBody"]
    message = f"{title}\n\n{body}".rstrip() + "\n"
    return git.write_commit(tree, [base, pull.head_sha], message, merger, committer)


@operation("mergePullRequest")
def pr_merge_execute(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_mergeable(world, pull)
    now = world.tick()
    repo = world.repository
    base_before = branch_sha(world, pull.base_ref)
    tip = _merge_commits(world, pull, input, now)
    world.git.set_ref(f"refs/heads/{pull.base_ref}", tip)
    pull.state, pull.merged_at, pull.closed_at, pull.updated_at = "MERGED", now, now, now
    pull.merged_by = world.viewer
    pull.base_sha = base_before or pull.base_sha
    pull.merge_commit_sha = tip
    pull.mergeable, pull.merge_state_status = "UNKNOWN", "UNKNOWN"
    repo.pushed_at = now
    history.merged(world, pull, tip)
    if pull.base_ref == repo.default_branch:
        for number in pull.closing_issues:
            issue = world.issue(number)
            if issue is not None and issue.state == "OPEN":
                issue.state, issue.state_reason = "CLOSED", "COMPLETED"
                issue.closed_at = issue.updated_at = now
                history.closed_by_merge(world, issue, pull, tip)
    deleted = False
    if input.get("deleteBranch") and pull.head_ref not in repo.protected_branches:
        deleted = world.git.delete_ref(f"refs/heads/{pull.head_ref}")
    sync_pulls(world)
    return {
        "prNumber": pull.number,
        "method": input.get("method") or "merge",
        "queued": False,
        "deleteBranch": bool(input.get("deleteBranch")),
        "merged": True,
        "mergeCommitSha": pull.merge_commit_sha,
        "branchDeleted": deleted,
    }
