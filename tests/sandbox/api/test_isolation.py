"""Each sandbox item holds only its own mode's interface, and nothing it runs can reach real
GitHub or the user's credentials, even when the user's gh is logged in to github.com."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.api.registry import TOKEN_PREFIX
from pytest_ghxbench.sandbox.backend import SandboxBackend

REAL_TOKEN = "gho_users_real_github_token_0123456789"


@pytest.fixture
def logged_in_user(tmp_path: Path) -> dict[str, str]:
    """The harness's environment on a machine whose gh is logged in to real GitHub."""
    home = tmp_path / "user-home"
    config = home / ".config" / "gh"
    config.mkdir(parents=True)
    (config / "hosts.yml").write_text(
        f"github.com:\n    oauth_token: {REAL_TOKEN}\n    user: real-user\n"
    )
    return {
        **os.environ,
        "HOME": str(home),
        "GH_TOKEN": REAL_TOKEN,
        "GITHUB_TOKEN": REAL_TOKEN,
        "GH_HOST": "github.com",
    }


def sandbox_run(mode: str, script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest_ghxbench", "sandbox", "run", "--mode", mode]
    return subprocess.run(
        [*command, "--", "sh", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_agent_direct_gets_the_real_gh_with_the_item_token_only(
    logged_in_user: dict[str, str],
) -> None:
    done = sandbox_run(
        "agent_direct",
        'echo "HOME=$HOME"; echo "TOKEN=$GH_TOKEN"; readlink "$(command -v gh)"; '
        "gh api user --jq .login; env -u GH_HOST gh api user --jq .login; "
        "cat $HOME/.config/gh/hosts.yml 2>/dev/null || echo no-hosts-file",
        logged_in_user,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] != f"HOME={logged_in_user['HOME']}"
    assert lines[1].startswith(f"TOKEN={TOKEN_PREFIX}_")
    assert lines[2].endswith("/gh")  # the pinned binary, linked into the item's bin/
    # gh.localhost and api.github.com (intercepted) both answer as the sandbox's viewer
    assert lines[3:5] == ["bench-bot", "bench-bot"]
    assert lines[5] == "no-hosts-file"
    assert REAL_TOKEN not in done.stdout + done.stderr


def test_mcp_items_hold_no_github_token_in_the_shell(logged_in_user: dict[str, str]) -> None:
    done = sandbox_run(
        "mcp",
        "env | grep -E '^(GH_TOKEN|GITHUB_TOKEN|GITHUB_PERSONAL_ACCESS_TOKEN|GH_ENTERPRISE_TOKEN)='"
        ' || echo no-token; command -v github-mcp-server; echo "MCP=$GHXBENCH_MCP_COMMAND"',
        logged_in_user,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "no-token"
    launcher = Path(lines[1])
    assert launcher.parent.name == "bin" and launcher.name == "github-mcp-server"
    assert lines[2].startswith("MCP=") and lines[2].endswith(" stdio")


def test_the_mcp_launcher_is_private_and_names_the_sandbox(tmp_path: Path) -> None:
    backend = SandboxBackend()
    try:
        session = backend.open_session("x[mcp-r1]", tmp_path, mode="mcp")
        env = dict(session.env)
        launcher = tmp_path / "bin" / "github-mcp-server"
        assert stat.S_IMODE(launcher.stat().st_mode) == 0o700
        text = launcher.read_text()
        assert "GITHUB_HOST=http://github.localhost" in text
        assert f"HTTP_PROXY={backend.server().proxy_url}" in text
        assert all(not value.startswith(TOKEN_PREFIX) for value in env.values())
        session.close()
    finally:
        backend.close()


def test_github_traffic_always_goes_to_the_sandbox(tmp_path: Path) -> None:
    backend = SandboxBackend()
    try:
        for mode in ("agent_direct", "mcp", "ghx"):
            env = dict(backend.open_session("x", tmp_path / mode, mode=mode).env)
            proxy = backend.server().proxy_url
            assert env["HTTPS_PROXY"] == env["HTTP_PROXY"] == env["https_proxy"] == proxy
            assert "github" not in env["NO_PROXY"] and "localhost" not in env["NO_PROXY"].split(",")
            assert Path(env["SSL_CERT_FILE"]).read_text().count("BEGIN CERTIFICATE") >= 1
            assert Path(env["HOME"]).is_relative_to(tmp_path)
    finally:
        backend.close()


def test_requests_made_by_the_item_are_recorded_on_its_world(tmp_path: Path) -> None:
    backend = SandboxBackend()
    try:
        session = backend.open_session("x", tmp_path, mode="agent_direct")
        env = {"PATH": os.environ["PATH"], **session.env}
        done = subprocess.run(
            ["gh", "api", "-X", "POST", "repos/{owner}/{repo}/issues/3/comments", "-f", "body=hi"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["body"] == "hi"
        assert session.api_requests[-1][::2] == ("POST", 201)
        assert session.world.issue(3) is not None
        assert session.world.issue(3).comments[-1].body == "hi"  # type: ignore[union-attr]
        session.close()
    finally:
        backend.close()
