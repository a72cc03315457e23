"""REST routes that write pull request reviews: creating one (submitted with an ``event``, or
pending without one), with ``comments`` on lines of the diff; submitting, editing and deleting
a pending review; dismissing a submitted one; a review's comments. Refusals are GitHub's ``422
Unprocessable Entity`` with its messages (``User can only have one pending review per pull
request``, ``Pull request review thread line must be part of the diff`` ...)."""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_pulls import review_comment_json, review_json
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    call,
    missing_field,
    or_not_found,
    paged,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.code import pull_files
from pytest_ghxbench.sandbox.errors import Refused
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
    visible_reviews,
)
from pytest_ghxbench.sandbox.state import PullRequest, Review, ReviewThread, World

__all__: list[str] = []

_PULL = "/repos/{owner}/{repo}/pulls/{pull_number}"
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)")
_REVIEW = _PULL + "/reviews/{review_id}"
_EVENTS = {
    "APPROVE": "addPullRequestReview(event: APPROVE)",
    "REQUEST_CHANGES": "addPullRequestReview(event: REQUEST_CHANGES)",
    "COMMENT": "addPullRequestReview(event: COMMENT)",
}


def _unprocessable(*messages: str) -> RestError:
    return RestError(422, "Unprocessable Entity", list(messages))


def _sentence(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b, and c``: how GitHub joins a record's errors."""
    if len(parts) < 3:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


def _pull(ctx: Ctx) -> PullRequest:
    return or_not_found(ctx.world.pull_request(ctx.number("pull_number")))


def _from_position(world: World, pull: PullRequest, path: str, position: int) -> ThreadSpot:
    """The line a ``position`` points at: ``position`` lines below the file's first ``@@``."""
    change = next((f for f in pull_files(world, pull) if f.path == path), None)
    rows = (change.patch or "").splitlines() if change is not None else []
    if not 1 <= position < len(rows) or rows[position].startswith(("@@", "\\")):
        raise _unprocessable("Position could not be resolved")
    old = new = line = 0
    side = "RIGHT"
    for row in rows[: position + 1]:
        hunk = _HUNK.match(row)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
        elif row.startswith("-"):
            line, side, old = old, "LEFT", old + 1
        elif row.startswith("+"):
            line, side, new = new, "RIGHT", new + 1
        elif not row.startswith("\\"):
            line, side, old, new = new, "RIGHT", old + 1, new + 1
    return ThreadSpot(path, line, side)


def _spot(world: World, pull: PullRequest, comment: dict[str, Any]) -> ThreadSpot:
    path = str(comment.get("path") or "")
    if comment.get("position") is not None and comment.get("line") is None:
        return _from_position(world, pull, path, int(comment["position"]))
    line = comment.get("line")
    start = comment.get("start_line")
    side = str(comment.get("side") or "RIGHT")
    return ThreadSpot(
        path,
        int(line) if line is not None else None,
        side,
        int(start) if start is not None else None,
        str(comment.get("start_side") or side) if start is not None else None,
    )


def _checked_comments(ctx: Ctx, pull: PullRequest) -> list[tuple[ThreadSpot, str]]:
    """The ``comments`` of a new review, each checked against the diff (all or nothing)."""
    raw = ctx.body.get("comments") or []
    if not isinstance(raw, list):
        raise _unprocessable("Invalid request: comments must be an array")
    checked = []
    for comment in raw:
        if not isinstance(comment, dict) or not comment.get("path"):
            raise missing_field("PullRequestReviewComment", "path")
        if not str(comment.get("body") or "").strip():
            raise missing_field("PullRequestReviewComment", "body")
        spot = _spot(ctx.world, pull, comment)
        in_diff, problems = thread_problems(ctx.world, pull, spot)
        if not in_diff:
            raise _unprocessable("Path could not be resolved")
        if spot.line is None:
            raise _unprocessable("Line could not be resolved")
        if problems:
            raise _unprocessable(_sentence(problems))
        checked.append((spot, str(comment["body"])))
    return checked


@route("POST", _PULL + "/reviews", status=200)
def _create(ctx: Ctx) -> Any:
    world, pull = ctx.world, _pull(ctx)
    event = ctx.body.get("event")
    if event is not None and event not in _EVENTS:
        raise _unprocessable(f"Unknown review event: {event}")
    if pending_review(world, pull) is not None:
        raise _unprocessable(ONE_PENDING)
    comments = _checked_comments(ctx, pull)
    text = str(ctx.body.get("body") or "")
    if event is not None:  # refused before anything is written: GitHub's is all or nothing
        check_submission(world, pull, str(event), text, threads=bool(comments))
    ctx.mutated = True
    if event is not None and not comments:
        payload = {**repo_input(ctx), "prNumber": pull.number, **({"body": text} if text else {})}
        call(ctx, _EVENTS[event], payload)
        return review_json(ctx.links, pull, pull.reviews[-1])
    review = start_review(world, pull, body=text, commit_id=ctx.body.get("commit_id"))
    now = world.clock
    for spot, body in comments:
        add_thread(world, pull, review, spot, body, now)
    if event is not None:
        submit_review(world, pull, review, str(event), text)
    return review_json(ctx.links, pull, review)


def _refused(action: Any) -> Any:
    try:
        return action()
    except Refused as exc:
        raise _unprocessable(exc.detail) from None


def _own_review(ctx: Ctx) -> tuple[PullRequest, Review]:
    pull = _pull(ctx)
    wanted = ctx.number("review_id")
    shown = visible_reviews(ctx.world, pull)
    return pull, or_not_found(next((r for r in shown if r.id == wanted), None))


@route("POST", _REVIEW + "/events", status=200)
def _submit(ctx: Ctx) -> Any:
    pull, review = _own_review(ctx)
    event = ctx.body.get("event")
    if not event:
        raise missing_field("PullRequestReview", "event")
    body = ctx.body.get("body")
    ctx.mutated = True
    world = ctx.world
    _refused(lambda: submit_review(world, pull, review, str(event), body))
    return review_json(ctx.links, pull, review)


@route("DELETE", _REVIEW)
def _delete(ctx: Ctx) -> Any:
    pull, review = _own_review(ctx)
    ctx.mutated = True
    _refused(lambda: delete_review(pull, review))
    return review_json(ctx.links, pull, review)


@route("PUT", _REVIEW + "/dismissals")
def _dismiss(ctx: Ctx) -> Any:
    pull, review = _own_review(ctx)
    message = ctx.body.get("message")
    if message is None:
        raise RestError(422, 'Invalid request.\n\n"message" wasn\'t supplied.')
    ctx.body.get("event")  # DISMISS, the one value the body check lets through
    payload = {**repo_input(ctx), "prNumber": pull.number, "reviewId": review.id}
    call(ctx, "dismissPullRequestReview", {**payload, "message": str(message)})
    return review_json(ctx.links, pull, review)


@route("PUT", _REVIEW)
def _edit(ctx: Ctx) -> Any:
    pull, review = _own_review(ctx)
    if review.author != ctx.world.viewer:
        raise RestError(403, "Must have admin rights to Repository.")
    if ctx.body.get("body") is None:
        raise missing_field("PullRequestReview", "body")
    review.body = str(ctx.body["body"])
    ctx.mutated = True
    return review_json(ctx.links, pull, review)


def _position(world: World, pull: PullRequest, thread: ReviewThread) -> int | None:
    """The legacy ``position`` of a thread's line: its row below the file's first ``@@``."""
    change = next((f for f in pull_files(world, pull) if f.path == thread.path), None)
    if change is None or thread.line is None:
        return None
    for position in range(1, len((change.patch or "").splitlines())):
        try:
            spot = _from_position(world, pull, thread.path, position)
        except RestError:
            continue
        if (spot.line, spot.side) == (thread.line, thread.diff_side):
            return position
    return None


@route("GET", _REVIEW + "/comments")
def _comments(ctx: Ctx) -> Any:
    """A review's comments, in the legacy shape (with ``position``)."""
    world, (pull, review) = ctx.world, _own_review(ctx)
    found = [(t, n) for t in pull.review_threads for n in t.comments if n.review_id == review.id]
    links, answer = ctx.links, []
    for thread, note in paged(ctx, found):
        position = _position(world, pull, thread)
        data = review_comment_json(links, pull, note)
        answer.append({**data, "position": position, "original_position": position})
    return answer
