"""The MCP tool catalogue the sandbox serves, named and shaped like the GitHub MCP server's.

The catalogue itself is data: ``mcp_tools.json`` beside this module is exactly the result of an
MCP ``tools/list`` call (``{"tools": [...]}``). Tool names, parameter names, enums and required
lists follow the public ``github/github-mcp-server`` (its consolidated tools such as
``pull_request_read``, ``issue_write`` and ``actions_list``, as of its 2026 releases, including
the feature-flagged ``issue_dependency_read``/``issue_dependency_write``); the descriptions are
this project's own, written at a comparable length, because the size of ``tools/list`` is part
of what the ``mcp`` mode costs an agent on every turn. The catalogue holds the tools the
sandbox's capabilities need, plus ``get_me``, the context call real agents make first. Extras
of the real server that are not about calling a tool (``outputSchema``, icons, UI metadata,
MCP-Apps form switches) are left out.

``CAPABILITY_FOR_TOOL`` says which capability ids (the ``task`` values of the TypeScript
harness's scenarios) each tool, or tool and ``method``, serves. The one capability no tool
serves is ``issue.delete``: the server has no tool that deletes an issue.

Size of the surface, as compact JSON (``tokens.count_json(tools_list_payload())``): 8,803
tokens in ``o200k_base`` and 8,541 in ``cl100k_base``, for 31 tools.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeAlias

__all__ = [
    "CAPABILITY_FOR_TOOL",
    "CATALOGUE_PATH",
    "TOOLS",
    "TOOLS_BY_NAME",
    "Route",
    "ToolSpec",
    "load_catalogue",
    "routes_for_capability",
    "tools_list_payload",
]

CATALOGUE_PATH = Path(__file__).with_name("mcp_tools.json")

Route: TypeAlias = tuple[str, str | None]
"""A tool name and the value of its ``method`` parameter (``None`` for single-purpose tools)."""


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: what ``tools/list`` advertises for it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any] = field(default_factory=dict)

    @property
    def methods(self) -> tuple[str, ...]:
        """The values of the tool's ``method`` parameter; empty for a single-purpose tool."""
        method = self.input_schema.get("properties", {}).get("method", {})
        return tuple(method.get("enum", ()))

    @property
    def read_only(self) -> bool:
        """Whether the tool only reads (its ``readOnlyHint``)."""
        return bool(self.annotations.get("readOnlyHint", False))

    def to_mcp(self) -> dict[str, Any]:
        """This tool as one entry of an MCP ``tools/list`` result (a fresh, mutable copy)."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": copy.deepcopy(self.input_schema),
            "annotations": dict(self.annotations),
        }


def _tool_from_entry(entry: object, index: int, source: str) -> ToolSpec:
    where = f"{source}: tools[{index}]"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, got {type(entry).__name__}")
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: 'name' must be a non-empty string")
    where = f"{where} ({name})"
    description = entry.get("description")
    if not isinstance(description, str) or not description:
        raise ValueError(f"{where}: 'description' must be a non-empty string")
    schema = entry.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError(f"{where}: 'inputSchema' must be an object schema (type: object)")
    if not isinstance(schema.get("properties", {}), dict):
        raise ValueError(f"{where}: 'inputSchema.properties' must be an object")
    annotations = entry.get("annotations", {})
    if not isinstance(annotations, dict):
        raise ValueError(f"{where}: 'annotations' must be an object")
    return ToolSpec(name, description, schema, annotations)


def load_catalogue(path: Path = CATALOGUE_PATH) -> tuple[ToolSpec, ...]:
    """Read a ``tools/list`` result from ``path`` into tool specs, checking its shape."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg}") from exc
    tools = document.get("tools") if isinstance(document, dict) else None
    if not isinstance(tools, list):
        raise ValueError(f"{path}: expected an object with a 'tools' array")
    specs = tuple(_tool_from_entry(entry, index, str(path)) for index, entry in enumerate(tools))
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise ValueError(f"{path}: tool {spec.name!r} is listed twice")
        seen.add(spec.name)
    return specs


TOOLS: tuple[ToolSpec, ...] = load_catalogue()

TOOLS_BY_NAME: Mapping[str, ToolSpec] = MappingProxyType({tool.name: tool for tool in TOOLS})


def tools_list_payload() -> list[dict[str, Any]]:
    """The ``tools`` array of an MCP ``tools/list`` result: one fresh dict per tool."""
    return [tool.to_mcp() for tool in TOOLS]


_ISSUE_EDITS = (
    "issue.update",
    "issue.close",
    "issue.reopen",
    "issue.labels.update",
    "issue.assignees.update",
    "issue.milestone.set",
    "issue.parent.set",
    # Pull requests are issues to this tool: assignees are set the same way.
    "pr.assignees.update",
)

CAPABILITY_FOR_TOOL: Mapping[Route, tuple[str, ...]] = MappingProxyType(
    {
        ("get_me", None): (),
        ("get_repository", None): ("repo.view",),
        ("list_label", None): ("repo.labels.list",),
        ("list_issue_types", None): ("repo.issue_types.list",),
        # get returns the parent, a sub-issue summary and the closing pull requests.
        ("issue_read", "get"): ("issue.view", "issue.relations.get", "issue.linked_prs.list"),
        ("issue_read", "get_comments"): ("issue.comments.list",),
        ("issue_read", "get_sub_issues"): ("issue.relations.get",),
        ("issue_read", "get_parent"): ("issue.relations.get",),
        ("issue_read", "get_labels"): ("issue.view",),
        ("sub_issue_write", "add"): ("issue.parent.set",),
        ("sub_issue_write", "remove"): ("issue.parent.remove",),
        ("sub_issue_write", "reprioritize"): (),
        ("issue_write", "create"): ("issue.create",),
        ("issue_write", "update"): _ISSUE_EDITS,
        ("list_issues", None): ("issue.list",),
        ("search_issues", None): ("issue.list",),
        ("add_issue_comment", None): ("issue.comments.create",),
        ("issue_dependency_read", "get_blocked_by"): ("issue.relations.get",),
        ("issue_dependency_read", "get_blocking"): ("issue.relations.get",),
        ("issue_dependency_write", "add"): ("issue.blocked_by.add",),
        ("issue_dependency_write", "remove"): ("issue.blocked_by.remove",),
        ("list_pull_requests", None): ("pr.list",),
        ("pull_request_read", "get"): ("pr.view", "pr.mergeability.view"),
        ("pull_request_read", "get_diff"): (),
        ("pull_request_read", "get_status"): (),
        ("pull_request_read", "get_files"): ("pr.diff.list_files",),
        ("pull_request_read", "get_commits"): (),
        ("pull_request_read", "get_review_comments"): ("pr.comments.list",),
        ("pull_request_read", "get_reviews"): ("pr.reviews.list",),
        ("pull_request_read", "get_comments"): (),
        ("pull_request_read", "get_check_runs"): ("pr.status.checks", "pr.checks.get_failed"),
        ("update_pull_request", None): ("pr.ready_for_review.set", "pr.reviewers.request"),
        ("merge_pull_request", None): ("pr.merge.execute",),
        ("update_pull_request_branch", None): ("pr.branch.update",),
        ("pull_request_review_write", "create"): (
            "pr.review.submit_approve",
            "pr.review.submit_comment",
            "pr.review.submit_request_changes",
        ),
        ("pull_request_review_write", "submit_pending"): (
            "pr.review.submit_approve",
            "pr.review.submit_comment",
            "pr.review.submit_request_changes",
        ),
        ("pull_request_review_write", "delete_pending"): (),
        ("pull_request_review_write", "resolve_thread"): ("pr.comment.resolve",),
        ("pull_request_review_write", "unresolve_thread"): ("pr.comment.unresolve",),
        ("add_reply_to_pull_request_comment", None): ("pr.comment.reply",),
        ("actions_list", "list_workflows"): ("workflow.list",),
        ("actions_list", "list_workflow_runs"): ("workflow_runs.list",),
        ("actions_list", "list_workflow_jobs"): ("workflow_run.jobs.list",),
        ("actions_list", "list_workflow_run_artifacts"): ("workflow_run.artifacts.list",),
        ("actions_list", "list_check_runs"): ("pr.status.checks", "pr.checks.get_failed"),
        ("actions_list", "list_check_run_annotations"): ("check_run.annotations.list",),
        ("actions_get", "get_workflow"): ("workflow.get",),
        ("actions_get", "get_workflow_run"): ("workflow_run.get",),
        ("actions_get", "get_workflow_job"): (),
        ("actions_get", "download_workflow_run_artifact"): (),
        ("actions_get", "get_workflow_run_usage"): (),
        ("actions_get", "get_workflow_run_logs_url"): (),
        ("actions_get", "get_check_run"): (),
        ("actions_run_trigger", "run_workflow"): ("workflow_dispatch.run",),
        # A pull request's checks are Actions runs: re-running them is re-running the runs.
        ("actions_run_trigger", "rerun_workflow_run"): (
            "workflow_run.rerun_all",
            "pr.checks.rerun_all",
        ),
        ("actions_run_trigger", "rerun_failed_jobs"): (
            "workflow_run.rerun_failed",
            "pr.checks.rerun_failed",
        ),
        ("actions_run_trigger", "cancel_workflow_run"): ("workflow_run.cancel",),
        ("actions_run_trigger", "delete_workflow_run_logs"): (),
        ("get_job_logs", None): ("workflow_job.logs.get", "workflow_job.logs.analyze"),
        ("list_releases", None): ("release.list",),
        ("get_release_by_tag", None): ("release.get",),
        ("get_latest_release", None): ("release.get",),
        ("create_release", None): ("release.create_draft",),
        ("update_release", None): ("release.update", "release.publish_draft"),
        ("projects_list", "list_projects"): (),
        ("projects_list", "list_project_fields"): ("project_v2.fields.list",),
        ("projects_list", "list_project_items"): ("project_v2.items.list",),
        ("projects_list", "list_project_status_updates"): (),
        ("projects_list", "list_project_views"): (),
        ("projects_get", "get_project"): ("project_v2.org.get", "project_v2.user.get"),
        ("projects_get", "get_project_field"): (),
        ("projects_get", "get_project_item"): (),
        ("projects_get", "get_project_status_update"): (),
        ("projects_write", "add_project_item"): ("project_v2.item.add_issue",),
        ("projects_write", "update_project_item"): ("project_v2.item.field.update",),
        ("projects_write", "delete_project_item"): (),
        ("projects_write", "create_project_status_update"): (),
    }
)
"""Capability ids served by each route; an empty tuple is a route no capability needs.

Where several routes serve one capability, the one listed first is the direct one (a dedicated
tool before a general edit, the sandbox scenarios' inputs before a shortcut)."""


def routes_for_capability(capability: str) -> tuple[Route, ...]:
    """The routes (tool, method) that serve ``capability``, the direct one first; may be empty."""
    return tuple(route for route, served in CAPABILITY_FOR_TOOL.items() if capability in served)
