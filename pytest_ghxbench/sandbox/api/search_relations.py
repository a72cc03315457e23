"""Issue and pull request search qualifiers about relations, reviews and the repository
(:mod:`.search` evaluates the rest): ``linked:``, ``parent-issue:``, ``sub-issue:``,
``project:``, ``reason:``, ``language:``, ``archived:``; and of pull requests ``head:``,
``base:``, ``draft:``, ``merged:``, ``review:``, ``review-requested:``,
``user-review-requested:``, ``reviewed-by:`` and ``status:`` (an issue has none of these)."""

from __future__ import annotations

import re

from pytest_ghxbench.sandbox.api.linguist import primary_language
from pytest_ghxbench.sandbox.api.search_syntax import in_range
from pytest_ghxbench.sandbox.operations.actions import check_bucket, latest_checks
from pytest_ghxbench.sandbox.operations.prs import review_decision
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__ = ["PULL_QUALIFIERS", "RELATIONS", "in_projects", "pull_qualifier", "relation"]

PULL_QUALIFIERS = frozenset(
    {"head", "base", "draft", "merged", "review", "review-requested", "user-review-requested",
     "reviewed-by", "status"}
)  # fmt: skip
RELATIONS = frozenset(
    {"linked", "parent-issue", "sub-issue", "project", "reason", "language", "archived"}
)
_REFERENCE = re.compile(r"^(?:([\w.-]+/[\w.-]+))?#(\d+)$")


def in_projects(world: World, item: Issue | PullRequest, owner: str = "", number: int = 0) -> bool:
    """Whether ``item`` is on a Projects v2 board (that one, given its owner and number)."""
    kind = "PullRequest" if isinstance(item, PullRequest) else "Issue"
    return any(
        entry.content_type == kind and entry.content_number == item.number
        for project in world.projects
        if (not owner or project.owner.casefold() == owner.casefold())
        and (not number or project.number == number)
        for entry in project.items
    )


def _review(world: World, pull: PullRequest) -> str:
    """GitHub's ``review:`` state of a pull request."""
    decision = review_decision(world, pull)
    if decision is not None:
        return "required" if decision == "REVIEW_REQUIRED" else decision.lower()
    return "none" if all(r.state == "PENDING" for r in pull.reviews) else ""


def _status(world: World, pull: PullRequest) -> str:
    """The combined state of the head commit's checks (the world keeps no commit statuses):
    empty without any, so that no ``status:`` value matches."""
    checks = latest_checks(world, pull.head_sha)
    buckets = {check_bucket(c) if c.status == "completed" else "pending" for c in checks}
    if not buckets:
        return ""
    if buckets & {"fail", "cancel"}:
        return "failure"
    return "pending" if "pending" in buckets else "success"


def pull_qualifier(world: World, pull: PullRequest, name: str, value: str) -> bool:
    login = (world.viewer if value == "@me" else value).casefold()
    if name == "head":
        return pull.head_ref == value
    if name == "base":
        return pull.base_ref == value
    if name == "draft":
        return pull.is_draft == (value.lower() == "true")
    if name == "merged":
        return pull.merged_at is not None and in_range(value, pull.merged_at)
    if name == "review":
        return _review(world, pull) == value.lower()
    if name == "status":
        return _status(world, pull) == value.lower()
    if name in ("review-requested", "user-review-requested"):
        return login in {r.casefold() for r in pull.requested_reviewers}
    return login in {r.author.casefold() for r in pull.reviews if r.state != "PENDING"}


def _number(world: World, reference: str) -> int | None:
    """The issue number of ``owner/repo#n`` (or ``#n``) when it is of the world's repository."""
    match = _REFERENCE.match(reference)
    if match is None:
        return None
    repo, number = match.groups()
    if repo is not None and repo.casefold() != world.repository.full_name.casefold():
        return None
    return int(number)


def relation(world: World, item: Issue | PullRequest, name: str, value: str) -> bool:
    folded = value.casefold()
    issue = item if isinstance(item, Issue) else None
    if name == "linked":
        if folded == "pr":
            return issue is not None and bool(world.linked_pull_requests(item.number))
        return folded == "issue" and isinstance(item, PullRequest) and bool(item.closing_issues)
    if name == "parent-issue":
        number = _number(world, value)
        return issue is not None and number is not None and issue.parent == number
    if name == "sub-issue":
        child = world.issue(_number(world, value) or 0)
        return issue is not None and child is not None and child.parent == item.number
    if name == "project":
        owner, _, board = value.rpartition("/")
        return board.isdigit() and in_projects(world, item, owner, int(board))
    if name == "reason":
        reason = folded.replace(" ", "_").upper()
        return issue is not None and issue.state == "CLOSED" and issue.state_reason == reason
    if name == "language":
        return (primary_language(world) or "").casefold() == folded
    return folded == str(world.repository.is_archived).lower()
