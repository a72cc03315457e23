"""The oracle's MCP calls: a capability's input translated into the arguments of the tool on
its direct route (``mcp_tools.routes_for_capability(id)[0]``).

Translation is by name (``name`` -> ``repo``, ``prNumber`` -> ``pullNumber``, ``issueId`` ->
``issue_number`` looked up in the world...), plus the few values a tool spells differently
(closing an issue is ``issue_write`` with ``state: closed``). Only keys the tool declares are
sent.

Where the tool wants ids the capability's input does not carry, the plan looks them up first
with read tools, as an agent would, and takes them from what those tools printed
(:func:`mcp_plan`): a review comment's id for a reply, a project's number and the REST id of its
item for a field update, an issue's labels before adding some (``issue_write`` replaces
the list).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Mapping
from typing import Any

from pytest_ghxbench.adapters.oracle.executors import NoPlan
from pytest_ghxbench.sandbox.state import World

__all__ = ["McpCall", "McpPlan", "mcp_call", "mcp_plan"]

McpCall = tuple[str, dict[str, Any]]
McpPlan = Generator[McpCall, str, None]
"""Yields tool calls; each ``send`` hands back the text the previous call printed."""

_RENAMED: Mapping[str, tuple[str, ...]] = {
    "name": ("repo",),
    "issueNumber": ("issue_number",),
    "prNumber": ("pullNumber", "pull_request_number"),
    "first": ("perPage",),
    "tagName": ("tag", "tag_name"),
    "releaseId": ("release_id",),
    "runId": ("run_id", "resource_id"),
    "jobId": ("job_id", "resource_id"),
    "workflowId": ("workflow_id", "resource_id"),
    "checkRunId": ("resource_id",),
    "projectNumber": ("project_number",),
    "itemId": ("item_id",),
    "milestoneNumber": ("milestone",),
    "title": ("title", "name"),
    "notes": ("body",),
    "targetCommitish": ("target_commitish",),
    "threadId": ("threadId",),
    "org": ("owner",),
    "user": ("owner",),
}

_EXTRA: Mapping[str, Mapping[str, Any]] = {
    "issue.close": {"state": "closed"},
    "issue.reopen": {"state": "open"},
    "pr.review.submit_approve": {"event": "APPROVE"},
    "pr.review.submit_comment": {"event": "COMMENT"},
    "pr.review.submit_request_changes": {"event": "REQUEST_CHANGES"},
    "release.create_draft": {"draft": True},
    "release.publish_draft": {"draft": False},
    "workflow_job.logs.analyze": {"failed_only": True},
    "issue.blocked_by.add": {"type": "blocked_by"},
    "issue.blocked_by.remove": {"type": "blocked_by"},
    "project_v2.item.add_issue": {"item_type": "issue"},
    "project_v2.org.get": {"owner_type": "org"},
    "project_v2.user.get": {"owner_type": "user"},
}


def _issue_number(world: World, node: Any) -> Any:
    issue = world.issue_by_node_id(str(node))
    return issue.number if issue is not None else node


def _issue_relations(task: str, values: dict[str, Any], world: World) -> None:
    """``sub_issue_write`` names the parent by number and the child by its database id."""
    if task not in ("issue.parent.set", "issue.parent.remove"):
        return
    from pytest_ghxbench.sandbox.dialects.mcp_exec_base import database_id

    child = world.issue_by_node_id(str(values.get("issueId")))
    if task == "issue.parent.set":
        parent: Any = _issue_number(world, values.pop("parentIssueId", None))
    else:
        parent = child.parent if child is not None else None
    values.pop("issueId", None)
    values["issueNumber"] = parent
    values["sub_issue_id"] = database_id(child.node_id) if child is not None else None


def mcp_call(task: str, input: Mapping[str, Any], world: World) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments that perform ``task`` with ``input``; :class:`NoPlan` when
    no MCP tool serves the capability."""
    from pytest_ghxbench.sandbox.dialects.mcp_tools import TOOLS_BY_NAME, routes_for_capability

    routes = routes_for_capability(task)
    if not routes:
        raise NoPlan(f"oracle has no mcp plan for {task}: no MCP tool serves it")
    tool_name, method = routes[0]
    declared = TOOLS_BY_NAME[tool_name].input_schema.get("properties", {})
    values: dict[str, Any] = dict(input)
    _issue_relations(task, values, world)
    if isinstance(values.get("threadId"), str) and "prNumber" not in values:
        found = world.review_thread(values["threadId"])
        if found is not None:
            values["prNumber"] = found[0].number
    if "issueId" in values:
        values["issueNumber"] = _issue_number(world, values.pop("issueId"))
    for key in ("blockedByIssueId", "parentIssueId"):
        if key in values:
            related = _issue_number(world, values.pop(key))
            values["related_issue_number" if "blocked" in key else "sub_issue_id"] = related
    if task == "pr.ready_for_review.set" and "ready" in values:
        values["draft"] = not values.pop("ready")
    if task == "pr.assignees.update":
        values["issueNumber"] = values.get("prNumber")
        pull = world.pull_request(int(values.get("prNumber") or 0))
        current = list(pull.assignees) if pull is not None else []
        removed = set(values.pop("remove", None) or [])
        added = [a for a in values.pop("add", None) or [] if a not in current]
        values["assignees"] = [a for a in current if a not in removed] + added
    if isinstance(values.get("issueUrl"), str):
        owner, repo, _, number = values.pop("issueUrl").rstrip("/").split("/")[-4:]
        values.update(item_owner=owner, item_repo=repo, issue_number=int(number))
    if task == "pr.merge.execute" and "method" in values:
        values["merge_method"] = str(values.pop("method")).lower()
    arguments: dict[str, Any] = {"method": method} if method is not None else {}
    for key, value in values.items():
        for candidate in (*_RENAMED.get(key, ()), key):
            if candidate in declared and candidate not in arguments:
                arguments[candidate] = value
                break
    for key, value in _EXTRA.get(task, {}).items():
        if key in declared:
            arguments[key] = value
    repo = world.repository
    for key, value in (("owner", repo.owner), ("repo", repo.name)):
        if key in declared and key not in arguments:
            arguments[key] = value
    return tool_name, {k: _conform(v, declared[k]) for k, v in arguments.items()}


def _conform(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` in the JSON type and enum spelling the tool's schema declares."""
    kinds = schema.get("type")
    if kinds == "string" and isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    elif kinds == "integer" and isinstance(value, str) and value.isdigit():
        value = int(value)
    enum = schema.get("enum")
    if isinstance(value, str) and enum and value not in enum:
        folded = {str(option).casefold(): option for option in enum}
        value = folded.get(value.casefold(), value)
    return value


def mcp_plan(task: str, input: Mapping[str, Any], world: World) -> McpPlan:
    """The tool calls that perform ``task``: lookups first where the tool needs ids the input
    lacks, then the call on the capability's direct route. Send each call's output text back
    into the generator; :class:`NoPlan` when no tool serves the capability or a lookup did not
    show what the plan needs."""
    if task == "pr.comment.reply":
        yield from _reply_plan(input, world)
    elif task == "project_v2.item.field.update":
        yield from _field_update_plan(input, world)
    elif task == "issue.labels.add":
        yield from _labels_add_plan(input, world)
    else:
        yield mcp_call(task, input, world)


def _shown(text: str, key: str, what: str) -> list[dict[str, Any]]:
    try:
        rows = json.loads(text).get(key)
    except (json.JSONDecodeError, AttributeError):
        rows = None
    if not isinstance(rows, list):
        raise NoPlan(f"the lookup for {what} printed no {key!r} list: {text[:200]}")
    return [row for row in rows if isinstance(row, dict)]


def _pick(rows: list[dict[str, Any]], key: str, value: Any, what: str) -> dict[str, Any]:
    found = next((row for row in rows if row.get(key) == value), None)
    if found is None:
        raise NoPlan(f"the lookup did not show {what} {value!r}")
    return found


def _reply_plan(input: Mapping[str, Any], world: World) -> McpPlan:
    """Read the pull request's review threads, then reply to the thread's first comment."""
    thread_id = str(input.get("threadId"))
    located = world.review_thread(thread_id)
    if located is None:
        # No lookup can find an unknown thread: the plain call shows the tool's own error.
        yield mcp_call("pr.comment.reply", input, world)
        return
    repo = {"owner": world.repository.owner, "repo": world.repository.name}
    number = located[0].number
    listing = yield (
        "pull_request_read",
        {"method": "get_review_comments", **repo, "pullNumber": number, "perPage": 100},
    )
    thread = _pick(_shown(listing, "review_threads", thread_id), "id", thread_id, "thread")
    comments = thread.get("comments") or []
    if not comments:
        raise NoPlan(f"review thread {thread_id} has no comment to reply to")
    arguments = {**repo, "pullNumber": number, "commentId": comments[0]["id"]}
    yield "add_reply_to_pull_request_comment", {**arguments, "body": str(input.get("body", ""))}


def _labels_add_plan(input: Mapping[str, Any], world: World) -> McpPlan:
    """Read the issue's labels, then write them back with the new ones (``issue_write`` labels
    replace the current list)."""
    repo = {"owner": world.repository.owner, "repo": world.repository.name}
    number = _issue_number(world, input.get("issueId"))
    shown = yield "issue_read", {"method": "get_labels", **repo, "issue_number": number}
    try:
        current = [str(label["name"]) for label in json.loads(shown)]
    except (json.JSONDecodeError, TypeError, KeyError):
        raise NoPlan(f"the lookup of issue {number}'s labels printed no label list") from None
    wanted = current + [name for name in input.get("labels") or [] if name not in current]
    yield "issue_write", {"method": "update", **repo, "issue_number": number, "labels": wanted}


def _field_value(input: Mapping[str, Any]) -> Any:
    for key in ("valueSingleSelectOptionId", "valueText", "valueNumber", "valueDate"):
        if input.get(key) is not None:
            return input[key]
    return None  # ``clear: true``: the tool clears a field given no value


def _field_update_plan(input: Mapping[str, Any], world: World) -> McpPlan:
    """List the owner's projects (the project's number) and the project's items (the item's REST
    id), then update the item's field. The field keeps the node id the input gives: the sandbox's
    tools accept a field by either id, and shipped scenarios allow three calls."""
    project = world.project_by_node_id(str(input.get("projectId")))
    if project is None:
        raise NoPlan(f"project {input.get('projectId')!r} is not in the world: no owner to ask")
    owner = {"owner": project.owner}
    listing = yield "projects_list", {"method": "list_projects", **owner}
    shown = _pick(_shown(listing, "projects", "projects"), "node_id", project.node_id, "project")
    board = {**owner, "project_number": shown["number"]}
    items = yield "projects_list", {"method": "list_project_items", **board}
    item = _pick(_shown(items, "items", "items"), "node_id", input.get("itemId"), "item")
    update = {"id": input.get("fieldId"), "value": _field_value(input)}
    yield (
        "projects_write",
        {"method": "update_project_item", **board, "item_id": item["id"], "updated_field": update},
    )
