"""The ``gh``/``ghx`` shims: real executables on a private PATH, run as an agent would."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.capabilities.registry import all_capabilities
from pytest_ghxbench.sandbox.manifest import seeded
from pytest_ghxbench.sandbox.shims import shim_script, write_shims
from pytest_ghxbench.sandbox.statefile import STATE_ENV, init_state, load_world

MANIFEST = seeded().manifest
REPO = {"owner": MANIFEST["repo"]["owner"], "name": MANIFEST["repo"]["name"]}


@pytest.fixture
def agent_env(tmp_path: Path) -> dict[str, str]:
    """An environment like an agent's: the shims first on PATH, run from another directory."""
    state = tmp_path / "my state.json"  # a space: the scripts must quote paths
    init_state(state)
    return {**os.environ, **write_shims(tmp_path / "agent bin", state)}


def sh(
    command: str, env: dict[str, str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", "-c", command],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_write_shims_returns_path_first_and_the_state(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    env = write_shims(tmp_path / "bin", state, python="/opt/py/bin/python3")
    assert env == {
        "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
        STATE_ENV: str(state),
    }
    for name in ("gh", "ghx"):
        shim = tmp_path / "bin" / name
        assert os.access(shim, os.X_OK)
        text = shim.read_text(encoding="utf-8")
        assert text.startswith("#!/bin/sh\n")
        assert f'exec /opt/py/bin/python3 -X utf8 -m pytest_ghxbench sandbox {name} "$@"' in text


def test_shim_script_rejects_other_names(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="expected one of gh, ghx"):
        shim_script("hub", tmp_path / "state.json")


def test_ghx_on_path_runs_a_capability(agent_env: dict[str, str], tmp_path: Path) -> None:
    done = sh(f"ghx run repo.view --input '{json.dumps(REPO)}'", agent_env, tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["ok"] is True
    assert result["data"]["nameWithOwner"] == f"{REPO['owner']}/{REPO['name']}"


def test_ghx_capabilities_list_lists_every_capability(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    done = sh("ghx capabilities list", agent_env, tmp_path)
    assert done.returncode == 0, done.stderr
    listed = [line.split("  ", 1)[0] for line in done.stdout.splitlines()]
    assert listed == [cap.id for cap in all_capabilities()]


def test_ghx_mutation_through_stdin_persists_even_without_the_variable(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    # The shim names its state itself, so a tool that scrubs the environment still works.
    scrubbed = {k: v for k, v in agent_env.items() if k != STATE_ENV}
    issue_id = MANIFEST["resources"]["issue"]["id"]
    payload = json.dumps({"issueId": issue_id, "body": "Läuft: ✓"}, ensure_ascii=False)
    done = sh("ghx run issue.comments.create --input -", scrubbed, tmp_path, stdin=payload)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["data"]["body"] == "Läuft: ✓"
    issue = load_world(Path(agent_env[STATE_ENV])).issue(3)
    assert issue is not None and issue.comments[-1].body == "Läuft: ✓"


def test_ghx_exit_statuses_reach_the_shell(agent_env: dict[str, str], tmp_path: Path) -> None:
    done = sh("ghx run nope.view --input '{}'; echo \"status=$?\"", agent_env, tmp_path)
    assert '"code":"UNSUPPORTED"' in done.stdout and done.stdout.endswith("status=1\n")
    done = sh("ghx run repo.view --input '{'", agent_env, tmp_path)
    assert done.returncode == 2 and "not valid JSON" in done.stderr


def test_gh_shim_reaches_the_sandbox(agent_env: dict[str, str], tmp_path: Path) -> None:
    done = sh("command -v gh; gh --version", agent_env, tmp_path)
    assert done.stdout.splitlines()[0] == str(tmp_path / "agent bin" / "gh")
    # Whatever the gh dialect answers, it is the sandbox's: no real gh, no network, no auth.
    assert "gh auth login" not in done.stderr
    if done.stderr == "gh dialect not available yet\n":
        assert done.returncode == 2
