"""REST routes for pull requests: listing and reading them, files, commits, reviews, review
comments and replies, requested reviewers, merging and updating the branch."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_rest import (
    RawText,
    RestError,
    RestRequest,
    call,
    or_not_found,
    paged,
    repo_input,
    route,
)
from pytest_ghxbench.sandbox.dialects.gh_rest_render import (
    file_rest,
    pull_rest,
    review_comment_rest,
    review_rest,
    user_rest,
)
from pytest_ghxbench.sandbox.state import PullRequest, ReviewComment, ReviewThread

__all__: list[str] = []


def _pull(request: RestRequest) -> PullRequest:
    return or_not_found(request.ctx.world.pull_request(request.number()))


def _by_number(request: RestRequest, pull: PullRequest) -> dict[str, Any]:
    return {**repo_input(request), "prNumber": pull.number}


@route("GET", "pulls")
def _list(request: RestRequest) -> Any:
    world = request.ctx.world
    params = request.params
    state = str(params.get("state", "open"))
    head = str(params.get("head", "")).split(":")[-1]
    chosen = [
        p
        for p in world.pull_requests
        if (state == "all" or (p.state == "OPEN") == (state == "open"))
        and (not head or p.head_ref == head)
        and params.get("base") in (None, p.base_ref)
    ]
    key = "updated_at" if params.get("sort") == "updated" else "created_at"
    chosen.sort(
        key=lambda p: (getattr(p, key), p.number), reverse=params.get("direction", "desc") != "asc"
    )
    return paged(request, [pull_rest(world, p, full=False) for p in chosen])


@route("GET", r"pulls/(\d+)")
def _get(request: RestRequest) -> Any:
    pull = _pull(request)
    accept = request.headers.get("accept", "")
    if accept.endswith(".diff") or accept.endswith(".patch"):
        from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh

        return RawText(run_gh(request.ctx.world, ["pr", "diff", str(pull.number)]).stdout)
    return pull_rest(request.ctx.world, pull)


@route("PATCH", r"pulls/(\d+)")
def _update(request: RestRequest) -> Any:
    pull = _pull(request)
    body = request.body
    request.ctx.mutated = True
    if body.get("title") is not None:
        pull.title = str(body["title"])
    if body.get("body") is not None:
        pull.body = str(body["body"])
    if body.get("base"):
        pull.base_ref = str(body["base"])
    if body.get("state") in ("open", "closed") and pull.state != "MERGED":
        pull.state = "OPEN" if body["state"] == "open" else "CLOSED"
        pull.closed_at = None if pull.state == "OPEN" else request.ctx.world.clock
    pull.updated_at = request.ctx.world.tick()
    return pull_rest(request.ctx.world, pull)


@route("GET", r"pulls/(\d+)/files")
def _files(request: RestRequest) -> Any:
    pull = _pull(request)
    return paged(request, [file_rest(request.ctx.world, pull, f) for f in pull.files])


@route("GET", r"pulls/(\d+)/commits")
def _commits(request: RestRequest) -> Any:
    from pytest_ghxbench.sandbox.dialects.gh_render import pr_getters

    pull = _pull(request)
    commits = pr_getters(request.ctx.world, pull)["commits"]()
    return paged(
        request,
        [
            {
                "sha": c["oid"],
                "commit": {
                    "message": c["messageHeadline"],
                    "author": {"name": c["authors"][0]["name"], "date": c["authoredDate"]},
                },
                "author": user_rest(request.ctx.world, pull.author),
            }
            for c in commits
        ],
    )


@route("GET", r"pulls/(\d+)/reviews")
def _reviews(request: RestRequest) -> Any:
    pull = _pull(request)
    return paged(request, [review_rest(request.ctx.world, pull, r) for r in pull.reviews])


_EVENTS = {
    "APPROVE": "pr.review.submit_approve",
    "REQUEST_CHANGES": "pr.review.submit_request_changes",
    "COMMENT": "pr.review.submit_comment",
}


@route("POST", r"pulls/(\d+)/reviews")
def _review(request: RestRequest) -> Any:
    pull = _pull(request)
    event = str(request.body.get("event") or "")
    if event not in _EVENTS:
        raise RestError(
            422,
            "Unprocessable Entity",
            [{"message": "pending reviews are not supported in the sandbox; set event"}],
        )
    body = request.body.get("body")
    call(request, _EVENTS[event], {**_by_number(request, pull), **({"body": body} if body else {})})
    return review_rest(request.ctx.world, pull, pull.reviews[-1])


def _notes(pull: PullRequest) -> list[ReviewComment]:
    return sorted((n for t in pull.review_threads for n in t.comments), key=lambda n: n.created_at)


@route("GET", r"pulls/(\d+)/comments")
def _review_comments(request: RestRequest) -> Any:
    pull = _pull(request)
    return paged(request, [review_comment_rest(request.ctx.world, pull, n) for n in _notes(pull)])


def _thread_with(pull: PullRequest, note_id: int) -> ReviewThread:
    for thread in pull.review_threads:
        if any(n.id == note_id for n in thread.comments):
            return thread
    raise RestError(404, "Not Found")


def _reply(request: RestRequest, pull: PullRequest, note_id: int) -> Any:
    thread = _thread_with(pull, note_id)
    text = str(request.body.get("body") or "")
    if not text.strip():
        raise RestError(
            422,
            "Validation Failed",
            [{"resource": "PullRequestReviewComment", "code": "missing_field", "field": "body"}],
        )
    call(request, "pr.comment.reply", {"threadId": thread.node_id, "body": text})
    return review_comment_rest(request.ctx.world, pull, thread.comments[-1])


@route("POST", r"pulls/(\d+)/comments/(\d+)/replies")
def _replies(request: RestRequest) -> Any:
    return _reply(request, _pull(request), request.number(1))


@route("POST", r"pulls/(\d+)/comments")
def _new_review_comment(request: RestRequest) -> Any:
    pull = _pull(request)
    if request.body.get("in_reply_to") is None:
        raise RestError(
            422,
            "Validation Failed",
            [
                {
                    "message": "new review comments on lines are not supported in the sandbox; "
                    "reply with in_reply_to"
                }
            ],
        )
    return _reply(request, pull, int(request.body["in_reply_to"]))


@route("GET", r"pulls/comments/(\d+)")
def _review_comment(request: RestRequest) -> Any:
    wanted = request.number()
    for pull in request.ctx.world.pull_requests:
        for note in _notes(pull):
            if note.id == wanted:
                return review_comment_rest(request.ctx.world, pull, note)
    raise RestError(404, "Not Found")


@route("GET", r"pulls/(\d+)/requested_reviewers")
def _requested(request: RestRequest) -> Any:
    pull = _pull(request)
    return {
        "users": [user_rest(request.ctx.world, login) for login in pull.requested_reviewers],
        "teams": [],
    }


@route("POST", r"pulls/(\d+)/requested_reviewers")
def _request_reviewers(request: RestRequest) -> Any:
    pull = _pull(request)
    reviewers = [str(x) for x in request.body.get("reviewers") or []]
    if reviewers:
        call(request, "pr.reviewers.request", {**_by_number(request, pull), "reviewers": reviewers})
    return pull_rest(request.ctx.world, pull)


@route("DELETE", r"pulls/(\d+)/requested_reviewers")
def _unrequest(request: RestRequest) -> Any:
    pull = _pull(request)
    dropped = {str(x) for x in request.body.get("reviewers") or []}
    request.ctx.mutated = True
    pull.requested_reviewers = [r for r in pull.requested_reviewers if r not in dropped]
    pull.updated_at = request.ctx.world.tick()
    return pull_rest(request.ctx.world, pull)


@route("PUT", r"pulls/(\d+)/merge")
def _merge(request: RestRequest) -> Any:
    pull = _pull(request)
    if pull.state != "OPEN":
        raise RestError(405, "Pull Request is not mergeable")
    method = str(request.body.get("merge_method") or "merge")
    if method not in ("merge", "squash", "rebase"):
        raise RestError(
            422, "Validation Failed", [{"message": f"merge_method {method!r} is not valid"}]
        )
    sha = request.body.get("sha")
    if sha and sha != pull.head_sha:
        raise RestError(409, "Head branch was modified. Review and try the merge again.")
    data = call(request, "pr.merge.execute", {**_by_number(request, pull), "method": method})
    return {
        "sha": data["mergeCommitSha"],
        "merged": True,
        "message": "Pull Request successfully merged",
    }


@route("PUT", r"pulls/(\d+)/update-branch")
def _update_branch(request: RestRequest) -> Any:
    pull = _pull(request)
    call(request, "pr.branch.update", _by_number(request, pull))
    return {
        "message": "Updating pull request branch.",
        "url": f"https://github.com/{request.ctx.full_name}/pull/{pull.number}",
    }
