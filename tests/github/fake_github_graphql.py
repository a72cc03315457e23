"""The GraphQL operations of :class:`tests.github.fake_github.FakeGitHub` (listed in its
module docstring). Arguments come from ``variables`` or from literals in the query text."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tests.github.fake_github_rest import JSON

if TYPE_CHECKING:
    from tests.github.fake_github import FakeGitHub

GraphQLOperation = Callable[["FakeGitHub", str, JSON], JSON]
_OPERATION_NAME = re.compile(r"^\s*(?:query|mutation)\s+([A-Za-z_]\w*)")
_ROOT_FIELDS = (
    ("unresolveReviewThread", "UnresolveReviewThread"),
    ("resolveReviewThread", "ResolveReviewThread"),
    ("reviewThreads", "PullRequestReviewThreads"),
    ("viewer", "Viewer"),
)


def answer_graphql(fake: FakeGitHub, body: JSON) -> JSON:
    """The answer to one GraphQL request body (``query``, ``variables``, ``operationName``)."""
    query = str(body.get("query") or "")
    variables = body.get("variables") if isinstance(body.get("variables"), dict) else {}
    named = _OPERATION_NAME.match(query)
    name = named[1] if named else str(body.get("operationName") or "")
    if not name:
        name = next((op for field, op in _ROOT_FIELDS if re.search(rf"\b{field}\b", query)), "")
    operation = _OPERATIONS.get(name)
    if operation is None:
        known = ", ".join(sorted(_OPERATIONS))
        return {"errors": [{"message": f"Unknown operation {name!r}; this fake answers {known}"}]}
    return operation(fake, query, variables or {})


def _arguments(query: str, field: str) -> str:
    """The text between the parentheses after ``field`` (empty when it takes none)."""
    found = re.search(rf"\b{field}\s*\(([^)]*)\)", query)
    return found[1] if found else ""


def _argument(arguments: str, variables: JSON, key: str) -> Any:
    found = re.search(rf'(?<![$\w]){key}\s*:\s*(\$\w+|"(?:[^"\\]|\\.)*"|-?\d+|null)', arguments)
    if found is None:
        return None
    raw = found[1]
    return variables.get(raw[1:]) if raw.startswith("$") else json.loads(raw)


def _not_found(path: list[str], message: str) -> JSON:
    return {"type": "NOT_FOUND", "path": path, "message": message}


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _thread_node(fake: FakeGitHub, number: int, thread: JSON) -> JSON:
    by_id = {c["id"]: c for c in fake.review_comments[number]}
    comments = [by_id[i] for i in thread["comment_ids"]]
    resolved = bool(thread["isResolved"])
    node = {key: thread[key] for key in ("id", "isResolved", "isOutdated", "path", "line")}
    node.update(startLine=thread["startLine"], diffSide=thread["diffSide"])
    node.update(subjectType="LINE" if thread["line"] is not None else "FILE")
    node.update(viewerCanReply=True, viewerCanResolve=not resolved, viewerCanUnresolve=resolved)
    node["resolvedBy"] = {"login": thread["resolvedBy"]} if thread["resolvedBy"] else None
    nodes = [
        {"id": c["node_id"], "databaseId": c["id"], "body": c["body"]}
        | {"author": {"login": c["user"]["login"]}, "createdAt": c["created_at"]}
        | {"url": c["html_url"], "path": c["path"], "line": c["line"]}
        for c in comments
    ]
    node["comments"] = {"totalCount": len(nodes), "nodes": nodes}
    return node


def _review_threads(fake: FakeGitHub, query: str, variables: JSON) -> JSON:
    in_repository = _arguments(query, "repository")
    owner = _argument(in_repository, variables, "owner")
    name = _argument(in_repository, variables, "name")
    if (str(owner).casefold(), str(name).casefold()) != (
        fake.owner.casefold(),
        fake.repo.casefold(),
    ):
        message = f"Could not resolve to a Repository with the name '{owner}/{name}'."
        return {"data": {"repository": None}, "errors": [_not_found(["repository"], message)]}
    number = _argument(_arguments(query, "pullRequest"), variables, "number")
    if not isinstance(number, int) or number not in fake.pulls:
        message = f"Could not resolve to a PullRequest with the number of {number}."
        path = ["repository", "pullRequest"]
        return {
            "data": {"repository": {"pullRequest": None}},
            "errors": [_not_found(path, message)],
        }
    in_connection = _arguments(query, "reviewThreads")
    first = _argument(in_connection, variables, "first")
    after = _argument(in_connection, variables, "after")
    if not isinstance(first, int) or not 0 <= first <= 100:
        message = (
            f"`first` must be between 0 and 100 on the `reviewThreads` connection, got {first}"
        )
        return {"data": None, "errors": [{"message": message}]}
    try:
        start = int(base64.b64decode(after).decode().rpartition(":")[2]) + 1 if after else 0
    except ValueError:
        return {"data": None, "errors": [{"message": f"`{after}` is not a valid cursor."}]}
    threads = fake.threads[number]
    chunk = threads[start : start + first]
    end = start + len(chunk)
    page_info: JSON = {"hasNextPage": end < len(threads), "hasPreviousPage": start > 0}
    page_info["endCursor"] = _cursor(end - 1) if chunk else None
    connection: JSON = {"totalCount": len(threads), "pageInfo": page_info}
    connection["nodes"] = [_thread_node(fake, number, thread) for thread in chunk]
    return {"data": {"repository": {"pullRequest": {"reviewThreads": connection}}}}


def _resolving(field: str, resolved: bool) -> GraphQLOperation:
    def operation(fake: FakeGitHub, query: str, variables: JSON) -> JSON:
        arguments = _arguments(query, field)
        thread_id = _argument(arguments, variables, "threadId")
        given = _argument(arguments, variables, "input")
        if thread_id is None and isinstance(given, dict):
            thread_id = given.get("threadId")
        for number, threads in fake.threads.items():
            for thread in threads:
                if thread["id"] == thread_id:
                    thread["isResolved"] = resolved
                    thread["resolvedBy"] = fake.login if resolved else None
                    return {"data": {field: {"thread": _thread_node(fake, number, thread)}}}
        message = f"Could not resolve to a node with the global id of '{thread_id}'"
        return {"data": {field: None}, "errors": [_not_found([field], message)]}

    return operation


def _viewer(fake: FakeGitHub, query: str, variables: JSON) -> JSON:
    return {"data": {"viewer": {"login": fake.login}}}


_OPERATIONS: dict[str, GraphQLOperation] = {
    "PullRequestReviewThreads": _review_threads,
    "ResolveReviewThread": _resolving("resolveReviewThread", True),
    "UnresolveReviewThread": _resolving("unresolveReviewThread", False),
    "Viewer": _viewer,
}
GRAPHQL_OPERATIONS = tuple(sorted(_OPERATIONS))
