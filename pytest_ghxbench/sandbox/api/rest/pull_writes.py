"""REST routes that make pull requests and review threads: opening a pull request from a
branch (``POST /pulls``) and commenting on a line of its diff (``POST /pulls/{n}/comments``
without ``in_reply_to``, which starts a review thread; replies are :mod:`.pulls`'s)."""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.api.rest.git import branch, changed_files
from pytest_ghxbench.sandbox.api.rest.render_pulls import pull_json, review_comment_json
from pytest_ghxbench.sandbox.api.rest.router import (
    Ctx,
    RestError,
    Unhandled,
    missing_field,
    or_not_found,
    route,
)
from pytest_ghxbench.sandbox.state import (
    PullRequest,
    PullRequestFile,
    Review,
    ReviewComment,
    ReviewThread,
)

__all__: list[str] = []

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


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
    head, base = branch(world, head_name), branch(world, str(body["base"]))
    if head is None:
        raise _invalid("PullRequest", "head")
    if base is None:
        raise _invalid("PullRequest", "base")
    for pull in world.pull_requests:
        if (pull.head_ref, pull.base_ref, pull.state) == (head.name, base.name, "OPEN"):
            raise _custom(f"A pull request already exists for {owner}:{head.name}.")
    files = changed_files(base, head)
    if head.sha == base.sha or not files:
        raise _custom(f"No commits between {base.name} and {head.name}")
    number, now = world.next_issue_number(), world.tick()
    pull = PullRequest(
        number=number,
        title=str(body["title"]),
        node_id=world.node("PR", number),
        body=str(body.get("body") or ""),
        author=world.viewer,
        is_draft=bool(body.get("draft")),
        head_ref=head.name,
        head_sha=head.sha,
        base_ref=base.name,
        base_sha=base.sha,
        merge_state_status="DRAFT" if body.get("draft") else "CLEAN",
        files=files,
        created_at=now,
        updated_at=now,
    )
    world.pull_requests.append(pull)
    ctx.mutated = True
    ctx.headers["Location"] = ctx.links.api(f"pulls/{number}")
    return pull_json(ctx.links, pull)


def _diff_lines(change: PullRequestFile, side: str) -> dict[int, str]:
    """Line number -> the diff hunk up to that line, for the lines of ``side`` (``RIGHT``: the
    new file, ``LEFT``: the old one) a comment may be attached to."""
    found: dict[int, str] = {}
    header, seen = "", []
    old = new = 0
    for text in change.patch.splitlines():
        match = _HUNK.match(text)
        if match:
            old, new = int(match.group(1)), int(match.group(2))
            header, seen = text, [text]
            continue
        if not header:
            continue
        seen.append(text)
        if text.startswith("+"):
            if side == "RIGHT":
                found[new] = "\n".join(seen)
            new += 1
        elif text.startswith("-"):
            if side == "LEFT":
                found[old] = "\n".join(seen)
            old += 1
        else:
            found[new if side == "RIGHT" else old] = "\n".join(seen)
            old, new = old + 1, new + 1
    return found


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
    if body.get("commit_id") != pull.head_sha:
        raise _invalid("PullRequestReviewComment", "commit_id")
    path, side = str(body["path"]), str(body.get("side") or "RIGHT")
    change = next((f for f in pull.files if f.path == path), None)
    if change is None:
        thread_path = "pull_request_review_thread.path"
        raise _invalid("PullRequestReviewComment", thread_path, f"{thread_path} is invalid")
    if body.get("line") is None:
        raise missing_field("PullRequestReviewComment", "line")
    line = int(body["line"])
    hunks = _diff_lines(change, side)
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
