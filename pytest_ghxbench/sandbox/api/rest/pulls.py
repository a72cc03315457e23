"""REST routes for pull requests: listing and reading them (JSON, diff or patch), files,
commits, reviews, review comments and replies, requested reviewers, merging and updating the
branch."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.api.rest.render_core import user_json
from pytest_ghxbench.sandbox.api.rest.render_git import commit_json, file_json
from pytest_ghxbench.sandbox.api.rest.render_pulls import (
    pull_json,
    review_comment_json,
    review_json,
)
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
from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.code import pull_commits, pull_diff, pull_files, pull_patch
from pytest_ghxbench.sandbox.operations.pending_reviews import (
    ONE_PENDING_FIELD,
    pending_review,
    visible_reviews,
    visible_threads,
)
from pytest_ghxbench.sandbox.operations.prs import require_base, require_mergeable, require_state
from pytest_ghxbench.sandbox.state import PullRequest, ReviewComment, ReviewThread, World

__all__: list[str] = []

_PULL = "/repos/{owner}/{repo}/pulls/{pull_number}"


def _pull(ctx: Ctx) -> PullRequest:
    return or_not_found(ctx.world.pull_request(ctx.number("pull_number")))


def _by_number(ctx: Ctx, pull: PullRequest) -> dict[str, Any]:
    return {**repo_input(ctx), "prNumber": pull.number}


@route("GET", "/repos/{owner}/{repo}/pulls")
def _list(ctx: Ctx) -> Any:
    state = ctx.param("state") or "open"
    head = (ctx.param("head") or "").split(":")[-1]
    base = ctx.param("base")
    chosen = [
        p
        for p in ctx.world.pull_requests
        if (state == "all" or (p.state == "OPEN") == (state == "open"))
        and (not head or p.head_ref == head)
        and base in (None, p.base_ref)
    ]
    sort = ctx.param("sort") or "created"
    if sort == "long-running":
        chosen = [p for p in chosen if _long_running(ctx.world, p)]
    # GitHub's default direction is desc only for the creation order
    direction = ctx.param("direction") or ("desc" if sort == "created" else "asc")
    chosen.sort(key=lambda p: (*_sort_key(p, sort), p.number), reverse=direction == "desc")
    links = ctx.links
    return [pull_json(links, p, full=False) for p in paged(ctx, chosen)]


def _sort_key(pull: PullRequest, sort: str) -> tuple[Any, ...]:
    if sort == "updated":
        return (pull.updated_at,)
    if sort == "popularity":
        return (len(pull.comments),)
    return (pull.created_at,)


_MONTH = timedelta(days=30)


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _long_running(world: World, pull: PullRequest) -> bool:
    """Open for more than a month, with activity within the past month (GitHub's
    ``long-running``)."""
    now = _time(world.clock)
    return (
        pull.state == "OPEN"
        and now - _time(pull.created_at) > _MONTH
        and now - _time(pull.updated_at) <= _MONTH
    )


@route("GET", _PULL)
def _get(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    accept = ctx.accept
    if accept.endswith(".diff"):
        return ApiResponse(200, pull_diff(ctx.world, pull).encode(), _media("diff"))
    if accept.endswith(".patch"):
        return ApiResponse(200, pull_patch(ctx.world, pull).encode(), _media("patch"))
    return pull_json(ctx.links, pull)


def _media(kind: str) -> dict[str, str]:
    return {"Content-Type": f"application/vnd.github.{kind}; charset=utf-8"}


@route("PATCH", _PULL)
def _update(ctx: Ctx) -> Any:
    """Title and body; state and base through their operations, checked before anything
    changes (GitHub answers all or nothing)."""
    world, pull, body = ctx.world, _pull(ctx), ctx.body
    base = str(body["base"]) if body.get("base") else None
    state = {"open": "OPEN", "closed": "CLOSED"}.get(str(body.get("state")))
    if state is not None:
        require_state(world, pull, state)
    if base is not None and state != "OPEN":
        require_base(world, pull, base)
    body.get("maintainer_can_modify")  # nothing to grant without forks (as when opened)
    ctx.mutated = True
    with history.tracked(world, pull):
        if body.get("title") is not None:
            pull.title = str(body["title"])
        if body.get("body") is not None:
            pull.body = str(body["body"])
        pull.updated_at = world.tick()
    if state is not None:
        call(
            ctx,
            "reopenPullRequest" if state == "OPEN" else "closePullRequest",
            _by_number(ctx, pull),
        )
    if base is not None:
        call(ctx, "updatePullRequest(baseRefName:)", {**_by_number(ctx, pull), "baseRefName": base})
    return pull_json(ctx.links, pull)


@route("GET", _PULL + "/files")
def _files(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    links = ctx.links
    files = pull_files(ctx.world, pull)
    return [file_json(links, f, pull.head_sha) for f in paged(ctx, files)]


@route("GET", _PULL + "/commits")
def _commits(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    links = ctx.links
    return [commit_json(links, c) for c in paged(ctx, pull_commits(ctx.world, pull))]


@route("GET", _PULL + "/reviews")
def _reviews(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    links = ctx.links
    return [review_json(links, pull, r) for r in paged(ctx, visible_reviews(ctx.world, pull))]


@route("GET", _PULL + "/reviews/{review_id}")
def _review_by_id(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    wanted = ctx.number("review_id")
    shown = visible_reviews(ctx.world, pull)
    found = or_not_found(next((r for r in shown if r.id == wanted), None))
    return review_json(ctx.links, pull, found)


def _notes(world: World, pull: PullRequest) -> list[ReviewComment]:
    """The review comments the viewer sees, by ascending id (GitHub's default order)."""
    threads = visible_threads(world, pull)
    return sorted((n for t in threads for n in t.comments), key=lambda n: n.id)


def _listed(ctx: Ctx, found: list[tuple[PullRequest, ReviewComment]]) -> Any:
    """``found`` updated at or after ``since``, in ``sort`` order (``direction`` counts only
    with ``sort``), one page of them."""
    since = ctx.param("since") or ""
    chosen = [(p, n) for p, n in found if n.created_at >= since]
    descending = ctx.param("direction") == "desc"  # read either way: GitHub ignores it alone
    if ctx.param("sort") is not None:
        chosen.sort(key=lambda pair: (pair[1].created_at, pair[1].id), reverse=descending)
    links = ctx.links
    return [review_comment_json(links, p, n) for p, n in paged(ctx, chosen)]


@route("GET", _PULL + "/comments")
def _review_comments(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    return _listed(ctx, [(pull, n) for n in _notes(ctx.world, pull)])


@route("GET", "/repos/{owner}/{repo}/pulls/comments")
def _all_review_comments(ctx: Ctx) -> Any:
    world = ctx.world
    found = [(p, n) for p in world.pull_requests for n in _notes(world, p)]
    return _listed(ctx, sorted(found, key=lambda pair: pair[1].id))


def _thread_with(pull: PullRequest, note_id: int) -> ReviewThread:
    for thread in pull.review_threads:
        if any(n.id == note_id for n in thread.comments):
            return thread
    raise RestError(404, "Not Found")


def _reply(ctx: Ctx, pull: PullRequest, note_id: int) -> Any:
    thread = _thread_with(pull, note_id)
    text = str(ctx.body.get("body") or "")
    if not text.strip():
        raise missing_field("PullRequestReviewComment", "body")
    if pending_review(ctx.world, pull) is not None:
        raise RestError(422, "Validation Failed", [ONE_PENDING_FIELD])
    call(ctx, "addPullRequestReviewThreadReply", {"threadId": thread.node_id, "body": text})
    return review_comment_json(ctx.links, pull, thread.comments[-1])


@route("POST", _PULL + "/comments/{comment_id}/replies")
def _replies(ctx: Ctx) -> Any:
    return _reply(ctx, _pull(ctx), ctx.number("comment_id"))


@route("POST", _PULL + "/comments")
def _new_review_comment(ctx: Ctx) -> Any:
    """A reply (``in_reply_to``); a comment on a line starts a thread in :mod:`.pull_writes`,
    which leaves replies to this route."""
    return _reply(ctx, _pull(ctx), int(ctx.body["in_reply_to"]))


@route("GET", "/repos/{owner}/{repo}/pulls/comments/{comment_id}")
def _review_comment(ctx: Ctx) -> Any:
    wanted = ctx.number("comment_id")
    for pull in ctx.world.pull_requests:
        for note in _notes(ctx.world, pull):
            if note.id == wanted:
                return review_comment_json(ctx.links, pull, note)
    raise RestError(404, "Not Found")


@route("GET", _PULL + "/requested_reviewers")
def _requested(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    links = ctx.links
    return {"users": [user_json(links, u) for u in pull.requested_reviewers], "teams": []}


@route("POST", _PULL + "/requested_reviewers")
def _request_reviewers(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    reviewers = [str(x) for x in ctx.body.get("reviewers") or []]
    if reviewers:
        call(ctx, "requestReviews", {**_by_number(ctx, pull), "reviewers": reviewers})
    return pull_json(ctx.links, pull, full=False)


@route("DELETE", _PULL + "/requested_reviewers")
def _unrequest(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    dropped = {str(x) for x in ctx.body.get("reviewers") or []}
    with history.tracked(ctx.world, pull):
        pull.requested_reviewers = [r for r in pull.requested_reviewers if r not in dropped]
        pull.updated_at = ctx.world.tick()
    ctx.mutated = True
    return pull_json(ctx.links, pull, full=False)


@route("GET", _PULL + "/merge", status=204)
def _is_merged(ctx: Ctx) -> Any:
    if _pull(ctx).state != "MERGED":
        raise RestError(404, "Not Found")
    return None


@route("PUT", _PULL + "/merge")
def _merge(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    require_mergeable(ctx.world, pull)  # before the head sha: a merged one is not mergeable
    method = str(ctx.body.get("merge_method") or "merge")
    if method not in ("merge", "squash", "rebase"):
        message = f"merge_method {method!r} is not valid"
        raise RestError(422, "Validation Failed", [{"message": message}])
    sha = ctx.body.get("sha")
    if sha and sha != pull.head_sha:
        raise RestError(409, "Head branch was modified. Review and try the merge again.")
    given = {
        "commitTitle": ctx.body.get("commit_title"),
        "commitBody": ctx.body.get("commit_message"),
    }
    message_parts = {key: str(value) for key, value in given.items() if value}
    data = call(
        ctx, "mergePullRequest", {**_by_number(ctx, pull), "method": method, **message_parts}
    )
    message = "Pull Request successfully merged"
    return {"sha": data["mergeCommitSha"], "merged": True, "message": message}


@route("PUT", _PULL + "/update-branch", status=202)
def _update_branch(ctx: Ctx) -> Any:
    pull = _pull(ctx)
    expected = ctx.body.get("expected_head_sha")
    if expected and expected != pull.head_sha:
        message = "expected head sha didn't match current head ref."
        raise RestError(422, message)
    call(ctx, "updatePullRequestBranch", _by_number(ctx, pull))
    return {
        "message": "Updating pull request branch.",
        "url": ctx.links.web(f"pull/{pull.number}"),
    }
