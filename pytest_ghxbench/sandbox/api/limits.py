"""GitHub's length limits on what clients write: bodies of issues, pull requests, comments and
reviews (65,536 characters), titles (256), label names (50), release notes (125,000).

A write over a limit changes nothing: REST answers ``422 Validation Failed`` with the record's
error (``{"resource": "Issue", "code": "custom", "field": "body", "message": "body is too long
(maximum is 65536 characters)"}``; an issue comment says ``Body is too long ...`` for field
``data``; the review routes answer ``Unprocessable Entity`` with the message alone), GraphQL
an ``UNPROCESSABLE`` error (``Body is too long (maximum is 65536
characters)``). Both APIs check the request before anything else of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["graphql_problem", "rest_problem"]

BODY, TITLE, LABEL, RELEASE_NOTES = 65_536, 256, 50, 125_000


@dataclass(frozen=True)
class _Limit:
    key: str
    """The request field (``comments[].body``: the ``body`` of each of ``comments``)."""
    maximum: int
    resource: str = ""
    field: str | None = None
    """The field GitHub's REST error names, when not ``key``."""
    code: str = "custom"
    simple: bool = False
    """The route answers GitHub's plain form: ``Unprocessable Entity`` with full messages."""


def _issue(resource: str) -> tuple[_Limit, ...]:
    return (_Limit("title", TITLE, resource), _Limit("body", BODY, resource))


_COMMENT = (_Limit("body", BODY, "IssueComment", "data", "unprocessable"),)
_REVIEW_COMMENT = (_Limit("body", BODY, "PullRequestReviewComment"),)
_REVIEW = (_Limit("body", BODY, "PullRequestReview", simple=True),)
_REPO = "/repos/{owner}/{repo}"
_REST: dict[tuple[str, str], tuple[_Limit, ...]] = {
    ("POST", _REPO + "/issues"): _issue("Issue"),
    ("PATCH", _REPO + "/issues/{issue_number}"): _issue("Issue"),
    ("POST", _REPO + "/issues/{issue_number}/comments"): _COMMENT,
    ("PATCH", _REPO + "/issues/comments/{comment_id}"): _COMMENT,
    ("POST", _REPO + "/pulls"): _issue("PullRequest"),
    ("PATCH", _REPO + "/pulls/{pull_number}"): _issue("PullRequest"),
    ("POST", _REPO + "/pulls/{pull_number}/reviews"): (
        *_REVIEW,
        _Limit("comments[].body", BODY, "PullRequestReviewComment", "body", simple=True),
    ),
    ("POST", _REPO + "/pulls/{pull_number}/reviews/{review_id}/events"): _REVIEW,
    ("PUT", _REPO + "/pulls/{pull_number}/reviews/{review_id}"): _REVIEW,
    ("POST", _REPO + "/pulls/{pull_number}/comments"): _REVIEW_COMMENT,
    ("POST", _REPO + "/pulls/{pull_number}/comments/{comment_id}/replies"): _REVIEW_COMMENT,
    ("PATCH", _REPO + "/pulls/comments/{comment_id}"): _REVIEW_COMMENT,
    ("POST", _REPO + "/labels"): (_Limit("name", LABEL, "Label"),),
    ("PATCH", _REPO + "/labels/{name}"): (_Limit("new_name", LABEL, "Label", "name"),),
    ("POST", _REPO + "/releases"): (_Limit("body", RELEASE_NOTES, "Release"),),
    ("PATCH", _REPO + "/releases/{release_id}"): (_Limit("body", RELEASE_NOTES, "Release"),),
}

_TEXT = (_Limit("title", TITLE), _Limit("body", BODY))
_BODY = (_Limit("body", BODY),)
_GRAPHQL: dict[str, tuple[_Limit, ...]] = {
    "createIssue": _TEXT,
    "updateIssue": _TEXT,
    "createPullRequest": _TEXT,
    "updatePullRequest": _TEXT,
    "addComment": _BODY,
    "updateIssueComment": _BODY,
    "addPullRequestReview": (
        *_BODY,
        _Limit("threads[].body", BODY),
        _Limit("comments[].body", BODY),
    ),
    "submitPullRequestReview": _BODY,
    "updatePullRequestReview": _BODY,
    "addPullRequestReviewThread": _BODY,
    "addPullRequestReviewThreadReply": _BODY,
    "addPullRequestReviewComment": _BODY,
    "updatePullRequestReviewComment": _BODY,
    "createLabel": (_Limit("name", LABEL),),
    "updateLabel": (_Limit("name", LABEL),),
}


def _values(data: Mapping[str, Any], key: str) -> list[Any]:
    outer, _, inner = key.partition("[].")
    if not inner:
        return [data.get(key)]
    items = data.get(outer)
    return [i.get(inner) for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _over(limit: _Limit, data: Mapping[str, Any]) -> bool:
    return any(isinstance(v, str) and len(v) > limit.maximum for v in _values(data, limit.key))


def _message(name: str, maximum: int) -> str:
    return f"{name} is too long (maximum is {maximum} characters)"


def rest_problem(
    method: str, template: str, body: Mapping[str, Any]
) -> tuple[str, list[Any]] | None:
    """GitHub's 422 (its message and errors) for the first field of a REST write over its
    limit, if any."""
    for limit in _REST.get((method, template), ()):
        if not _over(limit, body):
            continue
        field = limit.field or limit.key
        if limit.simple:
            return "Unprocessable Entity", [_message(field.capitalize(), limit.maximum)]
        name = "Body" if limit.code == "unprocessable" else field
        error = {
            "resource": limit.resource,
            "code": limit.code,
            "field": field,
            "message": _message(name, limit.maximum),
        }
        return "Validation Failed", [error]
    return None


def graphql_problem(mutation: str, data: Mapping[str, Any]) -> str | None:
    """GitHub's message for the first input field of ``mutation`` over its limit, if any."""
    for limit in _GRAPHQL.get(mutation, ()):
        if _over(limit, data):
            name = limit.key.rpartition(".")[2]
            return _message(name.capitalize(), limit.maximum)
    return None
