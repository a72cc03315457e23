"""The oracle's MCP plans: the calls to the real GitHub MCP server (the pinned
github-mcp-server 0.12.1) that perform a capability, as an agent with only that server's tools
would make them.

:func:`mcp_plan` yields ``(tool, arguments)``; the text each call printed is sent back, so a
plan reads the ids a later call needs from what its lookups showed (an issue's database id for
``add_sub_issue``, its labels before ``update_issue`` replaces them...). Like an agent that
remembers what it read, a plan may also look things up in the world it is given (an issue's
number from its node id, the workflows that ran for a pull request's head commit).

Where the server has no tool (or combination of tools) that performs a capability, the plan
raises :class:`NoTool` before yielding anything. :data:`UNSERVED` lists the capabilities no
input of which can be performed; :data:`UNSERVED_INPUTS` those the server performs only for
some inputs (closing an issue as not planned, merging and deleting the head branch...);
:func:`unserved` tells which reason, if any, applies to one input.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from typing import Any

from pytest_ghxbench.adapters.oracle.mcp_base import (
    McpCall,
    McpPlan,
    NoTool,
    Planner,
)
from pytest_ghxbench.adapters.oracle.mcp_base import args_of as _args
from pytest_ghxbench.adapters.oracle.mcp_base import repo_of as _repo
from pytest_ghxbench.adapters.oracle.mcp_base import shown as _shown
from pytest_ghxbench.adapters.oracle.mcp_plans_code import (
    CODE_PLANS,
    CODE_REFUSED,
    CODE_UNSERVED_INPUTS,
)
from pytest_ghxbench.sandbox.state import World

__all__ = ["UNSERVED", "UNSERVED_INPUTS", "McpCall", "McpPlan", "NoTool", "mcp_plan", "unserved"]


_PROJECTS = "has no tool for GitHub Projects (the 0.12.1 server has no projects toolset)"
_DEPENDENCIES = "has no tool for issue dependencies (blocked-by / blocking relations)"

UNSERVED: Mapping[str, str] = {
    "check_run.annotations.list": "has no tool that lists a check run's annotations",
    "issue.blocked_by.add": _DEPENDENCIES,
    "issue.blocked_by.remove": _DEPENDENCIES,
    "issue.delete": "has no tool that deletes an issue",
    "issue.relations.get": (
        "has no tool that shows an issue's blocked-by or blocking issues (only its sub-issues)"
    ),
    "pr.comment.reply": "has no tool that replies to a pull request review thread",
    "pr.comment.resolve": "has no tool that resolves a pull request review thread",
    "pr.comment.unresolve": "has no tool that marks a review thread unresolved",
    "pr.comments.list": (
        "has no tool that lists a pull request's review threads or whether they are resolved "
        "(get_pull_request_comments shows the comments only)"
    ),
    "project_v2.fields.list": _PROJECTS,
    "project_v2.item.add_issue": _PROJECTS,
    "project_v2.item.field.update": _PROJECTS,
    "project_v2.items.list": _PROJECTS,
    "project_v2.org.get": _PROJECTS,
    "project_v2.user.get": _PROJECTS,
    "release.create_draft": "has no tool that creates a release",
    "release.publish_draft": "has no tool that edits a release, so none publishes a draft",
    "release.update": "has no tool that edits a release",
    "repo.labels.list": "has no tool that lists a repository's labels",
    "repo.milestones.list": "has no tool that lists a repository's milestones",
}
"""Capability id -> why no tool of the server performs it (the :class:`NoTool` message)."""

_CLEARS = "update_issue ignores an empty list"
UNSERVED_INPUTS: Mapping[str, str] = {
    "issue.close": (
        "has no tool that closes an issue as not planned or as a duplicate (update_issue "
        "takes no state reason)"
    ),
    "issue.milestone.set": "has no tool that removes an issue's milestone (update_issue "
    "ignores milestone 0)",
    "issue.labels.update": f"has no tool that removes every label of an issue ({_CLEARS})",
    "issue.assignees.update": f"has no tool that unassigns everyone from an issue ({_CLEARS})",
    "pr.assignees.update": f"has no tool that unassigns everyone from a pull request ({_CLEARS})",
    "pr.merge.execute": "has no tool that deletes a branch, so none deletes the head branch "
    "after merging",
    **CODE_UNSERVED_INPUTS,
}
"""Capability id -> what the server cannot do for some of its inputs (:func:`unserved`)."""


def unserved(task: str, input: Mapping[str, Any], world: World) -> str | None:
    """Why the server cannot perform ``task`` with ``input`` (the :class:`NoTool` message), or
    ``None`` when a plan performs it."""
    refused = _REFUSED.get(task)
    if refused is not None and refused(input, world):
        return UNSERVED_INPUTS[task]
    return UNSERVED.get(task)


_REFUSED: Mapping[str, Callable[[Mapping[str, Any], World], bool]] = {
    "issue.close": lambda input, _: input.get("reason") not in (None, "completed"),
    "issue.milestone.set": lambda input, _: input.get("milestoneNumber") is None,
    "issue.labels.update": lambda input, _: not input.get("labels"),
    "issue.assignees.update": lambda input, _: not input.get("assignees"),
    "pr.assignees.update": lambda input, world: not _pr_assignees(input, world, None),
    "pr.merge.execute": lambda input, _: bool(input.get("deleteBranch")),
    **CODE_REFUSED,
}


def mcp_plan(task: str, input: Mapping[str, Any], world: World) -> McpPlan:
    """The tool calls that perform ``task`` with ``input``; send each call's output text back
    into the generator. :class:`NoTool` (before any call) when the server cannot do it."""
    reason = unserved(task, input, world)
    if reason is not None:
        raise NoTool(reason)
    planner = _PLANS.get(task)
    if planner is None:
        raise NoTool(f"has no tool the oracle knows for {task}")
    yield from planner(input, world)


# ------------------------------------------------------------------------------ helpers

IssuePlanner = Callable[[Mapping[str, Any], World, dict[str, Any]], McpPlan]


def _number(input: Mapping[str, Any], world: World, key: str = "issueId") -> int:
    issue = world.issue_by_node_id(str(input.get(key)))
    assert issue is not None  # :func:`_on_issue` asked first
    return issue.number


def _plain(tool: str, **fixed: Any) -> Planner:
    """One call of ``tool`` on the repository with :func:`_args` of ``fixed``."""

    def plan(input: Mapping[str, Any], world: World) -> McpPlan:
        yield tool, {**_repo(input, world), **_args(input, fixed)}

    return plan


def _on_issue(inner: IssuePlanner, *others: str) -> Planner:
    """``inner`` with the target ``{owner, repo, issue_number}`` of the issue ``issueId`` names.
    A node id (``issueId`` or one of ``others``) the world does not know gets the search an
    agent would try, which finds nothing, and no further call."""

    def plan(input: Mapping[str, Any], world: World) -> McpPlan:
        for key in ("issueId", *others):
            if world.issue_by_node_id(str(input.get(key))) is None:
                query = f"repo:{world.repository.full_name} {input.get(key)}"
                yield "search_issues", {"query": query}
                return
        target = {**_repo(input, world), "issue_number": _number(input, world)}
        yield from inner(input, world, target)

    return plan


def _issue_call(tool: str, **fields: Any) -> Planner:
    """One call of ``tool`` on the issue ``issueId`` names, with :func:`_args` of ``fields``."""

    def plan(input: Mapping[str, Any], world: World, target: dict[str, Any]) -> McpPlan:
        yield tool, {**target, **_args(input, fields)}

    return _on_issue(plan)


# --------------------------------------------------------------------------------- issues


def _issue_list(input: Mapping[str, Any], world: World) -> McpPlan:
    """``list_issues`` (GraphQL: states in capitals, both when none); ``search_issues`` when
    the input filters by assignee, which ``list_issues`` cannot."""
    repo = _repo(input, world)
    state = str(input.get("state") or "open")
    if input.get("assignee"):
        terms = [f"repo:{repo['owner']}/{repo['repo']}", "is:issue"]
        terms += [f"assignee:{input['assignee']}"]
        terms += [f'label:"{label}"' for label in input.get("labels") or []]
        terms += [] if state == "all" else [f"state:{state}"]
        yield "search_issues", {"query": " ".join(terms), **_args(input, _PAGE)}
        return
    arguments = {**repo, **_args(input, _PAGE), **_args(input, {"labels": "=labels"})}
    if state != "all":
        arguments["state"] = state.upper()
    yield "list_issues", arguments


def _labels_add(input: Mapping[str, Any], world: World, target: dict[str, Any]) -> McpPlan:
    """Read the issue's labels, then write them back with the new ones (``update_issue``
    replaces the list)."""
    shown = _shown((yield "get_issue", target), "issue")
    current = [str(label.get("name")) for label in shown.get("labels") or []]
    wanted = current + [name for name in input.get("labels") or [] if name not in current]
    yield "update_issue", {**target, "labels": wanted}


def _database_id(text: str, number: int) -> int:
    shown = _shown(text, f"issue #{number}")
    if not isinstance(shown.get("id"), int):
        raise NoTool(f"printed no database id for issue #{number}")
    return int(shown["id"])


def _parent_set(input: Mapping[str, Any], world: World, target: dict[str, Any]) -> McpPlan:
    """Read the child (``add_sub_issue`` names it by database id), then add it to the parent,
    replacing any current parent."""
    child_id = _database_id((yield "get_issue", target), target["issue_number"])
    parent = _number(input, world, "parentIssueId")
    arguments = {"issue_number": parent, "sub_issue_id": child_id, "replace_parent": True}
    yield "add_sub_issue", {**target, **arguments}


def _parent_remove(input: Mapping[str, Any], world: World, target: dict[str, Any]) -> McpPlan:
    """Read the child (its database id), then remove it from its parent, whose number the
    agent saw among the parent's sub-issues."""
    child_id = _database_id((yield "get_issue", target), target["issue_number"])
    issue = world.issue(target["issue_number"])
    if issue is not None and issue.parent is not None:
        arguments = {"issue_number": issue.parent, "sub_issue_id": child_id}
        yield "remove_sub_issue", {**target, **arguments}


# ---------------------------------------------------------------------------- pull requests


def _pr_assignees(input: Mapping[str, Any], world: World, shown: list[str] | None) -> list[str]:
    """The assignees after the update: ``shown`` (what ``get_issue`` printed; else the world's)
    without ``remove``, plus ``add``."""
    if shown is None:
        pull = world.pull_request(int(input.get("prNumber") or 0))
        shown = list(pull.assignees) if pull is not None else []
    removed = set(input.get("remove") or [])
    kept = [login for login in shown if login not in removed]
    return kept + [login for login in input.get("add") or [] if login not in kept]


def _pr_assignees_update(input: Mapping[str, Any], world: World) -> McpPlan:
    """Read the pull request's assignees (as an issue), then write the new list."""
    target = {**_repo(input, world), "issue_number": input["prNumber"]}
    shown = _shown((yield "get_issue", target), f"pull request #{input['prNumber']}")
    current = [str(user.get("login")) for user in shown.get("assignees") or []]
    yield "update_issue", {**target, "assignees": _pr_assignees(input, world, current)}


def _pr_list(input: Mapping[str, Any], world: World) -> McpPlan:
    """``list_pull_requests``; merged ones are among the closed (``merged_at`` tells)."""
    state = str(input.get("state") or "open")
    arguments = {**_repo(input, world), **_args(input, _PAGE)}
    arguments["state"] = "closed" if state == "merged" else state
    yield "list_pull_requests", arguments


def _pr_checks(input: Mapping[str, Any], world: World) -> McpPlan:
    """The pull request's head commit, the runs of the workflows that ran for it (taken from
    the world, as an agent that knows the repository's CI names them: ``list_workflow_runs``
    needs a workflow) and the latest jobs of those runs. ``get_pull_request_status`` shows
    commit statuses only, and no tool shows check runs of apps other than Actions."""
    repo = _repo(input, world)
    number = input["prNumber"]
    pull = _shown((yield "get_pull_request", {**repo, "pullNumber": number}), "pull request")
    head = pull.get("head") or {}
    sha, branch = head.get("sha"), head.get("ref")
    ran = {run.workflow_id for run in world.workflow_runs if run.head_sha == sha}
    for flow in world.workflows:
        if flow.id not in ran:
            continue
        query = {"workflow_id": posixpath.basename(flow.path), "branch": branch, "perPage": 100}
        runs = _shown((yield "list_workflow_runs", {**repo, **query}), "workflow runs")
        for run in runs.get("workflow_runs") or []:
            if run.get("head_sha") == sha:
                yield "list_workflow_jobs", {**repo, "run_id": run["id"], "filter": "latest"}


def _review(event: str) -> Planner:
    """``create_and_submit_pull_request_review``, which needs a body; an approval without one
    is a pending review, submitted."""

    def plan(input: Mapping[str, Any], world: World) -> McpPlan:
        target = {**_repo(input, world), "pullNumber": input["prNumber"]}
        if input.get("body"):
            arguments = {"body": input["body"], "event": event}
            yield "create_and_submit_pull_request_review", {**target, **arguments}
        else:
            yield "create_pending_pull_request_review", target
            yield "submit_pending_pull_request_review", {**target, "event": event}

    return plan


def _ready(input: Mapping[str, Any], world: World) -> McpPlan:
    arguments = {"pullNumber": input["prNumber"], "draft": not input["ready"]}
    yield "update_pull_request", {**_repo(input, world), **arguments}


# -------------------------------------------------------------------------- actions, repo


def _runs_list(input: Mapping[str, Any], world: World) -> McpPlan:
    """``list_workflow_runs`` needs a workflow: the input's, else one call per workflow of the
    repository. A status the tool's enum lacks (a conclusion) is left for the agent to filter."""
    filters: dict[str, Any] = {**_repo(input, world), **_args(input, _PAGE)}
    for key in ("branch", "event"):
        if input.get(key):
            filters[key] = input[key]
    if input.get("status") in ("queued", "in_progress", "completed", "requested", "waiting"):
        filters["status"] = input["status"]
    if input.get("workflowId") is not None:
        flows = [str(input["workflowId"])]
    else:
        flows = [posixpath.basename(flow.path) for flow in world.workflows]
    for flow in flows:
        yield "list_workflow_runs", {**filters, "workflow_id": flow}


def _dispatch(input: Mapping[str, Any], world: World) -> McpPlan:
    arguments = {"workflow_id": str(input["workflowId"]), **_args(input, _DISPATCH)}
    yield "run_workflow", {**_repo(input, world), **arguments}


def _repo_view(input: Mapping[str, Any], world: World) -> McpPlan:
    """No tool gets a repository; searching for it by name shows it."""
    repo = _repo(input, world)
    yield "search_repositories", {"query": f"repo:{repo['owner']}/{repo['repo']}"}


def _issue_types(input: Mapping[str, Any], world: World) -> McpPlan:
    yield "list_issue_types", {"owner": _repo(input, world)["owner"]}


_RUN = {"run_id": "=runId"}
_PAGE = {"perPage": "=first"}
_CREATE = {"title": "=title", "body": "=body", "labels": "=labels", "assignees": "=assignees"}
_CREATE.update(milestone="=milestoneNumber", type="=issueType")
_DISPATCH = {"ref": "=ref", "inputs": "=inputs"}
_PR = {"pullNumber": "=prNumber"}
_ISSUE = {"issue_number": "=issueNumber"}
_JOB_LOGS = {"job_id": "=jobId", "return_content": True}


def _cancel(input: Mapping[str, Any], world: World) -> McpPlan:
    """GitHub refuses to cancel a finished run (409): an agent that looks first only reads it."""
    run = world.workflow_run(int(input["runId"]))
    done = run is not None and run.status == "completed"
    tool = "get_workflow_run" if done else "cancel_workflow_run"
    yield tool, {**_repo(input, world), **_args(input, _RUN)}


_PLANS: Mapping[str, Planner] = {
    "issue.assignees.update": _issue_call("update_issue", assignees="=assignees"),
    "issue.close": _issue_call("update_issue", state="closed"),
    "issue.comments.create": _issue_call("add_issue_comment", body="=body"),
    "issue.comments.list": _plain("get_issue_comments", **_ISSUE, perPage="=first"),
    "issue.create": _plain("create_issue", **_CREATE),
    "issue.labels.add": _on_issue(_labels_add),
    "issue.labels.update": _issue_call("update_issue", labels="=labels"),
    "issue.linked_prs.list": _plain("list_pull_requests", state="all", perPage=100),
    "issue.list": _issue_list,
    "issue.milestone.set": _issue_call("update_issue", milestone="=milestoneNumber"),
    "issue.parent.remove": _on_issue(_parent_remove),
    "issue.parent.set": _on_issue(_parent_set, "parentIssueId"),
    "issue.reopen": _issue_call("update_issue", state="open"),
    "issue.update": _issue_call("update_issue", title="=title", body="=body"),
    "issue.view": _plain("get_issue", **_ISSUE),
    "pr.assignees.update": _pr_assignees_update,
    "pr.branch.update": _plain("update_pull_request_branch", **_PR),
    "pr.checks.get_failed": _pr_checks,
    "pr.checks.rerun_all": _plain("rerun_workflow_run", **_RUN),
    "pr.checks.rerun_failed": _plain("rerun_failed_jobs", **_RUN),
    "pr.diff.list_files": _plain("get_pull_request_files", **_PR, perPage="=first"),
    "pr.list": _pr_list,
    "pr.merge.execute": _plain(
        "merge_pull_request",
        **_PR,
        merge_method="=method",
        commit_title="=commitTitle",
        commit_message="=commitBody",
    ),
    "pr.mergeability.view": _plain("get_pull_request", **_PR),
    "pr.ready_for_review.set": _ready,
    "pr.review.submit_approve": _review("APPROVE"),
    "pr.review.submit_comment": _review("COMMENT"),
    "pr.review.submit_request_changes": _review("REQUEST_CHANGES"),
    "pr.reviewers.request": _plain("update_pull_request", **_PR, reviewers="=reviewers"),
    "pr.reviews.list": _plain("get_pull_request_reviews", **_PR),
    "pr.status.checks": _pr_checks,
    "pr.view": _plain("get_pull_request", **_PR),
    "release.get": _plain("list_releases", perPage=100),
    "release.list": _plain("list_releases", perPage="=first"),
    "repo.issue_types.list": _issue_types,
    "repo.view": _repo_view,
    "workflow.get": _plain("list_workflows", perPage=100),
    "workflow.list": _plain("list_workflows", perPage="=first"),
    "workflow_dispatch.run": _dispatch,
    "workflow_job.logs.analyze": _plain("get_job_logs", **_JOB_LOGS),
    "workflow_job.logs.get": _plain("get_job_logs", **_JOB_LOGS),
    "workflow_run.artifacts.list": _plain("list_workflow_run_artifacts", **_RUN, perPage="=first"),
    "workflow_run.cancel": _cancel,
    "workflow_run.get": _plain("get_workflow_run", **_RUN),
    "workflow_run.jobs.list": _plain("list_workflow_jobs", **_RUN, perPage="=first"),
    "workflow_run.rerun_all": _plain("rerun_workflow_run", **_RUN),
    "workflow_run.rerun_failed": _plain("rerun_failed_jobs", **_RUN),
    "workflow_runs.list": _runs_list,
    **CODE_PLANS,
}
