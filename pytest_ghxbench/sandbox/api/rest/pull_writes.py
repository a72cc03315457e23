"""REST routes that make pull requests and review threads: opening a pull request from a
branch (``POST /pulls``) and commenting on a line of its diff (``POST /pulls/{n}/comments``
without ``in_reply_to``, which starts a review thread; replies are :mod:`.pulls`'s)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.rest.render_pulls import pull_json, review_comment_json
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    Unhandled,
    missing_field,
    or_not_found,
    route,
)
from pytest_ghxbench.sandbox.code import pull_files
from pytest_ghxbench.sandbox.git.diff import commentable_lines
from pytest_ghxbench.sandbox.operations.pending_reviews import ONE_PENDING_FIELD, pending_review
from pytest_ghxbench.sandbox.operations.prs import open_pull
from pytest_ghxbench.sandbox.operations.registry import CapabilityError
from pytest_ghxbench.sandbox.state import Review, ReviewComment, ReviewThread

__all__: list[str] = []


def _invalid(resource: str, field: str, message: str | None = None) -> RestError:
    error: dict[str, Any] = {"resource": resource, "field": field, "code": "invalid"}
    if message:
        error = {"resource": resource, "code": "custom", "field": field, "message": message}
    return RestError(422, "Validation Failed", [error])


def _custom(message: str) -> RestError:
    return RestError(
        422,
        "Validation Failed",
        [{"resource": "PullRequest", "code": "custom", "message": message}],
    )


@route("POST", "/repos/{owner}/{repo}/pulls")
def _open(ctx: Ctx) -> Any:
    world, body = ctx.world, ctx.body
    owner = world.repository.owner
    for name in ("head", "base"):
        if not body.get(name):
            raise missing_field("PullRequest", name)
    if not body.get("title"):
        raise missing_field("PullRequest", "title")
    head_name = str(body["head"]).removeprefix(f"{owner}:")
    try:
        pull = open_pull(
            world,
            head=head_name,
            base=str(body["base"]),
            title=str(body["title"]),
            body=str(body.get("body") or ""),
            draft=bool(body.get("draft")),
        )
    except CapabilityError as exc:
        if exc.code == "NOT_FOUND":
            side = "base" if exc.message.startswith("base") else "head"
            raise _invalid("PullRequest", side) from None
        raise _custom(exc.message) from None
    number = pull.number
    ctx.mutated = True
    ctx.headers["Location"] = ctx.links.api(f"pulls/{number}")
    return pull_json(ctx.links, pull)


@route("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/comments")
def _comment_on_a_line(ctx: Ctx) -> Any:
    body = ctx.body
    if body.get("in_reply_to") is not None:
        raise Unhandled
    world = ctx.world
    pull = or_not_found(world.pull_request(ctx.number("pull_number")))
    for name in ("body", "commit_id", "path"):
        if not body.get(name):
            raise missing_field("PullRequestReviewComment", name)
    if pending_review(world, pull) is not None:
        raise RestError(422, "Validation Failed", [ONE_PENDING_FIELD])
    if body.get("commit_id") != pull.head_sha:
        raise _invalid("PullRequestReviewComment", "commit_id")
    path, side = str(body["path"]), str(body.get("side") or "RIGHT")
    change = next((f for f in pull_files(world, pull) if f.path == path), None)
    if change is None or change.patch is None:
        thread_path = "pull_request_review_thread.path"
        raise _invalid("PullRequestReviewComment", thread_path, f"{thread_path} is invalid")
    if body.get("line") is None:
        raise missing_field("PullRequestReviewComment", "line")
    line = int(body["line"])
    hunks = commentable_lines(change.patch, side)
    if line not in hunks:
        thread_line = "pull_request_review_thread.line"
        raise _invalid(
            "PullRequestReviewComment", thread_line, f"{thread_line} must be part of the diff"
        )
    now, review_id, note_id = world.tick(), world.next_id(), world.next_id()
    pull.reviews.append(
        Review(
            id=review_id,
            node_id=world.node("PRR", review_id),
            author=world.viewer,
            state="COMMENTED",
            submitted_at=now,
            commit_id=pull.head_sha,
        )
    )
    note = ReviewComment(
        id=note_id,
        node_id=world.node("PRRC", note_id),
        author=world.viewer,
        body=str(body["body"]),
        created_at=now,
        path=path,
        line=line,
        diff_hunk=hunks[line],
        review_id=review_id,
    )
    thread = ReviewThread(
        node_id=world.node("PRRT", pull.number, note_id),
        path=path,
        line=line,
        diff_side="LEFT" if side == "LEFT" else "RIGHT",
        comments=[note],
    )
    pull.review_threads.append(thread)
    pull.updated_at = now
    ctx.mutated = True
    return review_comment_json(ctx.links, pull, note)
