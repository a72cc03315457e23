"""World operations on pull request reviews: submitting reviews, requesting reviewers, replying
to and resolving review threads.
"""

from __future__ import annotations

from typing import Any, Literal

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.errors import GitHubError, NotFound, Unprocessable
from pytest_ghxbench.sandbox.operations.pending_reviews import (
    ONE_PENDING,
    check_submission,
    pending_review,
)
from pytest_ghxbench.sandbox.operations.prs import (
    find_pull,
    pull_url,
    require_open,
    touch,
)
from pytest_ghxbench.sandbox.operations.registry import operation
from pytest_ghxbench.sandbox.state import PullRequest, Review, ReviewComment, ReviewThread, World

__all__: list[str] = []


def _thread(world: World, node: str) -> tuple[PullRequest, ReviewThread]:
    found = world.review_thread(node)
    if found is None:
        raise NotFound(
            f"Could not resolve to a PullRequestReviewThread with the global id of '{node}'.",
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


@operation("addPullRequestReviewThreadReply")
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


@operation("resolveReviewThread")
def pr_comment_resolve(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _set_resolved(world, input["threadId"], True)


@operation("unresolveReviewThread")
def pr_comment_unresolve(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _set_resolved(world, input["threadId"], False)


# ---------------------------------------------------------------- reviews


Event = Literal["APPROVE", "COMMENT", "REQUEST_CHANGES"]
_STATES: dict[Event, Literal["APPROVED", "COMMENTED", "CHANGES_REQUESTED"]] = {
    "APPROVE": "APPROVED",
    "COMMENT": "COMMENTED",
    "REQUEST_CHANGES": "CHANGES_REQUESTED",
}


def _submit(world: World, input: dict[str, Any], event: Event) -> dict[str, Any]:
    pull = find_pull(world, input)
    check_submission(world, pull, event, input.get("body"), threads=False)
    if pending_review(world, pull) is not None:
        # GitHub refuses a new review, even a submitted one, while the user has a pending one
        raise Unprocessable(ONE_PENDING)
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


@operation("addPullRequestReview(event: APPROVE)")
def pr_review_submit_approve(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(world, input, "APPROVE")


@operation("addPullRequestReview(event: COMMENT)")
def pr_review_submit_comment(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(world, input, "COMMENT")


@operation("addPullRequestReview(event: REQUEST_CHANGES)")
def pr_review_submit_request_changes(world: World, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(world, input, "REQUEST_CHANGES")


@operation("requestReviews")
def pr_reviewers_request(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    require_open(pull, "request reviews on")
    for login in input["reviewers"]:
        if login == pull.author:
            raise Unprocessable(
                "Review cannot be requested from pull request author.",
            )
        if login not in world.collaborators:
            raise Unprocessable(
                f"Reviews may only be requested from collaborators; '{login}' is "
                f"not a collaborator of {world.repository.full_name}",
            )
    with history.tracked(world, pull):
        pull.requested_reviewers = list(
            dict.fromkeys([*pull.requested_reviewers, *input["reviewers"]])
        )
        touch(world, pull)
    return {"prNumber": pull.number, "reviewers": list(pull.requested_reviewers), "updated": True}


@operation("dismissPullRequestReview")
def pr_review_dismiss(world: World, input: dict[str, Any]) -> dict[str, Any]:
    """Dismiss a submitted approval or change request (``reviewId``) with ``message``: it
    counts no more towards the review decision."""
    pull = find_pull(world, input)
    review = next((r for r in pull.reviews if r.id == input["reviewId"]), None)
    if review is None or (review.state == "PENDING" and review.author != world.viewer):
        raise NotFound(
            f"Could not resolve to a PullRequestReview with the id of '{input['reviewId']}'."
        )
    if review.state not in ("APPROVED", "CHANGES_REQUESTED"):
        message = f"Can not dismiss a {review.state.lower()} pull request review"
        raise GitHubError(422, message)
    review.state = "DISMISSED"
    touch(world, pull)
    return {"prNumber": pull.number, "id": review.node_id, "state": review.state}
