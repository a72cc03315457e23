"""Rendering what the agent is told: the mode's instructions and the scenario's prompt."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from pytest_ghxbench.api import ModeSpec
from pytest_ghxbench.scenario.field_types import placeholders, substitute
from pytest_ghxbench.scenario.models import AtomicAssertions, AtomicScenario, Scenario

__all__ = ["DEFAULT_MODE_INSTRUCTIONS", "ROUTED_MODE", "mode_instructions", "render_prompt"]

# The only interface with routes; route assertions apply in this mode alone (SPEC 5.1).
ROUTED_MODE = "ghx"
ROUTE_FIELD = "route_used"

DEFAULT_MODE_INSTRUCTIONS: Mapping[str, str] = MappingProxyType(
    {
        "agent_direct": (
            "Use the GitHub CLI `gh` through your shell tool for every GitHub operation, e.g. "
            "`gh pr view 12 --repo OWNER/NAME --json title,state`; use `gh api` for what the "
            "subcommands do not cover. Do not use any other GitHub client."
        ),
        "mcp": (
            "Use the tools of the GitHub MCP server for every GitHub operation; they take the "
            "repository owner and name plus the number or id of the resource. Do not use any "
            "other GitHub client."
        ),
        "ghx": (
            "Use the `ghx` CLI through your shell tool for every GitHub operation: "
            "`ghx run <capability> --input '<json>'` performs one capability and prints its "
            "result envelope (ok, data, error, meta). `ghx capabilities list` names the "
            "capabilities and `ghx capabilities explain <capability>` describes one's input "
            "and output. Do not use any other GitHub client."
        ),
    }
)


def mode_instructions(
    mode: str, overrides: Mapping[str, str] | None = None, spec: ModeSpec | None = None
) -> str:
    """The instructions for ``mode``: an override from ``[tool.ghxbench.mode_instructions]``,
    else the mode table entry's own (``spec``), else the default, else a line made from the
    entry's kind (a mode this package does not know gets a generic one)."""
    if overrides and mode in overrides:
        return overrides[mode]
    if spec is not None and spec.instructions:
        return spec.instructions
    if mode in DEFAULT_MODE_INSTRUCTIONS:
        return DEFAULT_MODE_INSTRUCTIONS[mode]
    if spec is not None and spec.kind == "cli":
        return (
            f"Use the `{spec.cli_name}` CLI through your shell tool for every GitHub operation; "
            f"`{spec.cli_name} --help` lists its commands. Do not use any other GitHub client."
        )
    if spec is not None:
        return (
            f"Use the tools of the {mode!r} MCP server for every GitHub operation. Do not use "
            "any other GitHub client."
        )
    return f"Use the tools provided for the {mode!r} interface for every GitHub operation."


def render_prompt(
    scenario: Scenario, bound_input: Mapping[str, Any], mode: str, repo: str | None
) -> str:
    """The prompt for one item.

    Atomic: the answer contract, a blank line, then ``prompt_template`` rendered with
    ``{{task}}``, ``{{scenario_id}}``, ``{{input_json}}`` (compact JSON of ``bound_input``) and
    ``{{fixture_repo}}``. Workflow: ``prompt`` with each ``{{key}}`` replaced by
    ``bound_input[key]`` (strings as they are, other values as JSON).
    """
    if isinstance(scenario, AtomicScenario):
        values = {
            "task": scenario.task,
            "scenario_id": scenario.id,
            "input_json": _compact_json(bound_input),
            "fixture_repo": repo or "",
        }
        body = substitute(scenario.prompt_template, values)
        return f"{_contract(scenario.assertions, mode, repo)}\n\n{body}"
    missing = [name for name in placeholders(scenario.prompt) if name not in bound_input]
    if missing:
        raise ValueError(
            f"scenario {scenario.id!r}: prompt placeholder {{{{{missing[0]}}}}} has no value "
            f"in the bound input (keys: {', '.join(sorted(bound_input)) or 'none'})"
        )
    values = {
        name: value if isinstance(value, str) else _compact_json(value)
        for name, value in bound_input.items()
    }
    return substitute(scenario.prompt, values)


def _contract(assertions: AtomicAssertions, mode: str, repo: str | None) -> str:
    routed = mode == ROUTED_MODE
    lines = [
        "Answer contract:",
        f"- Target repository: {repo}." if repo else "- Target repository: as given in the input.",
        "- Perform the task with your tools against GitHub for real; do not guess, invent or "
        "simulate results.",
        '- Your final answer must be exactly one JSON object with the keys "ok", "data", '
        '"error" and "meta", and no other text.',
    ]
    if assertions.outcome == "expected_error":
        lines.append(
            '- This task is expected to fail: answer with "ok": false and an "error" object '
            f'whose "code" is {json.dumps(assertions.expected_error_code)}.'
        )
    else:
        lines.append('- On success: "ok": true, "error": null, and the result in "data".')
    if assertions.data_type is not None:
        lines.append(f'- "data" must be a JSON {assertions.data_type}.')
    if assertions.required_data_fields:
        lines.append(f'- "data" must include: {", ".join(assertions.required_data_fields)}.')
    meta_fields = [
        name for name in assertions.required_meta_fields if routed or name != ROUTE_FIELD
    ]
    if meta_fields:
        lines.append(f'- "meta" must include: {", ".join(meta_fields)}.')
    if routed and assertions.expected_route_used:
        lines.append(
            f'- "meta.{ROUTE_FIELD}" must be {json.dumps(assertions.expected_route_used)}.'
        )
    return "\n".join(lines)


def _compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
