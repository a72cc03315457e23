"""GraphQL types for pull requests: reviews, review threads and their comments, review
requests, changed files and commits (checks are in :mod:`.checks`, projects in
:mod:`.projects`)."""

from __future__ import annotations

from typing import Any

# Imported for their side effect: they register the Commit and CheckRun types our fields return.
from pytest_ghxbench.sandbox.api.graphql.resolvers import checks, code  # noqa: F401
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.projects import project_items_of
from pytest_ghxbench.sandbox.api.rest.links import pull_id
from pytest_ghxbench.sandbox.code import pull_commits, pull_files
from pytest_ghxbench.sandbox.operations.actions import latest_checks
from pytest_ghxbench.sandbox.operations.pending_reviews import visible_reviews, visible_threads
from pytest_ghxbench.sandbox.operations.prs import review_decision
from pytest_ghxbench.sandbox.state import (
    PullRequest,
    Review,
    ReviewComment,
    ReviewThread,
    World,
)

__all__ = ["find_pr_node", "pull_by_number"]

A = dict[str, Any]
C = Context


def _actor(world: World, login: str | None) -> Typed | None:
    from pytest_ghxbench.sandbox.api.graphql.resolvers.types import actor

    return actor(world, login)


def latest_reviews(pull: PullRequest) -> list[Review]:
    """Each reviewer's latest non-pending review, in submission order."""
    newest: dict[str, Review] = {}
    for review in pull.reviews:
        if review.state != "PENDING":
            newest.pop(review.author, None)
            newest[review.author] = review
    return list(newest.values())


def pull_url(world: World, number: int) -> str:
    return f"{world.repository.url}/pull/{number}"


def pull_by_number(world: World, number: Any) -> PullRequest:
    pull = world.pull_request(int(number))
    if pull is None:
        raise GraphQLError(
            f"Could not resolve to a PullRequest with the number of {number}.", type="NOT_FOUND"
        )
    return pull


def find_pr_node(world: World, node: str) -> Typed | None:
    """Pull requests, reviews, threads, review comments, projects, items and check runs."""
    for pull in world.pull_requests:
        if pull.node_id == node:
            return Typed("PullRequest", pull)
        for review in visible_reviews(world, pull):
            if review.node_id == node:
                return Typed("PullRequestReview", (pull, review))
        for thread in visible_threads(world, pull):
            if thread.node_id == node:
                return Typed("PullRequestReviewThread", (pull, thread))
            for note in thread.comments:
                if note.node_id == node:
                    return Typed("PullRequestReviewComment", (pull, note))
    for project in world.projects:
        if project.node_id == node:
            return Typed("ProjectV2", project)
        for item in project.items:
            if item.id == node:
                return Typed("ProjectV2Item", (project, item))
    check = next((c for c in world.check_runs if c.node_id == node), None)
    return Typed("CheckRun", check) if check is not None else None


# ---------------------------------------------------------------- reviews and threads


def _thread_of(pull: PullRequest, note: ReviewComment) -> ReviewThread | None:
    return next((t for t in pull.review_threads if note in t.comments), None)


def _comment_state(pull: PullRequest, note: ReviewComment) -> str:
    review = next((r for r in pull.reviews if r.id == note.review_id), None)
    return "PENDING" if review is not None and review.state == "PENDING" else "SUBMITTED"


def _note(pull: PullRequest, note_id: int | None) -> tuple[PullRequest, ReviewComment] | None:
    for thread in pull.review_threads:
        for note in thread.comments:
            if note.id == note_id:
                return pull, note
    return None


obj(
    "PullRequestReviewComment",
    id=("ID", lambda p, a, c: p[1].node_id),
    databaseId=("Int", lambda p, a, c: p[1].id),
    fullDatabaseId=("BigInt", lambda p, a, c: str(p[1].id)),
    body=("String", lambda p, a, c: p[1].body),
    bodyText=("String", lambda p, a, c: p[1].body),
    author=("Actor", lambda p, a, c: _actor(c.world, p[1].author)),
    createdAt=("DateTime", lambda p, a, c: p[1].created_at),
    updatedAt=("DateTime", lambda p, a, c: p[1].created_at),
    url=("URI", lambda p, a, c: f"{pull_url(c.world, p[0].number)}#discussion_r{p[1].id}"),
    path=("String", lambda p, a, c: p[1].path),
    line=("Int", lambda p, a, c: p[1].line),
    originalLine=("Int", lambda p, a, c: p[1].line),
    diffHunk=("String", lambda p, a, c: p[1].diff_hunk),
    outdated=("Boolean", lambda p, a, c: bool((t := _thread_of(*p)) and t.is_outdated)),
    replyTo=("PullRequestReviewComment", lambda p, a, c: _note(p[0], p[1].in_reply_to)),
    pullRequestReview=(
        "PullRequestReview",
        lambda p, a, c: next(((p[0], r) for r in p[0].reviews if r.id == p[1].review_id), None),
    ),
    pullRequest=("PullRequest", lambda p, a, c: p[0]),
    state=("PullRequestReviewCommentState", lambda p, a, c: _comment_state(p[0], p[1])),
    viewerDidAuthor=("Boolean", lambda p, a, c: p[1].author == c.world.viewer),
    authorAssociation=(
        "CommentAuthorAssociation",
        lambda p, a, c: "MEMBER" if p[1].author in c.world.collaborators else "NONE",
    ),
)


def _thread_fields() -> dict[str, tuple[str, Any]]:
    def thread(p: tuple[PullRequest, ReviewThread]) -> ReviewThread:
        return p[1]

    return {
        "id": ("ID", lambda p, a, c: thread(p).node_id),
        "isResolved": ("Boolean", lambda p, a, c: thread(p).is_resolved),
        "isOutdated": ("Boolean", lambda p, a, c: thread(p).is_outdated),
        "isCollapsed": ("Boolean", lambda p, a, c: thread(p).is_resolved),
        "path": ("String", lambda p, a, c: thread(p).path),
        "line": ("Int", lambda p, a, c: thread(p).line),
        "originalLine": ("Int", lambda p, a, c: thread(p).line),
        "startLine": ("Int", lambda p, a, c: thread(p).start_line),
        "originalStartLine": ("Int", lambda p, a, c: thread(p).start_line),
        "diffSide": ("DiffSide", lambda p, a, c: thread(p).diff_side),
        "startDiffSide": (
            "DiffSide",
            lambda p, a, c: thread(p).diff_side if thread(p).start_line else None,
        ),
        "subjectType": (
            "PullRequestReviewThreadSubjectType",
            lambda p, a, c: "LINE" if thread(p).line else "FILE",
        ),
        "resolvedBy": ("User", lambda p, a, c: thread(p).resolved_by),
        "viewerCanResolve": ("Boolean", lambda p, a, c: not thread(p).is_resolved),
        "viewerCanUnresolve": ("Boolean", lambda p, a, c: thread(p).is_resolved),
        "viewerCanReply": ("Boolean", lambda p, a, c: True),
        "comments": connection(
            "PullRequestReviewComment", lambda p, a, c: [(p[0], n) for n in thread(p).comments]
        ),
        "pullRequest": ("PullRequest", lambda p, a, c: p[0]),
        "repository": ("Repository", lambda p, a, c: c.world),
    }


obj("PullRequestReviewThread", **_thread_fields())


def _review_fields() -> dict[str, tuple[str, Any]]:
    def review(p: tuple[PullRequest, Review]) -> Review:
        return p[1]

    return {
        "id": ("ID", lambda p, a, c: review(p).node_id),
        "databaseId": ("Int", lambda p, a, c: review(p).id),
        "fullDatabaseId": ("BigInt", lambda p, a, c: str(review(p).id)),
        "author": ("Actor", lambda p, a, c: _actor(c.world, review(p).author)),
        "body": ("String", lambda p, a, c: review(p).body),
        "bodyText": ("String", lambda p, a, c: review(p).body),
        "state": ("PullRequestReviewState", lambda p, a, c: review(p).state),
        "submittedAt": ("DateTime", lambda p, a, c: review(p).submitted_at),
        "createdAt": ("DateTime", lambda p, a, c: review(p).created_at or review(p).submitted_at),
        "url": (
            "URI",
            lambda p, a, c: f"{pull_url(c.world, p[0].number)}#pullrequestreview-{review(p).id}",
        ),
        # A review whose commit is unknown (seeded without one) has none, as GitHub allows.
        "commit": ("Commit", lambda p, a, c: review(p).commit_id or None),
        "comments": connection(
            "PullRequestReviewComment",
            lambda p, a, c: [
                (p[0], n)
                for t in p[0].review_threads
                for n in t.comments
                if n.review_id == review(p).id
            ],
        ),
        "pullRequest": ("PullRequest", lambda p, a, c: p[0]),
        "authorAssociation": (
            "CommentAuthorAssociation",
            lambda p, a, c: "MEMBER" if review(p).author in c.world.collaborators else "NONE",
        ),
    }


obj("PullRequestReview", **_review_fields())
abstract("RequestedReviewer", ("User", "Team", "Bot", "Mannequin"))
obj(
    "ReviewRequest",
    requestedReviewer=("RequestedReviewer", lambda login, a, c: _actor(c.world, login)),
    asCodeOwner=("Boolean", lambda login, a, c: False),
)
obj(
    "PullRequestChangedFile",
    path=("String", lambda f, a, c: f.path),
    additions=("Int", lambda f, a, c: f.additions),
    deletions=("Int", lambda f, a, c: f.deletions),
    changeType=(
        "PatchStatus",
        lambda f, a, c: {"removed": "DELETED"}.get(f.status, f.status.upper()),
    ),
)


# ---------------------------------------------------------------- pull requests


def _commits(world: World, pull: PullRequest) -> list[tuple[PullRequest, str]]:
    return [(pull, commit.sha) for commit in pull_commits(world, pull)]


def _branch(world: World, name: str) -> str | None:
    """A ``Ref`` value (its full name) for a branch, or None once it is gone."""
    full = f"refs/heads/{name}"
    return full if world.git.ref(full) is not None else None


def _pull_fields() -> dict[str, tuple[str, Any]]:
    return {
        "id": ("ID", lambda p, a, c: p.node_id),
        "databaseId": ("Int", lambda p, a, c: pull_id(p.number)),
        "fullDatabaseId": ("BigInt", lambda p, a, c: str(pull_id(p.number))),
        "number": ("Int", lambda p, a, c: p.number),
        "title": ("String", lambda p, a, c: p.title),
        "body": ("String", lambda p, a, c: p.body),
        "bodyText": ("String", lambda p, a, c: p.body),
        "state": ("PullRequestState", lambda p, a, c: p.state),
        "isDraft": ("Boolean", lambda p, a, c: p.is_draft),
        # the world's repositories have no merge queue, so GitHub answers false
        "isInMergeQueue": ("Boolean", lambda p, a, c: False),
        "isMergeQueueEnabled": ("Boolean", lambda p, a, c: False),
        "closed": ("Boolean", lambda p, a, c: p.state != "OPEN"),
        "merged": ("Boolean", lambda p, a, c: p.state == "MERGED"),
        "locked": ("Boolean", lambda p, a, c: False),
        "url": ("URI", lambda p, a, c: pull_url(c.world, p.number)),
        "resourcePath": ("URI", lambda p, a, c: f"/{c.full_name}/pull/{p.number}"),
        "author": ("Actor", lambda p, a, c: _actor(c.world, p.author)),
        "createdAt": ("DateTime", lambda p, a, c: p.created_at),
        "updatedAt": ("DateTime", lambda p, a, c: p.updated_at),
        "closedAt": ("DateTime", lambda p, a, c: p.closed_at),
        "mergedAt": ("DateTime", lambda p, a, c: p.merged_at),
        "mergedBy": ("Actor", lambda p, a, c: _actor(c.world, p.merged_by)),
        "mergeCommit": ("Commit", lambda p, a, c: p.merge_commit_sha or None),
        "mergeable": ("MergeableState", lambda p, a, c: p.mergeable),
        "mergeStateStatus": ("MergeStateStatus", lambda p, a, c: p.merge_state_status),
        "reviewDecision": (
            "PullRequestReviewDecision",
            lambda p, a, c: review_decision(c.world, p),
        ),
        "headRefName": ("String", lambda p, a, c: p.head_ref),
        "headRefOid": ("GitObjectID", lambda p, a, c: p.head_sha),
        "baseRefName": ("String", lambda p, a, c: p.base_ref),
        "baseRefOid": ("GitObjectID", lambda p, a, c: p.base_sha),
        "headRef": ("Ref", lambda p, a, c: _branch(c.world, p.head_ref)),
        "baseRef": ("Ref", lambda p, a, c: _branch(c.world, p.base_ref)),
        "headRepository": ("Repository", lambda p, a, c: c.world),
        "baseRepository": ("Repository", lambda p, a, c: c.world),
        "repository": ("Repository", lambda p, a, c: c.world),
        "isCrossRepository": ("Boolean", lambda p, a, c: False),
        "additions": ("Int", lambda p, a, c: sum(f.additions for f in pull_files(c.world, p))),
        "deletions": ("Int", lambda p, a, c: sum(f.deletions for f in pull_files(c.world, p))),
        "changedFiles": ("Int", lambda p, a, c: len(pull_files(c.world, p))),
        "labels": connection(
            "Label", lambda p, a, c: [x for x in (c.world.label(n) for n in p.labels) if x]
        ),
        "assignees": connection("User", lambda p, a, c: list(p.assignees)),
        "milestone": (
            "Milestone",
            lambda p, a, c: c.world.milestone(p.milestone) if p.milestone else None,
        ),
        "comments": connection("IssueComment", lambda p, a, c: [(p, x) for x in p.comments]),
        "reviews": connection(
            "PullRequestReview",
            lambda p, a, c: [
                (p, r)
                for r in visible_reviews(c.world, p)
                if (not a.get("states") or r.state in a["states"])
                and a.get("author") in (None, r.author)
            ],
        ),
        "latestReviews": connection(
            "PullRequestReview", lambda p, a, c: [(p, r) for r in latest_reviews(p)]
        ),
        "latestOpinionatedReviews": connection(
            "PullRequestReview",
            lambda p, a, c: [
                (p, r) for r in latest_reviews(p) if r.state in ("APPROVED", "CHANGES_REQUESTED")
            ],
        ),
        "reviewRequests": connection("ReviewRequest", lambda p, a, c: list(p.requested_reviewers)),
        "reviewThreads": connection(
            "PullRequestReviewThread",
            lambda p, a, c: [(p, t) for t in visible_threads(c.world, p)],
        ),
        "files": connection("PullRequestChangedFile", lambda p, a, c: pull_files(c.world, p)),
        "commits": connection("PullRequestCommit", lambda p, a, c: _commits(c.world, p)),
        "statusCheckRollup": (
            "StatusCheckRollup",
            lambda p, a, c: latest_checks(c.world, p.head_sha) or None,
        ),
        "closingIssuesReferences": connection(
            "Issue", lambda p, a, c: [i for i in (c.world.issue(n) for n in p.closing_issues) if i]
        ),
        "projectItems": connection(
            "ProjectV2Item", lambda p, a, c: project_items_of(c.world, "PullRequest", p.number)
        ),
        "autoMergeRequest": ("AutoMergeRequest", lambda p, a, c: None),
        "viewerDidAuthor": ("Boolean", lambda p, a, c: p.author == c.world.viewer),
        "permalink": ("URI", lambda p, a, c: pull_url(c.world, p.number)),
    }


obj("AutoMergeRequest", mergeMethod=("PullRequestMergeMethod", lambda m, a, c: m))
obj("PullRequest", **_pull_fields())
