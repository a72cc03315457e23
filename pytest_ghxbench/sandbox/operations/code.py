"""World operations on code: a new branch (``repo.branch.create``), one file committed to a
branch (``repo.file.put``), a pull request opened from a branch (``pr.create``) and a comment
on a line of a pull request's diff (``pr.comment.create``, whose rules the REST route for
review comments shares through :func:`comment_on_line`).

Each writes the world's git repository as the API does (the viewer as author, the world's
clock as the date) and brings pull requests in step with the refs afterwards.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.code import branch_sha, person, pull_files, refs_changed
from pytest_ghxbench.sandbox.errors import NotFound, Unprocessable
from pytest_ghxbench.sandbox.git import GitError
from pytest_ghxbench.sandbox.git.diff import commentable_lines
from pytest_ghxbench.sandbox.operations.prs import find_pull, open_pull, pull_url
from pytest_ghxbench.sandbox.operations.registry import operation, require_repo
from pytest_ghxbench.sandbox.state import PullRequest, Review, ReviewComment, ReviewThread, World

__all__ = [
    "LINE_NOT_IN_DIFF",
    "PATH_NOT_IN_DIFF",
    "START_AFTER_LINE",
    "START_NOT_IN_HUNK",
    "comment_on_line",
]

PATH_NOT_IN_DIFF = "pull_request_review_thread.path is invalid"
LINE_NOT_IN_DIFF = "pull_request_review_thread.line must be part of the diff"
START_AFTER_LINE = "pull_request_review_thread.start_line must precede the end line."
START_NOT_IN_HUNK = (
    "pull_request_review_thread.start_line must be part of the same hunk as the line."
)
"""GitHub's 422 messages for a comment on a file or lines the pull request does not change."""


def _header(hunk: str) -> str:
    return hunk.split("\n", 1)[0]


def _branch_name(value: Any) -> str:
    return str(value).removeprefix("refs/heads/")


@operation("createRef")
def repo_branch_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    git = world.git
    source = str(input.get("from") or git.default_branch)
    tip = git.resolve(source)
    if tip is None:
        raise NotFound(f"No commit found for the ref {source}")
    name = _branch_name(input["branch"])
    if git.ref(f"refs/heads/{name}") is not None:
        raise Unprocessable(f"cannot create branch {name}: Reference already exists")
    git.set_ref(f"refs/heads/{name}", tip)
    world.tick()
    refs_changed(world)
    return {"name": name, "oid": tip, "from": source}


@operation("repos/create-or-update-file-contents")
def repo_file_put(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    git = world.git
    branch, path = _branch_name(input["branch"]), str(input["path"]).strip("/")
    tip = branch_sha(world, branch)
    if tip is None:
        raise NotFound(f"Branch {branch} not found")
    old = git.entry(tip, path)
    if old is not None and old.type == "tree":
        raise Unprocessable(f"{path} is a directory on {branch}, not a file")
    now = world.tick()
    author = person(world, world.viewer, now)
    try:
        tree = git.write_tree(tip, {path: str(input["content"]).encode()})
    except GitError as exc:
        raise Unprocessable(str(exc)) from None
    sha = git.write_commit(tree, [tip], str(input["message"]), author)
    git.set_ref(f"refs/heads/{branch}", sha)
    refs_changed(world)
    entry = git.entry(sha, path)
    assert entry is not None
    return {
        "path": path,
        "branch": branch,
        "sha": entry.sha,
        "commitOid": sha,
        "created": old is None,
    }


@operation("createPullRequest")
def pr_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    require_repo(world, input)
    head = str(input["head"]).rpartition(":")[2]
    base = str(input.get("base") or world.repository.default_branch)
    pull = open_pull(
        world,
        head=head,
        base=base,
        title=str(input["title"]),
        body=str(input.get("body") or ""),
        draft=bool(input.get("draft")),
    )
    return {
        "id": pull.node_id,
        "number": pull.number,
        "url": pull_url(world, pull.number),
        "state": pull.state,
        "isDraft": pull.is_draft,
        "title": pull.title,
        "headRefName": pull.head_ref,
        "baseRefName": pull.base_ref,
    }


def comment_on_line(
    world: World,
    pull: PullRequest,
    path: str,
    line: int,
    side: str,
    body: str,
    *,
    start_line: int | None = None,
    start_side: str | None = None,
) -> ReviewComment:
    """A comment on ``line`` of ``path`` in the pull request's diff (``side`` RIGHT: the new
    version, LEFT: the old), from ``start_line`` (on ``start_side``, default ``side``) for a
    multi-line one, as a review of its own that starts a thread, as GitHub makes one.
    ``VALIDATION`` (GitHub's 422 messages) for a file or lines the diff does not show."""
    change = next((f for f in pull_files(world, pull) if f.path == path), None)
    if change is None or change.patch is None:
        raise Unprocessable(PATH_NOT_IN_DIFF)
    hunks = commentable_lines(change.patch, side)
    if line not in hunks:
        raise Unprocessable(LINE_NOT_IN_DIFF)
    first_side = "LEFT" if (start_side or side) == "LEFT" else "RIGHT"
    if start_line is not None:
        starts = commentable_lines(change.patch, first_side)
        if start_line >= line:
            raise Unprocessable(START_AFTER_LINE)
        if start_line not in starts or _header(starts[start_line]) != _header(hunks[line]):
            raise Unprocessable(START_NOT_IN_HUNK)
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
        body=body,
        created_at=now,
        path=path,
        line=line,
        diff_hunk=hunks[line],
        review_id=review_id,
    )
    pull.review_threads.append(
        ReviewThread(
            node_id=world.node("PRRT", pull.number, note_id),
            path=path,
            line=line,
            start_line=start_line,
            diff_side="LEFT" if side == "LEFT" else "RIGHT",
            start_side=first_side if start_line is not None else None,
            comments=[note],
        )
    )
    pull.updated_at = now
    return note


@operation("addPullRequestReviewThread")
def pr_comment_create(world: World, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(world, input)
    side = str(input.get("side") or "RIGHT")
    note = comment_on_line(
        world, pull, str(input["path"]), int(input["line"]), side, str(input["body"])
    )
    return {
        "id": note.node_id,
        "databaseId": note.id,
        "path": note.path,
        "line": note.line,
        "side": side,
        "body": note.body,
        "url": f"{pull_url(world, pull.number)}#discussion_r{note.id}",
        "reviewId": note.review_id,
    }
