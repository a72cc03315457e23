"""Pull request capabilities: reading, mergeability, assignees, draft state, branch and merge.

Checks are in :mod:`.pr_checks`, review threads and reviews in :mod:`.pr_reviews`. A pull
request is addressed by ``owner``, ``name`` and ``prNumber``; lists take ``first`` / ``after``
and return ``{items, pageInfo}``.

- ``pr.view`` (``exclude: ["body"]``) → id, number, title, state (OPEN, CLOSED, MERGED), url,
  body, labels, isDraft, author, headRefName, baseRefName
- ``pr.list`` (no ``prNumber``; ``state``: open (default), closed (includes merged), merged,
  all; newest first) → items{id, number, title, state, isDraft, url}
- ``pr.diff.list_files`` → items{path, additions, deletions, changeType}
- ``pr.mergeability.view`` → mergeable, mergeStateStatus, reviewDecision, isDraft, state
- ``pr.assignees.update`` (``add``, ``remove``: logins) → prNumber, add, remove, assignees,
  updated
- ``pr.ready_for_review.set`` (``ready``; false converts back to a draft) → prNumber, isDraft
- ``pr.branch.update`` → prNumber, updated, headSha
- ``pr.merge.execute`` (``method``: merge (default), squash, rebase; ``deleteBranch``) →
  prNumber, method, queued, deleteBranch, merged, mergeCommitSha, branchDeleted

Errors: ``NOT_FOUND`` for an unknown repository or pull request; ``VALIDATION`` for assignees
who cannot be assigned, an assignee change naming nobody, or more than ten assignees;
``CONFLICT`` for changing a closed or merged pull request, merging a draft, conflicting or
blocked one, and updating a conflicting branch.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.registry import (
    AFTER,
    FIRST,
    CapabilityError,
    capability,
    connection_page,
    label_names,
    login,
    repo_path,
    repo_schema,
    upper,
)
from pytest_ghxbench.github.client import GitHubClient, GitHubError

__all__ = [
    "BY_NUMBER",
    "LOGINS",
    "by_number",
    "find_pull",
    "offset_page",
    "pull_graphql",
    "pull_path",
    "pull_state",
    "require_open",
]

PR_NUMBER: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Pull request number"}
LOGINS: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}
MAX_ASSIGNEES = 10
_MAX_LISTED = 1000


def by_number(*required: str, **extra: dict[str, Any]) -> dict[str, Any]:
    """The input schema of a pull request addressed by number, with more properties."""
    return repo_schema("prNumber", *required, prNumber=PR_NUMBER, **extra)


BY_NUMBER = by_number()


# ---------------------------------------------------------------- shared lookups


def pull_path(input: Mapping[str, Any]) -> str:
    return f"{repo_path(input)}/pulls/{input['prNumber']}"


def find_pull(client: GitHubClient, input: Mapping[str, Any]) -> dict[str, Any]:
    """The REST pull request ``input`` names, or ``NOT_FOUND`` (saying when it is an issue)."""
    number = input["prNumber"]
    try:
        found: dict[str, Any] = client.rest("GET", pull_path(input))
        return found
    except GitHubError as exc:
        if exc.status != 404:
            raise
    hint = ""
    try:
        issue = client.rest("GET", f"{repo_path(input)}/issues/{number}")
        if isinstance(issue, dict) and "pull_request" not in issue:
            hint = f" (#{number} is an issue)"
    except GitHubError as exc:
        if exc.status != 404:
            raise
    raise CapabilityError(
        "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}{hint}."
    )


def pull_state(pull: Mapping[str, Any]) -> str:
    """OPEN, CLOSED or MERGED of a REST pull request."""
    return "MERGED" if pull.get("merged") or pull.get("merged_at") else str(upper(pull["state"]))


def require_open(state: str, number: int, action: str) -> None:
    """``CONFLICT`` unless the pull request is open."""
    if state != "OPEN":
        raise CapabilityError(
            "CONFLICT", f"cannot {action} pull request #{number}: it is {state.lower()}"
        )


_PULL_QUERY = """
query PullRequest($owner: String!, $name: String!, $number: Int!%s) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) { %s }
  }
}
"""


def pull_graphql(
    client: GitHubClient,
    input: Mapping[str, Any],
    selection: str,
    **variables: tuple[str, Any],
) -> dict[str, Any]:
    """The ``pullRequest`` object of a GraphQL query selecting ``selection``; ``variables``
    maps each extra variable's name to its GraphQL type and value."""
    declared = "".join(f", ${key}: {kind}" for key, (kind, _) in variables.items())
    values = {key: value for key, (_, value) in variables.items()}
    data = client.graphql(
        _PULL_QUERY % (declared, selection),
        {"owner": input["owner"], "name": input["name"], "number": input["prNumber"], **values},
    )
    pull = ((data or {}).get("repository") or {}).get("pullRequest")
    if not isinstance(pull, dict):
        number = input["prNumber"]
        raise CapabilityError(
            "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}."
        )
    return pull


def offset_page(items: list[Any], input: Mapping[str, Any], render: Any) -> dict[str, Any]:
    """A page of a list filtered or ordered here: the cursor is the offset of the next item."""
    after = input.get("after")
    try:
        start = int(after) if after else 0
    except ValueError:
        raise CapabilityError(
            "VALIDATION", f"input.after: {after!r} is not a valid cursor"
        ) from None
    chunk = items[start : start + int(input.get("first") or 30)]
    end = start + len(chunk)
    return {
        "items": [render(item) for item in chunk],
        "pageInfo": {"hasNextPage": end < len(items), "endCursor": str(end) if chunk else None},
    }


# ---------------------------------------------------------------- reads


@capability(
    "pr.view",
    "Fetch one pull request by number.",
    by_number(exclude={"type": "array", "items": {"type": "string", "enum": ["body"]}}),
)
def pr_view(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(client, input)
    data = {
        "id": pull["node_id"],
        "number": pull["number"],
        "title": pull["title"],
        "state": pull_state(pull),
        "url": pull["html_url"],
        "body": pull.get("body") or "",
        "labels": label_names(pull.get("labels")),
        "isDraft": bool(pull.get("draft")),
        "author": login(pull.get("user")),
        "headRefName": pull["head"]["ref"],
        "baseRefName": pull["base"]["ref"],
    }
    if "body" in input.get("exclude", []):
        del data["body"]
    return data


_LIST_STATES = {"open": ["OPEN"], "closed": ["CLOSED", "MERGED"], "merged": ["MERGED"]}
_LIST_QUERY = """
query PullRequests($owner: String!, $name: String!, $states: [PullRequestState!], $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequests(states: $states, first: 100, after: $after,
                 orderBy: {field: CREATED_AT, direction: DESC}) {
      nodes { id number title state isDraft url }
      pageInfo { hasNextPage endCursor }
    }
  }
}
"""


@capability(
    "pr.list",
    "List pull requests, newest first (state: open, closed (includes merged), merged, all).",
    repo_schema(
        state={"type": "string", "enum": ["open", "closed", "merged", "all"], "default": "open"},
        first=FIRST,
        after=AFTER,
    ),
)
def pr_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    # Newest means the highest number; GitHub orders by dates only, so sort here.
    variables: dict[str, Any] = {
        "owner": input["owner"],
        "name": input["name"],
        "states": _LIST_STATES.get(input["state"]),
    }
    pulls: list[dict[str, Any]] = []
    after = None
    while len(pulls) < _MAX_LISTED:
        data = client.graphql(_LIST_QUERY, {**variables, "after": after})
        connection = data["repository"]["pullRequests"]
        pulls.extend(connection["nodes"] or [])
        after = connection["pageInfo"]["endCursor"]
        if not connection["pageInfo"]["hasNextPage"] or after is None:
            break
    pulls.sort(key=lambda p: -int(p["number"]))
    return offset_page(
        pulls,
        input,
        lambda p: {
            "id": p["id"],
            "number": p["number"],
            "title": p["title"],
            "state": p["state"],
            "isDraft": bool(p["isDraft"]),
            "url": p["url"],
        },
    )


@capability(
    "pr.diff.list_files",
    "List the files a pull request changes, with line counts.",
    by_number(first=FIRST, after=AFTER),
    route="graphql",
)
def pr_diff_list_files(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = pull_graphql(
        client,
        input,
        "files(first: $first, after: $after) {"
        " nodes { path additions deletions changeType } pageInfo { hasNextPage endCursor } }",
        first=("Int!", input["first"]),
        after=("String", input.get("after")),
    )
    return connection_page(
        pull["files"],
        lambda f: {
            "path": f["path"],
            "additions": f["additions"],
            "deletions": f["deletions"],
            "changeType": f["changeType"],
        },
    )


@capability(
    "pr.mergeability.view",
    "View whether a pull request can be merged: mergeable, merge state, review decision.",
    BY_NUMBER,
)
def pr_mergeability_view(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = pull_graphql(client, input, "mergeable mergeStateStatus reviewDecision isDraft state")
    return {
        "mergeable": pull["mergeable"],
        "mergeStateStatus": pull["mergeStateStatus"],
        "reviewDecision": pull["reviewDecision"],
        "isDraft": pull["isDraft"],
        "state": pull["state"],
    }


# ---------------------------------------------------------------- mutations


_USER_QUERY = "query User($login: String!) { user(login: $login) { id } }"
_SET_ASSIGNEES = """
mutation SetAssignees($id: ID!, $users: [ID!]) {
  updatePullRequest(input: {pullRequestId: $id, assigneeIds: $users}) {
    pullRequest { assignees(first: 100) { nodes { login } } }
  }
}
"""


def _can_assign(client: GitHubClient, input: Mapping[str, Any], user: str) -> bool:
    quoted = urllib.parse.quote(user, safe="")
    answer = client.request("GET", f"{repo_path(input)}/assignees/{quoted}", ok_statuses=(404,))
    return answer.status == 204


@capability(
    "pr.assignees.update",
    "Add and/or remove assignees of a pull request (others stay assigned).",
    by_number(add=LOGINS, remove=LOGINS),
    mutates=True,
)
def pr_assignees_update(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = pull_graphql(client, input, "id assignees(first: 100) { nodes { id login } }")
    add, remove = input.get("add", []), input.get("remove", [])
    if not add and not remove:
        raise CapabilityError("VALIDATION", "input: name at least one login in add or remove")
    full_name = f"{input['owner']}/{input['name']}"
    for user in add:
        if not _can_assign(client, input, user):
            raise CapabilityError(
                "VALIDATION",
                f"input.add: '{user}' cannot be assigned: not a collaborator of {full_name}",
            )
    ids = {node["login"]: node["id"] for node in pull["assignees"]["nodes"]}
    assignees = [a for a in dict.fromkeys([*ids, *add]) if a not in remove]
    if len(assignees) > MAX_ASSIGNEES:
        raise CapabilityError(
            "VALIDATION", f"a pull request can have at most {MAX_ASSIGNEES} assignees"
        )
    for user in assignees:
        if user not in ids:
            ids[user] = client.graphql(_USER_QUERY, {"login": user})["user"]["id"]
    data = client.graphql(_SET_ASSIGNEES, {"id": pull["id"], "users": [ids[a] for a in assignees]})
    nodes = data["updatePullRequest"]["pullRequest"]["assignees"]["nodes"]
    return {
        "prNumber": input["prNumber"],
        "add": list(add),
        "remove": list(remove),
        "assignees": [node["login"] for node in nodes],
        "updated": True,
    }


_READY = """
mutation Ready($id: ID!) {
  markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } }
}
"""
_DRAFT = """
mutation Draft($id: ID!) {
  convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } }
}
"""


@capability(
    "pr.ready_for_review.set",
    "Mark a draft pull request ready for review (ready: false converts it back to a draft).",
    by_number("ready", ready={"type": "boolean"}),
    mutates=True,
)
def pr_ready_for_review_set(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    ready = input["ready"]
    pull = pull_graphql(client, input, "id state isDraft")
    require_open(pull["state"], input["prNumber"], "mark ready" if ready else "convert to draft")
    is_draft = bool(pull["isDraft"])
    if is_draft == ready:
        data = client.graphql(_READY if ready else _DRAFT, {"id": pull["id"]})
        field = "markPullRequestReadyForReview" if ready else "convertPullRequestToDraft"
        is_draft = bool(data[field]["pullRequest"]["isDraft"])
    return {"prNumber": input["prNumber"], "isDraft": is_draft}


def _branch_sha(client: GitHubClient, input: Mapping[str, Any], branch: str) -> str | None:
    ref = urllib.parse.quote(f"heads/{branch}", safe="/")
    answer = client.request("GET", f"{repo_path(input)}/git/ref/{ref}", ok_statuses=(404,))
    if answer.status == 404 or not isinstance(answer.data, dict):
        return None
    sha = (answer.data.get("object") or {}).get("sha")
    return str(sha) if sha else None


@capability(
    "pr.branch.update",
    "Merge the base branch's latest commits into a pull request's head branch.",
    BY_NUMBER,
    mutates=True,
)
def pr_branch_update(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(client, input)
    number = input["prNumber"]
    require_open(pull_state(pull), number, "update the branch of")
    if pull.get("mergeable") is False:
        raise CapabilityError(
            "CONFLICT", f"merge conflict between base and head of pull request #{number}"
        )
    base_sha = pull["base"].get("sha")
    current = _branch_sha(client, input, pull["base"]["ref"])
    behind = current is not None and bool(base_sha) and base_sha != current
    head_sha = pull["head"]["sha"]
    if behind:
        client.rest(
            "PUT", f"{pull_path(input)}/update-branch", body={"expected_head_sha": head_sha}
        )
        head_sha = client.rest("GET", pull_path(input))["head"]["sha"]
    return {"prNumber": number, "updated": behind, "headSha": head_sha}


def _protected(client: GitHubClient, input: Mapping[str, Any], branch: str) -> bool:
    listed = client.paginate(f"{repo_path(input)}/branches", {"protected": "true"})
    return any(b.get("name") == branch and b.get("protected") for b in listed)


@capability(
    "pr.merge.execute",
    "Merge a pull request (merge, squash or rebase), optionally deleting its head branch.",
    by_number(
        method={"type": "string", "enum": ["merge", "squash", "rebase"], "default": "merge"},
        deleteBranch={"type": "boolean", "default": False},
    ),
    mutates=True,
)
def pr_merge_execute(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(client, input)
    number = input["prNumber"]
    require_open(pull_state(pull), number, "merge")
    try:
        merged = client.rest(
            "PUT", f"{pull_path(input)}/merge", body={"merge_method": input["method"]}
        )
    except GitHubError as exc:
        if exc.status in (405, 409):  # GitHub: 405 not mergeable, 409 head changed
            raise CapabilityError("CONFLICT", exc.message) from None
        raise
    deleted = False
    head = pull["head"]["ref"]
    if input["deleteBranch"] and not _protected(client, input, head):
        ref = urllib.parse.quote(f"heads/{head}", safe="/")
        answer = client.request(
            "DELETE", f"{repo_path(input)}/git/refs/{ref}", ok_statuses=(404, 422)
        )
        deleted = answer.status == 204
    return {
        "prNumber": number,
        "method": input["method"],
        "queued": False,
        "deleteBranch": input["deleteBranch"],
        "merged": True,
        "mergeCommitSha": merged["sha"],
        "branchDeleted": deleted,
    }
