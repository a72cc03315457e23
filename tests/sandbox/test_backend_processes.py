"""Agents that run as processes: the session's env puts gh/ghx shims on PATH over a state file,
and checkpoints see what those processes did."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.backend import SandboxBackend
from pytest_ghxbench.sandbox.manifest import seeded

ISSUE = seeded().manifest["resources"]["issue"]
REPO = {"owner": seeded().manifest["repo"]["owner"], "name": seeded().manifest["repo"]["name"]}
LIST = {**REPO, "issueNumber": ISSUE["number"]}


def comments(envelope: dict[str, object]) -> list[object]:
    data = envelope["data"]
    assert isinstance(data, dict)
    items = data["items"]
    assert isinstance(items, list)
    return items


def test_in_process_adapters_never_pay_for_the_state_file(tmp_path: Path) -> None:
    session = SandboxBackend().open_session("item", tmp_path)
    assert session.world.repository.name  # what the oracle does
    session.run_task("issue.comments.list", LIST)
    assert list(tmp_path.iterdir()) == []


def test_processes_work_on_the_state_file_and_checkpoints_see_it(tmp_path: Path) -> None:
    session = SandboxBackend().open_session("item", tmp_path)
    before = len(comments(session.run_task("issue.comments.list", LIST)))
    env = {**os.environ, **session.env}
    assert Path(env["PATH"].split(os.pathsep)[0], "ghx").is_file()
    payload = json.dumps({"issueId": ISSUE["id"], "body": "seen by the checkpoint"})
    done = subprocess.run(
        ["ghx", "run", "issue.comments.create", "--input", payload],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    after = comments(session.run_task("issue.comments.list", LIST))
    assert len(after) == before + 1
    assert any("seen by the checkpoint" in json.dumps(c) for c in after)


def test_a_checkpoint_mutation_is_written_back_for_the_processes(tmp_path: Path) -> None:
    session = SandboxBackend().open_session("item", tmp_path)
    env = {**os.environ, **session.env}
    session.run_task("issue.comments.create", {"issueId": ISSUE["id"], "body": "from harness"})
    payload = json.dumps(
        {
            "issueNumber": ISSUE["number"],
            "owner": seeded().manifest["repo"]["owner"],
            "name": seeded().manifest["repo"]["name"],
        }
    )
    done = subprocess.run(
        ["ghx", "run", "issue.comments.list", "--input", payload],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert "from harness" in done.stdout, done.stderr


@pytest.mark.parametrize("dialect", ["gh", "ghx"])
def test_both_shims_are_on_the_private_path(tmp_path: Path, dialect: str) -> None:
    session = SandboxBackend().open_session("item", tmp_path)
    env = {**os.environ, **session.env}
    done = subprocess.run(
        [dialect, "--help"], env=env, capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0 and done.stdout
