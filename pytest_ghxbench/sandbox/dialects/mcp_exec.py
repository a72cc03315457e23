"""Run MCP tools of the sandbox's catalogue in process, as the GitHub MCP server would answer.

:func:`call_tool` checks the arguments against the tool's ``inputSchema``, translates the tool,
its ``method`` and its arguments into capability calls (MCP says ``repo``/``pullNumber``/
``issue_number``; capabilities say ``name``/``prNumber``/``issueNumber``), and renders the
outcome as the server does: JSON text of the object or list it returns, or a plain error text
(``failed to get issue: ...``) with ``is_error`` set.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import Routes, ToolCall, ToolFailure
from pytest_ghxbench.sandbox.dialects.mcp_exec_issues import ISSUE_ROUTES
from pytest_ghxbench.sandbox.dialects.mcp_exec_prs import PR_ROUTES
from pytest_ghxbench.sandbox.dialects.mcp_exec_rest import REST_ROUTES
from pytest_ghxbench.sandbox.dialects.mcp_tools import TOOLS_BY_NAME, ToolSpec
from pytest_ghxbench.sandbox.state import World

__all__ = ["ROUTES", "ToolOutcome", "call_tool"]

ROUTES: Routes = {**ISSUE_ROUTES, **PR_ROUTES, **REST_ROUTES}
"""Every (tool, method) the sandbox executes: the action named in errors and the handler."""

_VALIDATORS: dict[str, Any] = {}


@dataclass(frozen=True)
class ToolOutcome:
    """The result of one tool call: the text content and whether it is an error."""

    text: str
    is_error: bool
    mutated: bool
    capability_ids: list[str] = field(default_factory=list)


def _validation_error(spec: ToolSpec, arguments: Mapping[str, Any]) -> str | None:
    validator = _VALIDATORS.get(spec.name)
    if validator is None:
        validator = jsonschema.Draft202012Validator(spec.input_schema)
        _VALIDATORS[spec.name] = validator
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    error = errors[0]
    if error.validator == "required":
        missing = [k for k in spec.input_schema.get("required", []) if k not in arguments]
        return f"missing required parameter: {missing[0] if missing else error.message}"
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    return f"invalid parameter {where}: {error.message}"


def _render(result: Any) -> str:
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False)


def call_tool(world: World, name: str, arguments: Mapping[str, Any] | None) -> ToolOutcome:
    """Run tool ``name`` with ``arguments`` on ``world`` (mutated in place when it writes)."""
    spec = TOOLS_BY_NAME.get(name)
    if spec is None:
        return ToolOutcome(f"unknown tool: {name}", True, False)
    args = dict(arguments or {})
    problem = _validation_error(spec, args)
    if problem is not None:
        return ToolOutcome(problem, True, False)
    method = args.get("method") if spec.methods else None
    action, handler = ROUTES[(name, method)]
    call = ToolCall(world, action)
    try:
        result = handler(call, args)
    except ToolFailure as failure:
        return ToolOutcome(failure.message, True, call.mutated, call.capability_ids)
    return ToolOutcome(_render(result), False, call.mutated, call.capability_ids)
