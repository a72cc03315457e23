"""Every runtime adapter drives a declared mode by its kind: a kind cli mode's program through
the shell tool (and no other), a kind mcp mode's server registered under the mode's name."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pytest_ghxbench.adapters.bash_tool import BashTool
from pytest_ghxbench.adapters.claude_code.adapter import ClaudeCodeAdapter
from pytest_ghxbench.adapters.codex.adapter import codex_argv
from pytest_ghxbench.adapters.openai_chat.tools import BashHost
from pytest_ghxbench.adapters.opencode.options import mode_config
from pytest_ghxbench.api import ModeSpec
from tests.adapters.fakes.helpers import fake_env, fake_request, record
from tests.paths import REPO_ROOT

ACME = ModeSpec(
    "acme", "cli", program=str(REPO_ROOT / "docs/examples/team-cli/acme"), client="acme"
)
LEAN = ModeSpec(
    "mcp_lean",
    "mcp",
    command=("github-mcp-server", "stdio", "--read-only"),
    client="mcp_lean",
)
RESULT = {"type": "result", "subtype": "success", "result": "{}", "session_id": "s"}


@pytest.mark.parametrize(
    ("spec", "tools", "allowed"),
    [(ACME, "Bash", "Bash(acme:*)"), (LEAN, "", "mcp__mcp_lean")],
)
def test_claude_code_gives_a_declared_mode_its_interface_alone(
    tmp_path: Path, spec: ModeSpec, tools: str, allowed: str
) -> None:
    launcher = str(tmp_path / "bin" / "ghxbench-mcp-mcp_lean")
    env = fake_env(
        tmp_path, [{"event": RESULT}], GHXBENCH_MCP_COMMAND=f"{launcher} stdio --read-only"
    )
    request = dataclasses.replace(
        fake_request(tmp_path, [], mode=spec.name, env=env), interface=spec
    )
    assert ClaudeCodeAdapter().run(request).error is None
    argv = record(tmp_path)["argv"][1:]
    assert argv[argv.index("--tools") + 1] == tools
    assert argv[argv.index("--allowedTools") + 1] == allowed
    if spec.kind == "mcp":
        servers = json.loads(argv[argv.index("--mcp-config") + 1])["mcpServers"]
        assert list(servers) == ["mcp_lean"]
        assert servers["mcp_lean"]["args"] == ["stdio", "--read-only"]
    else:
        assert "--mcp-config" not in argv


def test_codex_registers_a_declared_server_under_the_modes_name(tmp_path: Path) -> None:
    request = dataclasses.replace(fake_request(tmp_path, [], mode="mcp_lean"), interface=LEAN)
    argv = codex_argv("codex", request, ("/x/launcher", ["stdio"], {}))
    assert "mcp_servers.mcp_lean.required=true" in argv
    assert "features.shell_tool=false" in argv  # no shell in a kind mcp mode
    cli = dataclasses.replace(fake_request(tmp_path, [], mode="acme"), interface=ACME)
    assert not any(
        "mcp_servers" in word or "shell_tool" in word for word in codex_argv("codex", cli)
    )


def test_opencode_allows_only_the_declared_modes_tools() -> None:
    assert mode_config(LEAN)["permission"] == {"*": "deny", "mcp_lean_*": "allow"}
    assert mode_config(ACME)["permission"] == {
        "*": "deny",
        "bash": "allow",
        "external_directory": "allow",
    }


def test_the_openai_loops_bash_tool_runs_and_describes_the_declared_cli(tmp_path: Path) -> None:
    tool = BashTool(ACME.cli_name, {"PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    (definition,) = BashHost(tool, ACME).definitions()
    described = definition["function"]["description"]
    assert "acme pr view NUMBER" in described  # acme's own --help
    assert "gh pr" not in described
    refused = tool.run("gh pr view 7", timeout_s=10)
    assert not refused.ok and "acme" in refused.output
