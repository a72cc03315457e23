"""World objects in the shapes ``gh ... --json`` prints (gh's export names and nesting).

Each ``*_FIELDS`` tuple is the field list the matching gh command accepts; the
``*_getters`` functions map each field name to a zero-argument function, so only requested
fields are computed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from pytest_ghxbench.sandbox.capabilities.actions import check_url, latest_checks
from pytest_ghxbench.sandbox.state import (
    CheckRun,
    Comment,
    Issue,
    PullRequest,
    Review,
    World,
    node_id,
)

__all__ = [
    "ISSUE_FIELDS",
    "PR_FIELDS",
    "author",
    "check_bucket",
    "check_state",
    "checks_of",
    "comment_json",
    "issue_getters",
    "label_json",
    "latest_reviews",
    "pr_getters",
    "review_decision",
    "workflow_name_of_check",
]

Getters = dict[str, Callable[[], Any]]

_SHARED = (
    "assignees",
    "author",
    "body",
    "closed",
    "closedAt",
    "comments",
    "createdAt",
    "id",
    "labels",
    "milestone",
    "number",
    "projectCards",
    "projectItems",
    "reactionGroups",
    "state",
    "title",
    "updatedAt",
    "url",
)
ISSUE_FIELDS = tuple(
    sorted((*_SHARED, "closedByPullRequestsReferences", "isPinned", "stateReason"))
)
PR_FIELDS = tuple(
    sorted(
        (
            *_SHARED,
            "additions",
            "autoMergeRequest",
            "baseRefName",
            "baseRefOid",
            "changedFiles",
            "closingIssuesReferences",
            "commits",
            "deletions",
            "files",
            "fullDatabaseId",
            "headRefName",
            "headRefOid",
            "headRepository",
            "headRepositoryOwner",
            "isCrossRepository",
            "isDraft",
            "latestReviews",
            "maintainerCanModify",
            "mergeCommit",
            "mergeStateStatus",
            "mergeable",
            "mergedAt",
            "mergedBy",
            "potentialMergeCommit",
            "reviewDecision",
            "reviewRequests",
            "reviews",
            "statusCheckRollup",
        )
    )
)


ISSUE_DATABASE_BASE = 3_100_000_000
PR_DATABASE_BASE = 2_000_000_000
"""Issues and pull requests have no database id in the seed; the dialect derives one from
the number (``base + number``), so REST ids and GraphQL ``databaseId`` agree."""


def issue_database_id(number: int) -> int:
    return ISSUE_DATABASE_BASE + number


def pr_database_id(number: int) -> int:
    return PR_DATABASE_BASE + number


def user_id(login: str) -> str:
    return node_id("U", login)


def author(world: World, login: str | None) -> dict[str, Any] | None:
    """gh's author object: ``{id, is_bot, login, name}`` (bots: ``app/<login>``)."""
    if not login:
        return None
    user = next((u for u in world.users if u.login == login), None)
    if user is not None and user.type == "Bot":
        return {"id": user_id(login), "is_bot": True, "login": f"app/{login}"}
    return {
        "id": user_id(login),
        "is_bot": False,
        "login": login,
        "name": user.name if user else "",
    }


def login_json(login: str) -> dict[str, Any]:
    return {"login": login}


def assignee_json(world: World, login: str) -> dict[str, Any]:
    user = next((u for u in world.users if u.login == login), None)
    return {"id": user_id(login), "login": login, "name": user.name if user else ""}


def label_json(world: World, name: str) -> dict[str, Any]:
    label = world.label(name)
    if label is None:
        return {"id": "", "name": name, "description": "", "color": "ededed"}
    return {
        "id": label.node_id,
        "name": label.name,
        "description": label.description,
        "color": label.color,
    }


def milestone_json(world: World, number: int | None) -> dict[str, Any] | None:
    milestone = world.milestone(number) if number is not None else None
    if milestone is None:
        return None
    return {
        "number": milestone.number,
        "title": milestone.title,
        "description": milestone.description,
        "dueOn": milestone.due_on,
    }


def association(world: World, login: str) -> str:
    if login == world.repository.owner:
        return "OWNER"
    return "MEMBER" if login in world.collaborators else "NONE"


def comment_json(world: World, url: str, comment: Comment) -> dict[str, Any]:
    return {
        "id": comment.node_id,
        "author": login_json(comment.author),
        "authorAssociation": association(world, comment.author),
        "body": comment.body,
        "createdAt": comment.created_at,
        "includesCreatedEdit": comment.updated_at is not None,
        "isMinimized": False,
        "minimizedReason": "",
        "reactionGroups": [],
        "url": f"{url}#issuecomment-{comment.id}",
        "viewerDidAuthor": comment.author == world.viewer,
    }


def review_json(world: World, pull: PullRequest, review: Review) -> dict[str, Any]:
    return {
        "id": review.node_id,
        "author": login_json(review.author),
        "authorAssociation": association(world, review.author),
        "body": review.body,
        "submittedAt": review.submitted_at,
        "includesCreatedEdit": False,
        "reactionGroups": [],
        "state": review.state,
        "commit": {"oid": review.commit_id or pull.head_sha},
    }


def latest_reviews(pull: PullRequest) -> list[Review]:
    """Each reviewer's latest non-pending review, in submission order."""
    newest: dict[str, Review] = {}
    for review in pull.reviews:
        if review.state != "PENDING":
            newest.pop(review.author, None)
            newest[review.author] = review
    return list(newest.values())


def review_decision(pull: PullRequest) -> str:
    states = {r.state for r in latest_reviews(pull)}
    if "CHANGES_REQUESTED" in states:
        return "CHANGES_REQUESTED"
    if "APPROVED" in states:
        return "APPROVED"
    return "REVIEW_REQUIRED" if pull.requested_reviewers else ""


def issue_url(world: World, number: int) -> str:
    return f"{world.repository.url}/issues/{number}"


def pr_url(world: World, number: int) -> str:
    return f"{world.repository.url}/pull/{number}"


def _repo_ref(world: World) -> dict[str, Any]:
    repo = world.repository
    return {
        "id": repo.node_id,
        "name": repo.name,
        "owner": {"id": user_id(repo.owner), "login": repo.owner},
    }


def project_items(world: World, kind: str, number: int) -> list[dict[str, Any]]:
    found = []
    for project in world.projects:
        for item in project.items:
            if item.content_type == kind and item.content_number == number:
                status = next((f for f in project.fields if f.name == "Status"), None)
                option_id = item.field_values.get(status.id) if status else None
                option = (
                    next((o for o in status.options if o.id == option_id), None) if status else None
                )
                found.append(
                    {
                        "status": {"optionId": option.id, "name": option.name} if option else None,
                        "title": project.title,
                    }
                )
    return found


def _shared_getters(world: World, item: Issue | PullRequest, url: str, kind: str) -> Getters:
    return {
        "assignees": lambda: [assignee_json(world, login) for login in item.assignees],
        "author": lambda: author(world, item.author),
        "body": lambda: item.body,
        "closed": lambda: item.state != "OPEN",
        "closedAt": lambda: item.closed_at,
        "comments": lambda: [comment_json(world, url, c) for c in item.comments],
        "createdAt": lambda: item.created_at,
        "id": lambda: item.node_id,
        "labels": lambda: [label_json(world, name) for name in item.labels],
        "milestone": lambda: milestone_json(world, item.milestone),
        "number": lambda: item.number,
        "projectCards": lambda: [],
        "projectItems": lambda: project_items(world, kind, item.number),
        "reactionGroups": lambda: [],
        "state": lambda: item.state,
        "title": lambda: item.title,
        "updatedAt": lambda: item.updated_at,
        "url": lambda: url,
    }


def issue_getters(world: World, issue: Issue) -> Getters:
    getters = _shared_getters(world, issue, issue_url(world, issue.number), "Issue")
    getters.update(
        {
            "closedByPullRequestsReferences": lambda: [
                {
                    "id": p.node_id,
                    "number": p.number,
                    "repository": _repo_ref(world),
                    "url": pr_url(world, p.number),
                }
                for p in world.linked_pull_requests(issue.number)
            ],
            "isPinned": lambda: False,
            "stateReason": lambda: issue.state_reason or "",
        }
    )
    return getters


def fake_oid(*key: object) -> str:
    """A stable 40-hex commit id for commits the seed does not spell out."""
    return hashlib.sha1(":".join(map(str, key)).encode()).hexdigest()


def _commits(world: World, pull: PullRequest) -> list[dict[str, Any]]:
    commits = []
    who = author(world, pull.author) or {}
    for index in range(1, pull.commits + 1):
        last = index == pull.commits
        commits.append(
            {
                "oid": pull.head_sha if last else fake_oid(pull.head_sha, index),
                "messageHeadline": pull.title if last else f"{pull.title} (part {index})",
                "messageBody": "",
                "committedDate": pull.updated_at if last else pull.created_at,
                "authoredDate": pull.updated_at if last else pull.created_at,
                "authors": [
                    {
                        "email": f"{pull.author}@users.noreply.github.com",
                        "id": who.get("id", ""),
                        "login": pull.author,
                        "name": who.get("name", ""),
                    }
                ],
            }
        )
    return commits


def checks_of(world: World, pull: PullRequest) -> list[CheckRun]:
    return latest_checks(world, pull.head_sha)


def workflow_name_of_check(world: World, check: CheckRun) -> str:
    job = world.job(check.job_id) if check.job_id is not None else None
    run = world.workflow_run(job.run_id) if job is not None else None
    if run is None:
        return ""
    flow = next((f for f in world.workflows if f.id == run.workflow_id), None)
    return flow.name if flow else run.name


def check_state(check: CheckRun) -> str:
    """GraphQL's state of a check run: its conclusion once completed, else its status."""
    if check.status == "completed":
        return (check.conclusion or "").upper()
    return check.status.upper()


def check_bucket(state: str) -> str:
    """``gh pr checks``' bucket of a state: pass, fail, pending, skipping or cancel."""
    if state == "SUCCESS":
        return "pass"
    if state in ("SKIPPED", "NEUTRAL"):
        return "skipping"
    if state in ("ERROR", "FAILURE", "TIMED_OUT", "ACTION_REQUIRED", "STARTUP_FAILURE"):
        return "fail"
    if state == "CANCELLED":
        return "cancel"
    return "pending"


def _rollup(world: World, pull: PullRequest) -> list[dict[str, Any]]:
    return [
        {
            "__typename": "CheckRun",
            "completedAt": check.completed_at or "0001-01-01T00:00:00Z",
            "conclusion": (check.conclusion or "").upper(),
            "detailsUrl": check_url(world, check),
            "name": check.name,
            "startedAt": check.started_at or "0001-01-01T00:00:00Z",
            "status": check.status.upper(),
            "workflowName": workflow_name_of_check(world, check),
        }
        for check in checks_of(world, pull)
    ]


def pr_getters(world: World, pull: PullRequest) -> Getters:
    getters = _shared_getters(world, pull, pr_url(world, pull.number), "PullRequest")
    repo = world.repository
    getters.update(
        {
            "additions": lambda: sum(f.additions for f in pull.files),
            "autoMergeRequest": lambda: None,
            "baseRefName": lambda: pull.base_ref,
            "baseRefOid": lambda: pull.base_sha,
            "changedFiles": lambda: len(pull.files),
            "closingIssuesReferences": lambda: [
                {
                    "id": i.node_id,
                    "number": i.number,
                    "repository": _repo_ref(world),
                    "url": issue_url(world, i.number),
                }
                for i in (world.issue(n) for n in pull.closing_issues)
                if i is not None
            ],
            "commits": lambda: _commits(world, pull),
            "deletions": lambda: sum(f.deletions for f in pull.files),
            "files": lambda: [
                {
                    "path": f.path,
                    "additions": f.additions,
                    "deletions": f.deletions,
                    "changeType": {"removed": "DELETED"}.get(f.status, f.status.upper()),
                }
                for f in pull.files
            ],
            "fullDatabaseId": lambda: str(pr_database_id(pull.number)),
            "headRefName": lambda: pull.head_ref,
            "headRefOid": lambda: pull.head_sha,
            "headRepository": lambda: {"id": repo.node_id, "name": repo.name},
            "headRepositoryOwner": lambda: {"id": user_id(repo.owner), "login": repo.owner},
            "isCrossRepository": lambda: False,
            "isDraft": lambda: pull.is_draft,
            "latestReviews": lambda: [review_json(world, pull, r) for r in latest_reviews(pull)],
            "maintainerCanModify": lambda: False,
            "mergeCommit": lambda: (
                {"oid": pull.merge_commit_sha} if pull.merge_commit_sha else None
            ),
            "mergeStateStatus": lambda: pull.merge_state_status,
            "mergeable": lambda: pull.mergeable,
            "mergedAt": lambda: pull.merged_at,
            "mergedBy": lambda: author(world, pull.merged_by),
            "potentialMergeCommit": lambda: (
                None
                if pull.state != "OPEN"
                else {"oid": fake_oid("merge", pull.head_sha, pull.base_sha)}
            ),
            "reviewDecision": lambda: review_decision(pull),
            "reviewRequests": lambda: [
                {"__typename": "User", "login": login} for login in pull.requested_reviewers
            ],
            "reviews": lambda: [review_json(world, pull, r) for r in pull.reviews],
            "statusCheckRollup": lambda: _rollup(world, pull),
        }
    )
    return getters
