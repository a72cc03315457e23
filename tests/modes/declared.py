"""What the declared-mode tests of every runtime share: the example team CLI (``acme``, kind
cli) and a narrowed GitHub MCP server (``mcp_lean``, kind mcp), their declarations, and a
scripted model that does ``pr-view`` with whichever of the two its item offers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.agent_clis.pr_view import pr_view_script
from tests.agent_clis.scripted import Action, Answer, Script, Shell, Turn
from tests.paths import REPO_ROOT

__all__ = [
    "ACME",
    "ACME_AND_LEAN",
    "ACME_COMMAND",
    "acme_mode",
    "acme_or_lean_script",
    "envelope",
    "install_acme",
]

ACME = REPO_ROOT / "docs" / "examples" / "team-cli" / "acme"
ACME_COMMAND = "acme pr view 7"
ACME_INSTRUCTIONS = "Use `acme` for every GitHub operation; `acme --help` lists them."


def acme_mode(program: str) -> str:
    """``[tool.ghxbench.modes.acme]`` running ``program``."""
    return (
        "[tool.ghxbench.modes.acme]\n"
        'kind = "cli"\n'
        f"program = {json.dumps(program)}\n"
        'env = { ACME_TOKEN = "{token}", ACME_API = "{api_url}", ACME_REPO = "{repo}" }\n'
        f"instructions = {json.dumps(ACME_INSTRUCTIONS)}\n"
    )


ACME_AND_LEAN = (
    "\n" + acme_mode("tools/acme") + "\n[tool.ghxbench.modes.mcp_lean]\n"
    'kind = "mcp"\n'
    'command = ["github-mcp-server", "stdio", "--read-only", "--toolsets", "pull_requests"]\n'
)
"""Both modes, acme as a team keeps it in its repository (``tools/acme``, see
:func:`install_acme`)."""


def install_acme(root: Path) -> Path:
    """A copy of the example CLI at ``root/tools/acme``."""
    program = root / "tools" / "acme"
    program.parent.mkdir(exist_ok=True)
    shutil.copy(ACME, program)
    return program


def envelope(output: str) -> dict[str, Any]:
    """What a careful model answers after reading acme's output (the first JSON object in it;
    an error where there is none)."""
    start = output.find("{")
    try:
        pr, _ = json.JSONDecoder().raw_decode(output[start:]) if start >= 0 else (None, 0)
    except json.JSONDecodeError:
        pr = None
    if not isinstance(pr, dict):
        return {"ok": False, "data": None, "error": {"code": "UNKNOWN", "message": output[:200]}}
    data = {
        "number": pr["number"],
        "title": pr["title"],
        "state": pr["state"].upper(),
        "isDraft": pr["draft"],
        "author": {"login": pr["author"]},
        "headRefName": pr["head"],
        "baseRefName": pr["base"],
    }
    return {"ok": True, "data": data, "error": None, "meta": {"route_used": "cli"}}


def acme_or_lean_script(shell_tool: str) -> Script:
    """``pr-view`` with acme where the runtime offers its shell tool ``shell_tool``, with the
    MCP server's tool where it does not."""
    mcp_script = pr_view_script("mcp")

    def script(turn: Turn) -> Action:
        if shell_tool not in turn.tool_names:
            return mcp_script(turn)
        if not turn.tool_results:
            return Shell(ACME_COMMAND)
        return Answer(json.dumps(envelope(turn.tool_results[-1])))

    return script
