"""`[tool.ghxbench.backends.github]`: values, overrides from the environment, clear errors."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pytest_ghxbench.github.backend import BackendConfigError, GitHubBackend, GitHubSettings


def test_defaults_and_environment_overrides(tmp_path: Path) -> None:
    settings = GitHubSettings.from_config(None, {}, tmp_path)
    assert settings.api_url == "https://api.github.com" and settings.repo is None
    assert settings.manifest_path == tmp_path / ".ghxbench" / "fixture-manifest.github.json"
    table = {"repo": "acme/one", "api_url": "https://ghe.example.com/api/v3/", "manifest": "m.json"}
    env = {"GHXBENCH_GITHUB_REPO": "acme/two"}
    settings = GitHubSettings.from_config(table, env, tmp_path)
    assert settings.repo == "acme/two"  # the environment wins over the file
    assert settings.api_url == "https://ghe.example.com/api/v3"
    assert settings.manifest_path == tmp_path / "m.json"


def test_the_token_comes_from_the_first_set_variable(tmp_path: Path) -> None:
    settings = GitHubSettings.from_config({"token_env": ["BENCH_PAT", "GH_TOKEN"]}, {}, tmp_path)
    assert settings.token({"GH_TOKEN": "b" * 20, "BENCH_PAT": "a" * 20}) == "a" * 20
    assert settings.token({"GH_TOKEN": "b" * 20}) == "b" * 20
    assert settings.token({}) is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"repository": "a/b"}, "unknown key(s) repository; valid: repo, api_url, token_env"),
        ({"repo": "just-a-name"}, "repo must be 'owner/name', got 'just-a-name'"),
        ({"api_url": "ftp://example.com"}, "api_url must be an http(s) URL"),
        ({"token_env": []}, "token_env must be a variable name or a list of them"),
        ({"manifest": 3}, "manifest must be a path, got 3"),
    ],
)
def test_bad_values_name_the_key(table: dict[str, object], message: str, tmp_path: Path) -> None:
    with pytest.raises(BackendConfigError, match=r"\[tool\.ghxbench\.backends\.github\]") as info:
        GitHubSettings.from_config(table, {}, tmp_path)
    assert message in str(info.value)


def test_enterprise_sessions_point_gh_at_the_host(tmp_path: Path) -> None:
    settings = GitHubSettings("acme/fixtures", "https://ghe.example.com/api/v3")
    backend = GitHubBackend(settings, env={"GH_TOKEN": "t" * 20})
    env = backend.open_session("item", tmp_path).env
    assert env["GH_HOST"] == "ghe.example.com" and env["GH_REPO"] == "acme/fixtures"
    assert env["GH_ENTERPRISE_TOKEN"] == env["GITHUB_ENTERPRISE_TOKEN"] == "t" * 20
    assert env["GH_TOKEN"] == env["GITHUB_TOKEN"] == env["GITHUB_PERSONAL_ACCESS_TOKEN"]
    public = GitHubBackend(GitHubSettings("acme/fixtures"), env={"GH_TOKEN": "t" * 20})
    assert "GH_HOST" not in public.open_session("item", tmp_path).env
    assert "t" * 20 not in repr(public.client())


def test_items_get_an_mcp_launcher_that_holds_the_token_off_command_lines(tmp_path: Path) -> None:
    from pytest_ghxbench.adapters.process import mcp_server_command

    settings = GitHubSettings.from_config(
        {"repo": "acme/fixtures", "mcp_command": "github-mcp-server stdio --read-only"},
        {},
        tmp_path,
    )
    token = "ghp_" + "x" * 30
    env = GitHubBackend(settings, env={"GH_TOKEN": token}).open_session("i", tmp_path).env
    command, args, server_env = mcp_server_command(env)
    launcher = Path(command)
    assert launcher.parent == tmp_path and args == [] and server_env == {}
    assert launcher.stat().st_mode & 0o777 == 0o700
    script = launcher.read_text()
    assert f"GITHUB_PERSONAL_ACCESS_TOKEN={token}" in script
    assert script.rstrip().endswith("exec github-mcp-server stdio --read-only")
    assert token not in " ".join([command, *args])
    with pytest.raises(BackendConfigError, match="mcp_command must be a command line"):
        GitHubSettings.from_config({"mcp_command": []}, {}, tmp_path)


def test_without_a_backend_server_mcp_items_have_none() -> None:
    from pytest_ghxbench.adapters.process import mcp_server_command
    from pytest_ghxbench.api import AdapterUnavailable

    with pytest.raises(AdapterUnavailable, match="the item's backend names no MCP server"):
        mcp_server_command({"GHXBENCH_SANDBOX_STATE": "/s.json"})


def test_a_token_that_cannot_push_is_one_clear_preflight_error() -> None:
    """The sandbox's viewer may push to its repository; a token that may not is scripted."""
    from pytest_ghxbench.api import AdapterUnavailable

    answers = {
        "/user": {"login": "reader"},
        "/repos/acme/fixtures": {"full_name": "acme/fixtures", "permissions": {"push": False}},
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = json.dumps(answers[self.path]).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Handler) as httpd:
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}).start()
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        backend = GitHubBackend(GitHubSettings("acme/fixtures", url), env={"GH_TOKEN": "t" * 20})
        try:
            with pytest.raises(AdapterUnavailable) as info:
                backend.preflight()
        finally:
            httpd.shutdown()
    assert str(info.value).startswith("@reader cannot push to acme/fixtures: ")


def test_an_unreachable_api_is_one_clear_preflight_error(tmp_path: Path) -> None:
    from pytest_ghxbench.api import AdapterUnavailable

    settings = GitHubSettings("acme/fixtures", "http://127.0.0.1:9")
    backend = GitHubBackend(settings, env={"GH_TOKEN": "t" * 20})
    with pytest.raises(AdapterUnavailable) as info:
        backend.preflight()
    assert str(info.value).startswith("cannot reach http://127.0.0.1:9: ")
    assert "t" * 20 not in str(info.value)


def test_a_declared_mode_gets_its_templates_filled_with_the_real_github(tmp_path: Path) -> None:
    from pytest_ghxbench.modes import declared_modes

    program = tmp_path / "acme"
    program.write_text("#!/bin/sh\n")
    table = declared_modes(
        {
            "acme": {
                "kind": "cli",
                "program": str(program),
                "env": {"ACME_TOKEN": "{token}", "ACME_API": "{api_url}", "ACME_REPO": "{repo}"},
            },
            "srv": {"kind": "mcp", "command": [str(program), "stdio", "--lean"]},
        },
        "pyproject.toml",
    )
    settings = GitHubSettings("acme/fixtures", "https://ghe.example.com/api/v3")
    backend = GitHubBackend(settings, env={"GH_TOKEN": "t" * 20}, modes=table)
    for name in ("cli", "mcp", "b"):
        (tmp_path / name).mkdir()
    env = backend.open_session("i", tmp_path / "cli", mode="acme").env
    assert env["ACME_TOKEN"] == "t" * 20 and env["ACME_REPO"] == "acme/fixtures"
    assert env["ACME_API"] == "https://ghe.example.com/api/v3"
    assert env["GH_HOST"] == "ghe.example.com"  # gh's conventional variables, for any CLI
    first = Path(env["PATH"].split(":")[0])
    assert (first / "acme").resolve() == program.resolve()
    # a server's token is in its launcher only; its arguments are on the command line
    mcp = backend.open_session("i", tmp_path / "mcp", mode="srv").env
    launcher, *args = mcp["GHXBENCH_MCP_COMMAND"].split()
    assert args == ["stdio", "--lean"]
    text = Path(launcher).read_text()
    assert "GITHUB_PERSONAL_ACCESS_TOKEN=" + "t" * 20 in text
    assert "GITHUB_HOST=https://ghe.example.com" in text
    # the control: a built-in mode's session has no declared client
    assert "ACME_TOKEN" not in backend.open_session("i", tmp_path / "b", mode="mcp").env
