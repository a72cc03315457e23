"""``ghxbench sandbox serve`` and ``ghxbench sandbox run`` as a user runs them."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

from pytest_ghxbench.sandbox.statefile import init_state, load_world

GHXBENCH = [sys.executable, "-m", "pytest_ghxbench"]


def ghxbench(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GHXBENCH, *args], capture_output=True, text=True, timeout=120, check=False, cwd=cwd
    )


def test_run_exits_with_the_commands_status() -> None:
    assert ghxbench("sandbox", "run", "--", "sh", "-c", "exit 7").returncode == 7


def test_run_with_state_saves_the_world_back(tmp_path: Path) -> None:
    state = tmp_path / "world.json"
    init_state(state)
    done = ghxbench(
        "sandbox",
        "run",
        "--state",
        str(state),
        "--mode",
        "agent_direct",
        "--",
        "gh",
        "api",
        "-X",
        "POST",
        "repos/{owner}/{repo}/issues/3/comments",
        "-f",
        "body=kept in the state file",
    )
    assert done.returncode == 0, done.stderr
    issue = load_world(state).issue(3)
    assert issue is not None and issue.comments[-1].body == "kept in the state file"


def test_run_without_state_starts_from_the_seed_every_time(tmp_path: Path) -> None:
    post = ["gh", "api", "-X", "POST", "repos/{owner}/{repo}/issues/3/comments", "-f", "body=x"]
    assert ghxbench("sandbox", "run", "--", *post).returncode == 0
    done = ghxbench(
        "sandbox",
        "run",
        "--",
        "gh",
        "api",
        "repos/{owner}/{repo}/issues/3/comments",
        "--jq",
        "length",
    )
    assert done.stdout.strip() == "0"


def test_ghx_mode_runs_the_capability_cli(tmp_path: Path) -> None:
    payload = json.dumps({"owner": "acme-labs", "name": "tinykv", "prNumber": 7})
    done = ghxbench(
        "sandbox", "run", "--mode", "ghx", "--", "ghx", "run", "pr.view", "--input", payload
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["data"]["number"] == 7


def test_bad_input_gets_one_clear_error(tmp_path: Path) -> None:
    unknown = ghxbench("sandbox", "run", "--mode", "gql", "--", "true")
    assert unknown.returncode == 4
    assert "unknown mode 'gql'; expected one of agent_direct, mcp, ghx" in unknown.stderr

    missing = ghxbench("sandbox", "run", "--gh", str(tmp_path / "no-gh"), "--", "gh", "--version")
    assert missing.returncode == 2
    assert f"{tmp_path / 'no-gh'}' not found" in missing.stderr

    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "ghxbench-sandbox-state", "version": 2, "world": {"viewer": 1}}')
    bad_state = ghxbench("sandbox", "run", "--state", str(broken), "--", "true")
    assert bad_state.returncode == 2
    assert str(broken) in bad_state.stderr and "invalid sandbox world" in bad_state.stderr

    no_command = ghxbench("sandbox", "run", "--mode", "mcp")
    assert no_command.returncode == 4 and "give the command after --" in no_command.stderr

    not_found = ghxbench("sandbox", "run", "--", "no-such-program-here")
    assert not_found.returncode == 127 and "command not found" in not_found.stderr


def test_serve_prints_what_clients_need_and_saves_state_on_exit(tmp_path: Path) -> None:
    state = tmp_path / "world.json"
    init_state(state)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [*GHXBENCH, "sandbox", "serve", "--state", str(state), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        exports: dict[str, str] = {}
        for line in server.stdout:
            if line.startswith("export "):
                name, _, value = line[len("export ") :].strip().partition("=")
                exports[name] = shlex.split(value)[0]
            if "GITHUB_GRAPHQL_URL" in exports:
                break
        assert exports["HTTPS_PROXY"] == f"http://127.0.0.1:{port}"
        home = tmp_path / "home"
        home.mkdir()
        env = {"PATH": os.environ["PATH"], "HOME": str(home), **exports}
        gh = subprocess.run(
            ["gh", "issue", "close", "6"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=tmp_path,
        )
        assert gh.returncode == 0, gh.stderr
        taken = ghxbench("sandbox", "serve", "--port", str(port))
        assert taken.returncode == 2 and f"port {port}" in taken.stderr
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    issue = load_world(state).issue(6)
    assert issue is not None and issue.state == "CLOSED"


MCP_CLIENT = """
import anyio, json, os, sys
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

async def main():
    server = "github-mcp-server"  # found on the item PATH: the launcher
    params = StdioServerParameters(command=server, args=["stdio"], env=dict(os.environ))
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                answer = await client.call_tool(
                    "get_pull_request", {"owner": "acme-labs", "repo": "tinykv", "pullNumber": 7}
                )
                print(json.dumps({"error": answer.is_error, "text": answer.content[0].text}))

anyio.run(main)
"""


def test_run_in_mcp_mode_lets_a_client_start_the_server_from_path(tmp_path: Path) -> None:
    script = tmp_path / "client.py"
    script.write_text(MCP_CLIENT)
    done = ghxbench("sandbox", "run", "--mode", "mcp", "--", sys.executable, str(script))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert not answer["error"], answer["text"]
    assert (
        json.loads(answer["text"])["title"]
        == "Release the compaction lock before writing snapshots"
    )
