"""Pull request changes: assignees, draft state, updating the branch and merging.

- ``pr.assignees.update`` (``add``, ``remove``: logins) → prNumber, add, remove, assignees,
  updated
- ``pr.ready_for_review.set`` (``ready``; false converts back to a draft) → prNumber, isDraft
- ``pr.branch.update`` → prNumber, updated, headSha
- ``pr.merge.execute`` (``method``: merge (default), squash, rebase; ``deleteBranch``;
  ``commitTitle`` and ``commitBody`` of the merge or squash commit) →
  prNumber, method, queued, deleteBranch, merged, mergeCommitSha, branchDeleted

Asking for the draft state a pull request has changes nothing; a branch that is not behind its
base is left alone (``updated: false``); a protected head branch is never deleted.

Errors: ``NOT_FOUND`` for an unknown repository or pull request; ``VALIDATION`` for assignees
who cannot be assigned, an assignee change naming nobody, or more than ten assignees;
``CONFLICT`` for changing a closed or merged pull request, merging a draft, conflicting or
blocked one, and updating a conflicting branch.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.prs import (
    BY_NUMBER,
    LOGINS,
    MAX_ASSIGNEES,
    by_number,
    find_pull,
    pull_graphql,
    pull_path,
    pull_state,
    require_open,
)
from pytest_ghxbench.ghx.capabilities.shapes import repo_path
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import CapabilityError, capability

__all__: list[str] = []

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
    head_sha = pull["head"]["sha"]
    spec = urllib.parse.quote(f"{pull['base']['ref']}...{head_sha}", safe="")
    comparison = client.rest("GET", f"{repo_path(input)}/compare/{spec}")
    behind = int(comparison.get("behind_by") or 0) > 0
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
        commitTitle={"type": "string", "minLength": 1, "description": "Merge commit title"},
        commitBody={"type": "string", "description": "Merge commit message body"},
    ),
    mutates=True,
)
def pr_merge_execute(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    pull = find_pull(client, input)
    number = input["prNumber"]
    require_open(pull_state(pull), number, "merge")
    body = {"merge_method": input["method"]}
    if input.get("commitTitle"):
        body["commit_title"] = input["commitTitle"]
    if input.get("commitBody") is not None:
        body["commit_message"] = input["commitBody"]
    try:
        merged = client.rest("PUT", f"{pull_path(input)}/merge", body=body)
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
