"""GraphQL mutations that write pull request reviews, as GitHub's MCP server and gh send them:
``addPullRequestReview`` (submitted with an ``event``, else pending; with ``threads`` or
``comments``), ``addPullRequestReviewThread`` (a thread of the viewer's pending review),
``submitPullRequestReview``, ``deletePullRequestReview`` and ``dismissPullRequestReview``.

As on GitHub, a thread whose line is not in the diff is silently not added (the payload's
``thread`` is null), while REST refuses it; other refusals are ``UNPROCESSABLE`` errors with
GitHub's messages.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import GraphQLError
from pytest_ghxbench.sandbox.api.graphql.resolvers.mutations import (
    by_number,
    call_capability,
    done,
    input_of,
    need,
    pull_of,
    register,
    typed_node,
)
from pytest_ghxbench.sandbox.errors import GitHubError, Refused
from pytest_ghxbench.sandbox.operations.pending_reviews import (
    ONE_PENDING,
    ThreadSpot,
    add_thread,
    check_submission,
    delete_review,
    pending_review,
    start_review,
    submit_review,
    thread_problems,
)
from pytest_ghxbench.sandbox.state import PullRequest, Review, ReviewThread

__all__: list[str] = []

A = dict[str, Any]
C = Context
_EVENTS = {
    "APPROVE": "addPullRequestReview(event: APPROVE)",
    "REQUEST_CHANGES": "addPullRequestReview(event: REQUEST_CHANGES)",
    "COMMENT": "addPullRequestReview(event: COMMENT)",
}


def _unprocessable(message: str) -> GraphQLError:
    return GraphQLError(message, type="UNPROCESSABLE")


def _refused(action: Any) -> Any:
    try:
        return action()
    except Refused as exc:
        raise _unprocessable(exc.detail) from None
    except GitHubError as exc:
        raise GraphQLError(exc.graphql_message, type=exc.graphql_type) from None


def _spot(data: A) -> ThreadSpot:
    line, start = data.get("line"), data.get("startLine")
    side = str(data.get("side") or "RIGHT")
    if str(data.get("subjectType") or "LINE") == "FILE":
        line = start = None
    return ThreadSpot(
        path=str(data.get("path") or ""),
        line=int(line) if line is not None else None,
        side=side,
        start_line=int(start) if start is not None else None,
        start_side=str(data.get("startSide") or side) if start is not None else None,
    )


def _thread(ctx: C, pull: PullRequest, review: Review, data: A) -> ReviewThread | None:
    """A thread of ``review`` from a ``DraftPullRequestReviewThread``-like input, or ``None``
    when GitHub drops it (its lines are not lines of the diff)."""
    spot = _spot(data)
    in_diff, problems = thread_problems(ctx.world, pull, spot)
    if not in_diff:
        raise _unprocessable("Path could not be resolved")
    if problems:
        return None
    body = str(data.get("body") or "")
    if not body.strip():
        raise _unprocessable("Body can't be blank")
    ctx.mutated = True
    return add_thread(ctx.world, pull, review, spot, body, ctx.world.clock)


def _drafts(data: A) -> list[A]:
    """``threads``, and the older position-less ``comments`` as file-level threads."""
    threads = [t for t in data.get("threads") or [] if isinstance(t, dict)]
    for comment in data.get("comments") or []:
        if isinstance(comment, dict):
            threads.append({"path": comment.get("path"), "body": comment.get("body"),
                            "subjectType": "FILE"})  # fmt: skip
    return threads


def _add_review(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    pull = pull_of(ctx, need(data, "pullRequestId"))
    event, body = data.get("event"), data.get("body")
    drafts = _drafts(data)
    if event is not None and not drafts:
        text = {"body": body} if body else {}
        call_capability(ctx, _EVENTS[str(event)], {**by_number(ctx, pull), **text})
        return done(data, pullRequestReview=(pull, pull.reviews[-1]))
    if pending_review(ctx.world, pull) is not None:
        raise _unprocessable(ONE_PENDING)
    if event is not None:
        _refused(lambda: check_submission(ctx.world, pull, str(event), body, threads=True))
    ctx.mutated = True
    review = start_review(ctx.world, pull, body=str(body or ""), commit_id=data.get("commitOID"))
    for draft in drafts:
        _thread(ctx, pull, review, draft)
    if event is not None:
        try:
            _refused(lambda: submit_review(ctx.world, pull, review, str(event), body))
        except GraphQLError:
            delete_review(pull, review)  # every thread was dropped, and there is no body
            raise
    return done(data, pullRequestReview=(pull, review))


def _review_of(ctx: C, node: Any) -> tuple[PullRequest, Review]:
    found: tuple[PullRequest, Review] = typed_node(ctx, node, "PullRequestReview")
    return found


def _add_thread(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    if data.get("pullRequestReviewId"):
        pull, review = _review_of(ctx, data["pullRequestReviewId"])
        if review.state != "PENDING":
            raise _unprocessable("Review has already been submitted.")
    else:
        pull = pull_of(ctx, need(data, "pullRequestId"))
        review = pending_review(ctx.world, pull) or start_review(ctx.world, pull)
        ctx.mutated = True
    thread = _thread(ctx, pull, review, data)
    return done(data, thread=(pull, thread) if thread is not None else None)


def _submit(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    event = need(data, "event")
    if data.get("pullRequestReviewId"):
        pull, review = _review_of(ctx, data["pullRequestReviewId"])
    else:
        pull = pull_of(ctx, need(data, "pullRequestId"))
        found = pending_review(ctx.world, pull)
        if found is None:
            raise _unprocessable("Could not find a pending review for this pull request")
        review = found
    ctx.mutated = True
    _refused(lambda: submit_review(ctx.world, pull, review, str(event), data.get("body")))
    return done(data, pullRequestReview=(pull, review))


def _delete(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    pull, review = _review_of(ctx, need(data, "pullRequestReviewId"))
    ctx.mutated = True
    _refused(lambda: delete_review(pull, review))
    return done(data, pullRequestReview=(pull, review))


def _dismiss(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    pull, review = _review_of(ctx, need(data, "pullRequestReviewId"))
    payload = {**by_number(ctx, pull), "reviewId": review.id, "message": need(data, "message")}
    call_capability(ctx, "dismissPullRequestReview", payload)
    return done(data, pullRequestReview=(pull, review))


register("addPullRequestReview", _add_review, pullRequestReview="PullRequestReview")
register("addPullRequestReviewThread", _add_thread, thread="PullRequestReviewThread")
register("submitPullRequestReview", _submit, pullRequestReview="PullRequestReview")
register("deletePullRequestReview", _delete, pullRequestReview="PullRequestReview")
register("dismissPullRequestReview", _dismiss, pullRequestReview="PullRequestReview")
