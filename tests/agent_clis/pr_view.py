"""The scripted model's one task: read pull request 7 of the seeded world (``pr-view-001``).

:func:`pr_view_script` asks for the PR with the mode's interface, then answers with the
envelope it builds from what the tool returned. A failed or refused tool call leaves nothing to
build from, so the answer is then an error envelope (a failed item), as a real model's would be.
"""

from __future__ import annotations

import json
from typing import Any

from tests.agent_clis.scripted import Action, Answer, McpCall, Script, Shell, Turn
from tests.paths import REPO_ROOT

__all__ = ["GHX_COMMAND", "GH_COMMAND", "PR_VIEW_SCENARIO", "pr_view_script"]

PR_VIEW_SCENARIO = REPO_ROOT / "scenarios" / "prs" / "pr-view-001.yaml"
FIELDS = ("number", "title", "state", "isDraft", "author", "headRefName", "baseRefName")
GH_COMMAND = "gh pr view 7 --json " + ",".join(FIELDS)
GHX_COMMAND = (
    "ghx run pr.view --input " + """'{"owner": "acme-labs", "name": "tinykv", "prNumber": 7}'"""
)
MCP_TOOL = "get_pull_request"
"""How the pinned github-mcp-server (0.12.1) reads one pull request."""
MCP_ARGUMENTS = {"owner": "acme-labs", "repo": "tinykv", "pullNumber": 7}


def _json_in(text: str) -> Any:
    """The first JSON object in a tool's output (runtimes may wrap it in text)."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError:
        return None
    return value


def _from_rest(pr: dict[str, Any]) -> dict[str, Any]:
    return {
        "number": pr.get("number"),
        "title": pr.get("title"),
        "state": str(pr.get("state", "")).upper(),
        "isDraft": pr.get("draft"),
        "author": {"login": (pr.get("user") or {}).get("login")},
        "headRefName": (pr.get("head") or {}).get("ref"),
        "baseRefName": (pr.get("base") or {}).get("ref"),
    }


def envelope_from(output: str, mode: str) -> dict[str, Any]:
    """The answer a careful model gives after reading ``output``."""
    value = _json_in(output)
    if not isinstance(value, dict):
        return {
            "ok": False,
            "data": None,
            "error": {"code": "UNKNOWN", "message": output[:300]},
            "meta": {},
        }
    if mode == "ghx":
        # ghx prints {"ok","data"} or {"ok","error"}; the answer contract wants all four keys
        return {
            "ok": value.get("ok"),
            "data": value.get("data"),
            "error": value.get("error"),
            "meta": {"route_used": "cli"},
        }
    data = _from_rest(value) if mode == "mcp" else {name: value.get(name) for name in FIELDS}
    if data.get("number") != 7:
        return {"ok": False, "data": None, "error": {"code": "UNKNOWN", "message": "no PR"}}
    return {"ok": True, "data": data, "error": None, "meta": {"route_used": "cli"}}


def pr_view_script(mode: str, *, tool_mode: str | None = None) -> Script:
    """The script for an item of ``mode``. ``tool_mode`` is the interface the model reaches for
    (by default the item's own; ``"agent_direct"`` in an mcp item tries gh there)."""
    reach = tool_mode or mode

    def script(turn: Turn) -> Action:
        if not turn.tool_results:
            if reach == "agent_direct":
                return Shell(GH_COMMAND)
            if reach == "ghx":
                return Shell(GHX_COMMAND)
            return McpCall(MCP_TOOL, MCP_ARGUMENTS)
        return Answer(json.dumps(envelope_from(turn.tool_results[-1], reach)))

    return script
