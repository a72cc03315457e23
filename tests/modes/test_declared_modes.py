"""Declared modes (SPEC 18) with the oracle and the sandbox: a narrowed GitHub MCP server, a
team's CLI, and every bad entry refused with one usage error naming its key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import pytest_ghxbench.sandbox.api.tls  # noqa: F401  (see tests/agent_clis/harness.py)
from tests.paths import REPO_ROOT

ACME = REPO_ROOT / "docs" / "examples" / "team-cli" / "acme"
LEAN = (
    "[tool.ghxbench.modes.mcp_lean]\n"
    'kind = "mcp"\n'
    'command = ["github-mcp-server", "stdio", "--read-only", "--toolsets", '
    '"repos,issues,pull_requests"]\n'
    'instructions = "Use the GitHub MCP tools for every GitHub operation."\n'
)
ACME_MODE = (
    "[tool.ghxbench.modes.acme]\n"
    'kind = "cli"\n'
    f"program = {json.dumps(str(ACME))}\n"
    'env = { ACME_TOKEN = "{token}", ACME_API = "{api_url}", ACME_REPO = "{repo}" }\n'
)


def _scenarios(pytester: pytest.Pytester, *names: str) -> None:
    target = pytester.path / "scenarios"
    target.mkdir(exist_ok=True)
    for name in names:
        (source,) = (REPO_ROOT / "scenarios").glob(f"*/{name}.yaml")
        (target / source.name).write_text(source.read_text())


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        *args, "-p", "no:cacheprovider", "-p", "no:randomly", "scenarios", timeout=600
    )


def _latest(pytester: pytest.Pytester, name: str) -> Any:
    (path,) = (pytester.path / ".ghxbench" / "runs").glob(f"run_*/{name}")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return json.loads(path.read_text())


def test_a_narrowed_mcp_server_is_a_mode_beside_the_built_in_one(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml(LEAN)
    _scenarios(pytester, "pr-view-001", "issue-view-001", "issue-comments-create-001")
    result = _run(
        pytester, "--ghx-mode=mcp,mcp_lean", "--gate-baseline=mcp", "--gate-candidate=mcp_lean"
    )
    rows = {(row["scenario_id"], row["mode"]): row for row in _latest(pytester, "rows.jsonl")}
    for scenario in ("pr-view-001", "issue-view-001"):
        for mode in ("mcp", "mcp_lean"):
            assert rows[scenario, mode]["success"] is True, (scenario, mode, result.outlines[-40:])
    # the control: the built-in server comments; the read-only one says it cannot, honestly
    assert rows["issue-comments-create-001", "mcp"]["success"] is True
    refused = rows["issue-comments-create-001", "mcp_lean"]
    assert refused["success"] is False
    answer = json.dumps(refused)
    assert "UNSUPPORTED" in answer and "github-mcp-server 0.12.1 (mode mcp_lean)" in answer
    assert "does not list the tool add_issue_comment" in answer
    summary = _latest(pytester, "summary.json")
    surface = {mode: summary["modes"][mode]["tool_surface_tokens"] for mode in ("mcp", "mcp_lean")}
    assert 0 < surface["mcp_lean"] < surface["mcp"] / 2, surface
    interfaces = _latest(pytester, "run.json")["interfaces"]
    assert interfaces["mcp_lean"]["client"] == "github-mcp-server"
    assert interfaces["mcp_lean"]["version"] == "0.12.1"
    assert 0 < interfaces["mcp_lean"]["tools"] < 85
    assert "gate verify_pr (mcp_lean vs mcp)" in result.stdout.str()


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ('kind = "grpc"\nprogram = "x"', "[tool.ghxbench.modes.bad] kind: 'grpc'; expected"),
        ('kind = "cli"', "[tool.ghxbench.modes.bad] program: missing"),
        ('kind = "cli"\nprogram = "no-such-acme-cli"', "program: 'no-such-acme-cli' not found"),
        ('kind = "mcp"', "[tool.ghxbench.modes.bad] command: missing or empty"),
        (
            f'kind = "cli"\nprogram = {json.dumps(str(ACME))}\nenv = {{ T = "{{tokn}}" }}',
            "env.T: unknown template value {tokn}; valid: {token}, {api_url}",
        ),
        ('kind = "cli"\nprogram = "x"\ncolour = "red"', "unknown key 'colour'"),
        ('kind = "mcp"\ncommand = ["/bin/true"]', "command: the MCP server did not answer"),
    ],
)
def test_a_bad_mode_entry_is_one_usage_error_naming_the_key(
    pytester: pytest.Pytester, entry: str, expected: str
) -> None:
    pytester.makepyprojecttoml(f"[tool.ghxbench.modes.bad]\n{entry}\n")
    _scenarios(pytester, "issue-view-001")
    result = _run(pytester, "--ghx-mode=bad")
    assert result.ret == 4, result.outlines[-20:]
    errors = [line for line in result.errlines if "ghxbench" in line]
    assert len(errors) == 1 and expected in errors[0], result.errlines
    assert "Traceback" not in result.stderr.str()
    # nothing ran and nothing was lost: no run directory holds rows
    assert not list(pytester.path.glob(".ghxbench/runs/run_*/rows.jsonl"))


def test_a_mode_may_not_take_a_built_in_name(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.ghxbench.modes.mcp]\nkind = "mcp"\ncommand = ["x"]\n')
    _scenarios(pytester, "issue-view-001")
    result = _run(pytester, "--ghx-mode=mcp")
    assert result.ret == 4
    assert "[tool.ghxbench.modes.mcp]: 'mcp' is a built-in mode" in result.stderr.str()


def test_the_oracle_refuses_a_cli_it_has_no_plans_for(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(ACME_MODE)
    _scenarios(pytester, "pr-view-001")
    result = _run(pytester, "--ghx-mode=acme")
    assert result.ret == 4
    assert "adapter 'oracle' cannot run mode 'acme': the oracle has no plans" in result.stderr.str()
    # the control: the same project runs its other modes with the oracle, and 'all' is every
    # mode the oracle can run
    everything = _run(pytester, "--ghx-mode=all", "--gate-candidate=acme")
    assert everything.ret in (0, 1), everything.outlines[-20:]
    modes = {row["mode"] for row in _latest(pytester, "rows.jsonl")}
    assert modes == {"agent_direct", "mcp", "ghx"}


def _sandbox_run(cwd: Path, mode: str, script: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest_ghxbench", "sandbox", "run", "--mode", mode]
    return subprocess.run(
        [*command, "--", "sh", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_team_cli_item_holds_its_cli_and_no_other_client(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(ACME_MODE)
    script = "acme pr view 7; acme --version; gh api user; echo gh=$?; ghx --help; echo ghx=$?"
    done = _sandbox_run(tmp_path, "acme", script)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert json.loads(lines[0])["number"] == 7
    assert lines[1] == "acme 1.4.0"
    assert "gh=127" in lines and "ghx=127" in lines
    assert "mode acme offers only its own interface" in done.stderr
    # the control: agent_direct's item has gh
    assert "gh=0" in _sandbox_run(tmp_path, "agent_direct", "gh api user; echo gh=$?").stdout


def test_a_foreign_client_with_a_declared_modes_token_is_a_violation(tmp_path: Path) -> None:
    from pytest_ghxbench.modes import declared_modes
    from pytest_ghxbench.option_sources import read_tool_table
    from pytest_ghxbench.sandbox.backend import SandboxBackend

    (tmp_path / "pyproject.toml").write_text(ACME_MODE)
    table = read_tool_table(tmp_path / "pyproject.toml")
    backend = SandboxBackend(modes=declared_modes(table["modes"], "x", resolve=["acme"]))
    try:
        session = backend.open_session("x[acme-r1]", tmp_path / "item", mode="acme")
        env = dict(session.env)
        proxy = urllib.request.ProxyHandler({"http": env["HTTP_PROXY"]})
        opener = urllib.request.build_opener(proxy)

        def get(agent: str) -> int:
            request = urllib.request.Request(
                "http://api.github.localhost/repos/acme-labs/tinykv",
                headers={"Authorization": f"token {env['ACME_TOKEN']}", "User-Agent": agent},
            )
            try:
                with opener.open(request, timeout=30) as response:
                    return int(response.status)
            except urllib.error.HTTPError as exc:
                return exc.code

        assert get("acme/1.4.0") == 200  # the control: the mode's own client
        assert session.mode_violations == []
        assert get("GitHub CLI 2.102.0") == 403
        (violation,) = session.mode_violations
        assert "made by gh, which mode acme does not offer (its interface: acme)" in violation
        session.close()
    finally:
        backend.close()


def _jailed(program: Path, script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``script`` run by ``sh`` in the jail of an item whose mode is the CLI ``program``."""
    from pytest_ghxbench.isolation.probe import probe
    from pytest_ghxbench.modes import declared_modes
    from pytest_ghxbench.sandbox.api.policy import HostPolicy
    from pytest_ghxbench.sandbox.backend import SandboxBackend
    from tests.isolation.support import require_jail

    require_jail()
    entry = {"tcli": {"kind": "cli", "program": str(program)}}
    backend = SandboxBackend(modes=declared_modes(entry, "x", resolve=["tcli"]))
    backend.isolate(probe(), HostPolicy())
    try:
        item = backend.open_session("x[tcli-r1]", tmp_path / "item", mode="tcli")
        env = {"PATH": os.environ.get("PATH", ""), **item.env}
        jail = item.jail()
        assert jail is not None
        argv = jail.command(["sh", "-c", script], cwd=item.working_directory())
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
        item.close()
        return done
    finally:
        backend.close()


@pytest.mark.parametrize("shebang", [sys.executable, "/usr/bin/env python3"])
def test_a_cli_whose_interpreter_is_a_virtualenvs_runs_in_its_jail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shebang: str
) -> None:
    """A team's CLI is often a console script of a virtualenv: its interpreter, standard
    library and packages come into the jail with it, and nothing else of the virtualenv."""
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests do not run in a virtualenv")
    program = tmp_path / "tcli"
    program.write_text(f"#!{shebang}\nimport pygit2\nprint('tcli', pygit2.__version__)\n")
    program.chmod(0o755)
    # `env python3` finds the virtualenv's first, as in an activated virtualenv
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = _jailed(program, "tcli; echo tcli=$?; gh --version; echo gh=$?", tmp_path)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tcli ") and "tcli=0" in lines, (done.stdout, done.stderr)
    # the control: the virtualenv's gh (the harness's pinned one) is refused, by path too
    assert "gh=127" in lines and "mode tcli offers only its own interface" in done.stderr
