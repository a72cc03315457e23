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
from pytest_ghxbench.sandbox.errors import NotFound, Refused
from pytest_ghxbench.sandbox.operations.code import comment_on_line
from pytest_ghxbench.sandbox.operations.pending_reviews import ONE_PENDING_FIELD, pending_review
from pytest_ghxbench.sandbox.operations.prs import open_pull

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
    # a branch of the repository itself, not a fork's: GitHub has nothing to grant
    body.get("maintainer_can_modify")
    try:
        pull = open_pull(
            world,
            head=head_name,
            base=str(body["base"]),
            title=str(body["title"]),
            body=str(body.get("body") or ""),
            draft=bool(body.get("draft")),
        )
    except Refused as exc:
        if isinstance(exc, NotFound):
            side = "base" if exc.detail.startswith("base") else "head"
            raise _invalid("PullRequest", side) from None
        raise _custom(exc.detail) from None
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
    shown = any(f.path == path and f.patch is not None for f in pull_files(world, pull))
    if body.get("line") is None and shown:
        raise missing_field("PullRequestReviewComment", "line")
    start = body.get("start_line")
    try:
        line = int(body.get("line") or 0)
        note = comment_on_line(
            world, pull, path, line, side, str(body["body"]),
            start_line=int(start) if start is not None else None,
            start_side=str(body.get("start_side") or side),
        )  # fmt: skip
    except Refused as exc:
        field = exc.detail.split(" ", 1)[0]
        raise _invalid("PullRequestReviewComment", field, exc.detail) from None
    ctx.mutated = True
    return review_comment_json(ctx.links, pull, note)
