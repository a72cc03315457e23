"""Pull request review capabilities: review threads, reviews and review requests.

Pull requests are addressed by ``owner``, ``name`` and ``prNumber``; review threads by node id
(``threadId``, ``PRRT_...``), as GitHub's GraphQL mutations do. Lists take ``first`` /
``after`` and return ``{items, pageInfo}``.

- ``pr.comments.list`` (``unresolvedOnly``, default true; ``includeOutdated``, default false)
  → items{id, path, line, startLine, diffSide, subjectType, isResolved, isOutdated,
  viewerCanReply, viewerCanResolve, viewerCanUnresolve, resolvedByLogin, comments{id,
  authorLogin, body, createdAt, url}}, pageInfo, filterApplied
- ``pr.comment.reply`` (``threadId``, ``body``) → id, threadId, authorLogin, body, createdAt,
  url, isResolved
- ``pr.comment.resolve`` / ``pr.comment.unresolve`` (``threadId``) → id, isResolved,
  resolvedByLogin
- ``pr.reviews.list`` (oldest first) → items{id, authorLogin, body, state, submittedAt, url,
  commitOid}, pageInfo
- ``pr.review.submit_approve`` (``body`` optional), ``pr.review.submit_comment`` and
  ``pr.review.submit_request_changes`` (``body`` required) → prNumber, event (APPROVE, COMMENT,
  REQUEST_CHANGES), submitted, id, state, body, url
- ``pr.reviewers.request`` (``reviewers``: logins) → prNumber, reviewers (everyone requested
  now), updated

Mutations, as on GitHub: a reply is the viewer's comment at the end of the thread; resolving a
resolved thread (or unresolving an open one) changes nothing; a review is the viewer's, on the
head commit, and takes the viewer off the requested reviewers; requesting a reviewer twice
requests them once.

Errors: ``NOT_FOUND`` for an unknown repository, pull request or thread; ``VALIDATION`` for an
empty body where one is required, reviewers who are not collaborators, and asking the author
to review; ``CONFLICT`` for approving or requesting changes on the viewer's own pull request
and requesting reviews on a closed or merged one.
"""

from __future__ import annotations

from typing import Any, Literal

from pytest_ghxbench.sandbox.capabilities.prs import (
    LOGINS,
    by_number,
    find_pull,
    pull_url,
    require_open,
    touch,
)
from pytest_ghxbench.sandbox.capabilities.registry import (
    CapabilityError,
    capability,
    input_schema,
)
from pytest_ghxbench.sandbox.state import PullRequest, Review, ReviewComment, ReviewThread, World

__all__: list[str] = []

THREAD_ID: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "Review thread node id (PRRT_...)",
}
BODY: dict[str, Any] = {"type": "string", "minLength": 1}
BY_THREAD = input_schema(["threadId"], threadId=THREAD_ID)


def _thread(world: World, node: str) -> tuple[PullRequest, ReviewThread]:
    found = world.review_thread(node)
    if found is None:
        raise CapabilityError(
            "NOT_FOUND",
            f"input.threadId: Could not resolve to a PullRequestReviewThread with the global id "
            f"of '{node}'.",
        )
    return found


def _note(world: World, pull: PullRequest, note: ReviewComment) -> dict[str, Any]:
    return {
        "id": note.node_id,
        "authorLogin": note.author,
        "body": note.body,
        "createdAt": note.created_at,
        "url": f"{pull_url(world, pull.number)}#discussion_r{note.id}",
    }


# ---------------------------------------------------------------- review threads


@capability(
    "pr.comment.reply",
    "Reply to a pull request review thread.",
    input_schema(["threadId", "body"], threadId=THREAD_ID, body=BODY),
    route="graphql",
    mutates=True,
)
def pr_comment_reply(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull, thread = _thread(world, input["threadId"])
    note_id = world.next_id()
    note = ReviewComment(
        id=note_id,
        node_id=world.node("PRRC", note_id),
        author=world.viewer,
        body=input["body"],
        created_at=world.tick(),
        path=thread.path,
        line=thread.line,
        in_reply_to=thread.comments[0].id if thread.comments else None,
    )
    thread.comments.append(note)
    pull.updated_at = note.created_at
    return {
        **_note(world, pull, note),
        "threadId": thread.node_id,
        "isResolved": thread.is_resolved,
    }


def _set_resolved(world: World, node: str, resolved: bool) -> dict[str, Any]:
    pull, thread = _thread(world, node)
    if thread.is_resolved != resolved:
        thread.is_resolved = resolved
        thread.resolved_by = world.viewer if resolved else None
        pull.updated_at = world.tick()
    return {
        "id": thread.node_id,
        "isResolved": thread.is_resolved,
        "resolvedByLogin": thread.resolved_by,
    }


@capability(
    "pr.comment.resolve",
    "Resolve a pull request review thread.",
    BY_THREAD,
    route="graphql",
    mutates=True,
)
def pr_comment_resolve(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _set_resolved(world, input["threadId"], True)


@capability(
    "pr.comment.unresolve",
    "Mark a resolved pull request review thread unresolved again.",
    BY_THREAD,
    route="graphql",
    mutates=True,
)
def pr_comment_unresolve(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _set_resolved(world, input["threadId"], False)


# ---------------------------------------------------------------- reviews


Event = Literal["APPROVE", "COMMENT", "REQUEST_CHANGES"]
_STATES: dict[Event, Literal["APPROVED", "COMMENTED", "CHANGES_REQUESTED"]] = {
    "APPROVE": "APPROVED",
    "COMMENT": "COMMENTED",
    "REQUEST_CHANGES": "CHANGES_REQUESTED",
}
_OWN_PULL = {"APPROVE": "approve", "REQUEST_CHANGES": "request changes on"}


def _submit(world: World, input: dict[str, Any], event: Event) -> dict[str, Any]:
    pull = find_pull(world, input)
    if pull.author == world.viewer and event in _OWN_PULL:
        raise CapabilityError("CONFLICT", f"Can not {_OWN_PULL[event]} your own pull request")
    review_id = world.next_id()
    review = Review(
        id=review_id,
        node_id=world.node("PRR", review_id),
        author=world.viewer,
        state=_STATES[event],
        body=input.get("body", ""),
        submitted_at=world.tick(),
        commit_id=pull.head_sha,
    )
    pull.reviews.append(review)
    pull.requested_reviewers = [r for r in pull.requested_reviewers if r != world.viewer]
    touch(world, pull)
    return {
        "prNumber": pull.number,
        "event": event,
        "submitted": True,
        "id": review.node_id,
        "state": review.state,
        "body": review.body,
        "url": f"{pull_url(world, pull.number)}#pullrequestreview-{review.id}",
    }


@capability(
    "pr.review.submit_approve",
    "Approve a pull request, optionally with a comment.",
    by_number(body=BODY),
    mutates=True,
)
def pr_review_submit_approve(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(world, input, "APPROVE")


@capability(
    "pr.review.submit_comment",
    "Submit a comment-only review of a pull request.",
    by_number("body", body=BODY),
    mutates=True,
)
def pr_review_submit_comment(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(world, input, "COMMENT")


@capability(
    "pr.review.submit_request_changes",
    "Submit a review of a pull request that requests changes.",
    by_number("body", body=BODY),
    mutates=True,
)
def pr_review_submit_request_changes(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(world, input, "REQUEST_CHANGES")


@capability(
    "pr.reviewers.request",
    "Request reviews of a pull request from collaborators.",
    by_number("reviewers", reviewers={**LOGINS, "minItems": 1}),
    mutates=True,
)
def pr_reviewers_request(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_open(pull, "request reviews on")
    for login in input["reviewers"]:
        if login == pull.author:
            raise CapabilityError(
                "VALIDATION",
                "input.reviewers: Review cannot be requested from pull request author.",
            )
        if login not in world.collaborators:
            raise CapabilityError(
                "VALIDATION",
                f"input.reviewers: Reviews may only be requested from collaborators; '{login}' is "
                f"not a collaborator of {world.repository.full_name}",
            )
    pull.requested_reviewers = list(dict.fromkeys([*pull.requested_reviewers, *input["reviewers"]]))
    touch(world, pull)
    return {"prNumber": pull.number, "reviewers": list(pull.requested_reviewers), "updated": True}
