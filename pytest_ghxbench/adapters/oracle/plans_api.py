"""The oracle's gh plans for capabilities gh has no porcelain command for: ``gh api`` on the
REST path or the GraphQL endpoint, and ``gh project``, written as an agent would (GraphQL
values passed as variables with ``-f``/``-F``, never spliced into the query).

Like the porcelain plans, they name what the input names; where an agent would first read an id
the input lacks (the parent of an issue whose parent is removed), the oracle takes it from the
world it acts on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_ghxbench.adapters.oracle.executors import compact_json
from pytest_ghxbench.sandbox.state import World

__all__ = ["API_PLANS"]

Argv = list[str]
Plan = Callable[[Mapping[str, Any], World], list[Argv]]


def _graphql(query: str, **variables: Any) -> Argv:
    argv = ["api", "graphql", "-f", f"query={' '.join(query.split())}"]
    for key, value in variables.items():
        typed = isinstance(value, (bool, int)) or value is None
        text = compact_json(value) if typed else str(value)
        argv += ["-F" if typed else "-f", f"{key}={text}"]
    return argv


def _rest(path: str, i: Mapping[str, Any], **params: Any) -> Argv:
    query = "&".join(f"{k}={v}" for k, v in params.items() if v is not None)
    return ["api", f"repos/{i['owner']}/{i['name']}/{path}" + (f"?{query}" if query else "")]


def _per_page(i: Mapping[str, Any]) -> Any:
    return i.get("first")


def _node(world: World, number: int | None) -> str | None:
    issue = world.issue(number) if number is not None else None
    return issue.node_id if issue is not None else None


_REPO_VARS = "$owner: String!, $name: String!"
_ISSUE_RELATIONS = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { issue(number: $number) {
    id number title state
    parent { id number title state }
    subIssues(first: 50) { nodes { id number title state } }
    blockedBy(first: 50) { nodes { id number title state } }
    blocking(first: 50) { nodes { id number title state } } } } }
"""
_LINKED_PRS = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { issue(number: $number) {
    closedByPullRequestsReferences(first: 50) { nodes { id number title state url } } } } }
"""
_ISSUE_TYPES = f"""
query({_REPO_VARS}, $first: Int!) {{
  repository(owner: $owner, name: $name) {{
    issueTypes(first: $first) {{ nodes {{ id name description color isEnabled }} }} }} }}
"""
_REVIEW_THREADS = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { pullRequest(number: $number) {
    reviewThreads(first: 100) { nodes { id isResolved isOutdated path line
      comments(first: 50) { nodes { id databaseId body author { login } createdAt } } } } } } }
"""
_SUB_ISSUE = """
mutation($parent: ID!, $child: ID!) {{
  {name}(input: {{issueId: $parent, subIssueId: $child}}) {{
    issue {{ number }} subIssue {{ number }} }} }}
"""
_BLOCKED_BY = """
mutation($issue: ID!, $blocking: ID!) {{
  {name}(input: {{issueId: $issue, blockingIssueId: $blocking}}) {{
    issue {{ number }} blockingIssue {{ number }} }} }}
"""
_THREAD = """
mutation($thread: ID!) {{
  {name}(input: {{threadId: $thread}}) {{ thread {{ id isResolved }} }} }}
"""
_THREAD_REPLY = """
mutation($thread: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $thread, body: $body}) {
    comment { id databaseId body } } }
"""


def _numbered(query: str, number_key: str) -> Plan:
    return lambda i, w: [
        _graphql(query, owner=i["owner"], name=i["name"], number=int(i[number_key]))
    ]


def _parent_set(i: Mapping[str, Any], w: World) -> list[Argv]:
    query = _SUB_ISSUE.format(name="addSubIssue")
    return [_graphql(query, parent=i["parentIssueId"], child=i["issueId"])]


def _parent_remove(i: Mapping[str, Any], w: World) -> list[Argv]:
    child = w.issue_by_node_id(str(i["issueId"]))
    # The agent reads the parent's id first (issue.relations.get shows it); without a parent,
    # the child's own id makes the mutation fail the way the capability does.
    parent = _node(w, child.parent) if child is not None else None
    query = _SUB_ISSUE.format(name="removeSubIssue")
    return [_graphql(query, parent=parent or i["issueId"], child=i["issueId"])]


def _blocked_by(name: str) -> Plan:
    query = _BLOCKED_BY.format(name=name)
    return lambda i, w: [_graphql(query, issue=i["issueId"], blocking=i["blockedByIssueId"])]


def _thread(name: str) -> Plan:
    query = _THREAD.format(name=name)
    return lambda i, w: [_graphql(query, thread=i["threadId"])]


def _project(sub: str, owner_key: str = "owner", *extra: str) -> Plan:
    return lambda i, w: [
        ["project", sub, str(i["projectNumber"]), "--owner", str(i[owner_key]), *extra]
    ]


def _project_limit(sub: str) -> Plan:
    def plan(i: Mapping[str, Any], w: World) -> list[Argv]:
        limit = ["--limit", str(i["first"])] if "first" in i else []
        return [[*_project(sub)(i, w)[0], *limit, "--format", "json"]]

    return plan


def _item_add(i: Mapping[str, Any], w: World) -> list[Argv]:
    url = str(i["issueUrl"])
    return [[*_project("item-add")(i, w)[0], "--url", url, "--format", "json"]]


_ITEM_VALUE_FLAGS = (
    ("valueText", "--text"),
    ("valueNumber", "--number"),
    ("valueDate", "--date"),
    ("valueSingleSelectOptionId", "--single-select-option-id"),
    ("valueIterationId", "--iteration-id"),
)


def _item_edit(i: Mapping[str, Any], w: World) -> list[Argv]:
    argv = ["project", "item-edit", "--id", str(i["itemId"]), "--project-id", str(i["projectId"])]
    argv += ["--field-id", str(i["fieldId"])]
    for key, flag in _ITEM_VALUE_FLAGS:
        if i.get(key) is not None:
            argv += [flag, str(i[key])]
    if i.get("clear"):
        argv.append("--clear")
    return [[*argv, "--format", "json"]]


def _milestones(i: Mapping[str, Any], w: World) -> list[Argv]:
    state = str(i.get("state") or "open").lower()
    return [_rest("milestones", i, state=state, per_page=_per_page(i))]


API_PLANS: Mapping[str, Plan] = {
    "check_run.annotations.list": lambda i, w: [
        _rest(f"check-runs/{i['checkRunId']}/annotations", i, per_page=_per_page(i))
    ],
    "workflow_run.artifacts.list": lambda i, w: [
        _rest(f"actions/runs/{i['runId']}/artifacts", i, per_page=_per_page(i))
    ],
    "repo.milestones.list": _milestones,
    "repo.issue_types.list": lambda i, w: [
        _graphql(_ISSUE_TYPES, owner=i["owner"], name=i["name"], first=int(i.get("first", 25)))
    ],
    "issue.relations.get": _numbered(_ISSUE_RELATIONS, "issueNumber"),
    "issue.linked_prs.list": _numbered(_LINKED_PRS, "issueNumber"),
    "issue.parent.set": _parent_set,
    "issue.parent.remove": _parent_remove,
    "issue.blocked_by.add": _blocked_by("addBlockedBy"),
    "issue.blocked_by.remove": _blocked_by("removeBlockedBy"),
    "pr.comments.list": _numbered(_REVIEW_THREADS, "prNumber"),
    "pr.comment.reply": lambda i, w: [
        _graphql(_THREAD_REPLY, thread=i["threadId"], body=str(i["body"]))
    ],
    "pr.comment.resolve": _thread("resolveReviewThread"),
    "pr.comment.unresolve": _thread("unresolveReviewThread"),
    "project_v2.org.get": _project("view", "org", "--format", "json"),
    "project_v2.user.get": _project("view", "user", "--format", "json"),
    "project_v2.fields.list": _project_limit("field-list"),
    "project_v2.items.list": _project_limit("item-list"),
    "project_v2.item.add_issue": _item_add,
    "project_v2.item.field.update": _item_edit,
}
"""Capability id -> its ``gh api`` / ``gh project`` command lines."""
