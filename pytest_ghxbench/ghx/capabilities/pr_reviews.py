"""Pull request review capabilities: review threads, reviews and review requests.

Pull requests are addressed by ``owner``, ``name`` and ``prNumber``; review threads by node id
(``threadId``, ``PRRT_...``), as GitHub's GraphQL mutations do. Lists take ``first`` /
``after`` and return ``{items, pageInfo}``.

- ``pr.comments.list`` (``unresolvedOnly``, default true; ``includeOutdated``, default false;
  ``path``, ``line``: only threads on that file or line) → items{id, path, line, startLine,
  diffSide, subjectType, isResolved, isOutdated, viewerCanReply, viewerCanResolve,
  viewerCanUnresolve, resolvedByLogin, comments{id, authorLogin, body, createdAt, url}},
  pageInfo, filterApplied
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

GitHub cannot filter review threads, so they are fetched whole, filtered and paged here (the
cursor is an offset).

Errors: ``NOT_FOUND`` for an unknown repository, pull request or thread; ``VALIDATION`` for an
empty body where one is required, reviewers who are not collaborators, and asking the author
to review; ``CONFLICT`` for approving or requesting changes on the viewer's own pull request
and requesting reviews on a closed or merged one.
"""

from __future__ import annotations

from typing import Any, Literal

from pytest_ghxbench.ghx.capabilities.issue_support import offset_page
from pytest_ghxbench.ghx.capabilities.prs import (
    LOGINS,
    by_number,
    find_pull,
    pull_graphql,
    pull_path,
    pull_state,
    require_open,
)
from pytest_ghxbench.ghx.capabilities.shapes import connection_page, login
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, input_schema

__all__: list[str] = []

THREAD_ID: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "Review thread node id (PRRT_...)",
}
BODY: dict[str, Any] = {"type": "string", "minLength": 1}
BY_THREAD = input_schema(["threadId"], threadId=THREAD_ID)
_MAX_THREADS = 1000

_NOTE = "id body author { login } createdAt url"
_THREAD = (
    "id isResolved isOutdated path line startLine diffSide subjectType"
    " viewerCanReply viewerCanResolve viewerCanUnresolve resolvedBy { login }"
    f" comments(first: 100) {{ nodes {{ {_NOTE} }} }}"
)


def _note(note: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": note["id"],
        "authorLogin": login(note.get("author")),
        "body": note.get("body") or "",
        "createdAt": note.get("createdAt"),
        "url": note.get("url"),
    }


def _thread_item(thread: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": thread["id"],
        "path": thread.get("path"),
        "line": thread.get("line"),
        "startLine": thread.get("startLine"),
        "diffSide": thread.get("diffSide"),
        "subjectType": thread.get("subjectType"),
        "isResolved": bool(thread["isResolved"]),
        "isOutdated": bool(thread["isOutdated"]),
        "viewerCanReply": bool(thread.get("viewerCanReply")),
        "viewerCanResolve": bool(thread.get("viewerCanResolve")),
        "viewerCanUnresolve": bool(thread.get("viewerCanUnresolve")),
        "resolvedByLogin": login(thread.get("resolvedBy")),
        "comments": [_note(note) for note in (thread.get("comments") or {}).get("nodes") or []],
    }


def _threads(client: GitHubClient, input: dict[str, Any]) -> list[dict[str, Any]]:
    threads: list[dict[str, Any]] = []
    after = None
    while len(threads) < _MAX_THREADS:
        pull = pull_graphql(
            client,
            input,
            f"reviewThreads(first: 100, after: $after) {{ nodes {{ {_THREAD} }}"
            " pageInfo { hasNextPage endCursor } }",
            after=("String", after),
        )
        connection = pull["reviewThreads"]
        threads.extend(connection["nodes"] or [])
        after = connection["pageInfo"]["endCursor"]
        if not connection["pageInfo"]["hasNextPage"] or after is None:
            break
    return threads


# ---------------------------------------------------------------- review threads


@capability(
    "pr.comments.list",
    "List a pull request's review threads with their comments (only unresolved ones unless "
    "unresolvedOnly is false; outdated ones only with includeOutdated; optionally only those "
    "on a path or line).",
    by_number(
        unresolvedOnly={"type": "boolean", "default": True},
        includeOutdated={"type": "boolean", "default": False},
        path={"type": "string", "minLength": 1, "description": "Only threads on this file"},
        line={"type": "integer", "minimum": 1, "description": "Only threads on this line"},
        first=FIRST,
        after=AFTER,
    ),
    route="graphql",
)
def pr_comments_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    unresolved_only, outdated = input["unresolvedOnly"], input["includeOutdated"]
    where = {key: input[key] for key in ("path", "line") if key in input}
    kept = [
        thread
        for thread in _threads(client, input)
        if not (unresolved_only and thread["isResolved"])
        and (outdated or not thread["isOutdated"])
        and all(thread.get(key) == value for key, value in where.items())
    ]
    result = offset_page(kept, input, _thread_item)
    result["filterApplied"] = {
        "unresolvedOnly": unresolved_only,
        "includeOutdated": outdated,
        **where,
    }
    return result


_THREAD_NODE = """
query Thread($id: ID!) {
  node(id: $id) {
    __typename ... on PullRequestReviewThread { id isResolved resolvedBy { login } }
  }
}
"""


def _thread(client: GitHubClient, node: str) -> dict[str, Any]:
    missing = CapabilityError(
        "NOT_FOUND",
        f"input.threadId: Could not resolve to a PullRequestReviewThread with the global id "
        f"of '{node}'.",
    )
    try:
        found = client.graphql(_THREAD_NODE, {"id": node}).get("node")
    except GitHubError as exc:
        if exc.status == 200 and exc.message.startswith("NOT_FOUND"):
            raise missing from None
        raise
    if not isinstance(found, dict) or found.get("__typename") != "PullRequestReviewThread":
        raise missing
    return found


_REPLY = f"""
mutation Reply($id: ID!, $body: String!) {{
  addPullRequestReviewThreadReply(input: {{pullRequestReviewThreadId: $id, body: $body}}) {{
    comment {{ {_NOTE} }}
  }}
}}
"""


@capability(
    "pr.comment.reply",
    "Reply to a pull request review thread.",
    input_schema(["threadId", "body"], threadId=THREAD_ID, body=BODY),
    route="graphql",
    mutates=True,
)
def pr_comment_reply(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    thread = _thread(client, input["threadId"])
    data = client.graphql(_REPLY, {"id": thread["id"], "body": input["body"]})
    note = data["addPullRequestReviewThreadReply"]["comment"]
    return {**_note(note), "threadId": thread["id"], "isResolved": bool(thread["isResolved"])}


_SET_RESOLVED = """
mutation SetResolved($id: ID!) {
  %s(input: {threadId: $id}) { thread { id isResolved resolvedBy { login } } }
}
"""


def _set_resolved(client: GitHubClient, node: str, resolved: bool) -> dict[str, Any]:
    thread = _thread(client, node)
    mutation = "resolveReviewThread" if resolved else "unresolveReviewThread"
    if bool(thread["isResolved"]) != resolved:
        thread = client.graphql(_SET_RESOLVED % mutation, {"id": thread["id"]})[mutation]["thread"]
    return {
        "id": thread["id"],
        "isResolved": bool(thread["isResolved"]),
        "resolvedByLogin": login(thread.get("resolvedBy")),
    }


@capability(
    "pr.comment.resolve",
    "Resolve a pull request review thread.",
    BY_THREAD,
    route="graphql",
    mutates=True,
)
def pr_comment_resolve(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _set_resolved(client, input["threadId"], True)


@capability(
    "pr.comment.unresolve",
    "Mark a resolved pull request review thread unresolved again.",
    BY_THREAD,
    route="graphql",
    mutates=True,
)
def pr_comment_unresolve(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _set_resolved(client, input["threadId"], False)


# ---------------------------------------------------------------- reviews

_REVIEW = "id author { login } body state submittedAt url commit { oid }"


@capability(
    "pr.reviews.list",
    "List a pull request's reviews (state, author, body), oldest first.",
    by_number(first=FIRST, after=AFTER),
    route="graphql",
)
def pr_reviews_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = pull_graphql(
        client,
        input,
        f"reviews(first: $first, after: $after) {{ nodes {{ {_REVIEW} }}"
        " pageInfo { hasNextPage endCursor } }",
        first=("Int!", input["first"]),
        after=("String", input.get("after")),
    )
    return connection_page(
        pull["reviews"],
        lambda r: {
            "id": r["id"],
            "authorLogin": login(r.get("author")),
            "body": r.get("body") or "",
            "state": r["state"],
            "submittedAt": r.get("submittedAt"),
            "url": r["url"],
            "commitOid": (r.get("commit") or {}).get("oid") or None,
        },
    )


Event = Literal["APPROVE", "COMMENT", "REQUEST_CHANGES"]
_OWN_PULL = {"APPROVE": "approve", "REQUEST_CHANGES": "request changes on"}
_AUTHOR_QUERY = """
query Author($owner: String!, $name: String!, $number: Int!) {
  viewer { login }
  repository(owner: $owner, name: $name) { pullRequest(number: $number) { id author { login } } }
}
"""
_ADD_REVIEW = """
mutation Review($id: ID!, $event: PullRequestReviewEvent!, $body: String) {
  addPullRequestReview(input: {pullRequestId: $id, event: $event, body: $body}) {
    pullRequestReview { id state body url }
  }
}
"""


def _submit(client: GitHubClient, input: dict[str, Any], event: Event) -> dict[str, Any]:
    number = input["prNumber"]
    data = client.graphql(
        _AUTHOR_QUERY, {"owner": input["owner"], "name": input["name"], "number": number}
    )
    pull = (data.get("repository") or {}).get("pullRequest")
    if not isinstance(pull, dict):
        find_pull(client, input)  # NOT_FOUND, saying when the number is an issue's
        raise CapabilityError("NOT_FOUND", f"pull request #{number} not found")
    if login(pull.get("author")) == login(data.get("viewer")) and event in _OWN_PULL:
        raise CapabilityError("CONFLICT", f"Can not {_OWN_PULL[event]} your own pull request")
    answer = client.graphql(
        _ADD_REVIEW, {"id": pull["id"], "event": event, "body": input.get("body", "")}
    )
    review = answer["addPullRequestReview"]["pullRequestReview"]
    return {
        "prNumber": number,
        "event": event,
        "submitted": True,
        "id": review["id"],
        "state": review["state"],
        "body": review.get("body") or "",
        "url": review["url"],
    }


@capability(
    "pr.review.submit_approve",
    "Approve a pull request, optionally with a comment.",
    by_number(body=BODY),
    mutates=True,
)
def pr_review_submit_approve(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(client, input, "APPROVE")


@capability(
    "pr.review.submit_comment",
    "Submit a comment-only review of a pull request.",
    by_number("body", body=BODY),
    mutates=True,
)
def pr_review_submit_comment(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(client, input, "COMMENT")


@capability(
    "pr.review.submit_request_changes",
    "Submit a review of a pull request that requests changes.",
    by_number("body", body=BODY),
    mutates=True,
)
def pr_review_submit_request_changes(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _submit(client, input, "REQUEST_CHANGES")


@capability(
    "pr.reviewers.request",
    "Request reviews of a pull request from collaborators.",
    by_number("reviewers", reviewers={**LOGINS, "minItems": 1}),
    mutates=True,
)
def pr_reviewers_request(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(client, input)
    number = input["prNumber"]
    require_open(pull_state(pull), number, "request reviews on")
    author = login(pull.get("user"))
    if author in input["reviewers"]:
        raise CapabilityError(
            "VALIDATION", "input.reviewers: Review cannot be requested from pull request author."
        )
    answer = client.rest(
        "POST", f"{pull_path(input)}/requested_reviewers", body={"reviewers": input["reviewers"]}
    )
    return {
        "prNumber": number,
        "reviewers": [login(user) for user in answer.get("requested_reviewers") or []],
        "updated": True,
    }
