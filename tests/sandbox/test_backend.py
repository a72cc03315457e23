"""The sandbox backend: registration, manifest, per-item isolation, checkpoints, end to end."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.api import Backend, BackendSession
from pytest_ghxbench.attempt.checkpoints import judge_workflow
from pytest_ghxbench.sandbox.backend import SANDBOX_ENV, SandboxBackend
from pytest_ghxbench.scenario.manifest import bind_input
from tests.paths import EXTERNAL_SCENARIOS
from tests.sandbox.conftest import external_workflow, needs_external


@pytest.fixture(scope="module")
def backend() -> SandboxBackend:
    return SandboxBackend()


def test_is_a_backend_with_sessions(backend: SandboxBackend, tmp_path: Path) -> None:
    assert isinstance(backend, Backend) and backend.name == "sandbox"
    session = backend.open_session("issue-view-001[ghx-r1]", tmp_path, mode="ghx")
    assert isinstance(session, BackendSession)
    env = dict(session.env)  # reading it writes the item's HOME and its ghx
    assert env[SANDBOX_ENV] == "1"
    assert env["PATH"].split(os.pathsep)[0] == str(tmp_path / "bin")
    assert (tmp_path / "bin" / "ghx").is_file()
    assert env["GH_HOST"] == "github.localhost" and env["GH_TOKEN"].startswith("ghs_")
    session.close()


@pytest.mark.parametrize(
    ("mode", "refused"),
    [("mcp", ["gh", "ghx"]), ("ghx", ["gh", "github-mcp-server"]), ("agent_direct", ["ghx"])],
)
def test_an_item_reaches_only_its_own_interface(
    backend: SandboxBackend, tmp_path: Path, mode: str, refused: list[str]
) -> None:
    # The harness's own PATH has gh and github-mcp-server (the venv); the item must not.
    session = backend.open_session(f"pr-view-001[{mode}-r1]", tmp_path, mode=mode)
    env = {**os.environ, **session.env}
    for program in refused:
        done = subprocess.run([program, "--version"], env=env, capture_output=True, text=True)
        assert done.returncode == 127, (program, done.stdout)
        assert f"mode {mode} offers only its own interface" in done.stderr
    if mode == "mcp":
        assert "GH_TOKEN" not in session.env and "GITHUB_TOKEN" not in session.env
    session.close()


def test_withdrawn_token_no_longer_reaches_the_world(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    session = backend.open_session("issue-view-001[ghx-r1]", tmp_path, mode="ghx")
    repo = {"owner": "acme-labs", "name": "tinykv", "issueNumber": 3}
    assert session.run_task("issue.view", repo)["ok"]
    client = session.client()
    session.close()
    from pytest_ghxbench.ghx import run_capability

    envelope = run_capability(client, "issue.view", repo)
    assert envelope["error"]["code"] == "AUTH", envelope


def test_registered_as_a_built_in_backend(request: pytest.FixtureRequest) -> None:
    contributed = request.config.hook.pytest_ghxbench_backends(config=request.config)
    names = [backend.name for group in contributed for backend in group]
    assert "sandbox" in names


def test_manifest_is_a_private_copy(backend: SandboxBackend) -> None:
    first = backend.manifest()
    first["resources"]["issue"]["number"] = 999
    assert backend.manifest()["resources"]["issue"]["number"] == 3


def test_sessions_do_not_share_state(backend: SandboxBackend, tmp_path: Path) -> None:
    one = backend.open_session("a[ghx-r1]", tmp_path)
    two = backend.open_session("a[ghx-r2]", tmp_path)
    issue_id = backend.manifest()["resources"]["issue"]["id"]
    assert one.run_task("issue.close", {"issueId": issue_id})["ok"]
    repo = {"owner": "acme-labs", "name": "tinykv", "issueNumber": 3}
    assert one.run_task("issue.view", repo)["data"]["state"] == "CLOSED"
    assert two.run_task("issue.view", repo)["data"]["state"] == "OPEN"
    assert (
        backend.open_session("b", tmp_path).run_task("issue.view", repo)["data"]["state"] == "OPEN"
    )


def test_run_task_ignores_keys_the_capability_does_not_take(
    backend: SandboxBackend, tmp_path: Path
) -> None:
    session = backend.open_session("x", tmp_path)
    input = {"owner": "acme-labs", "name": "tinykv", "issueNumber": 3, "first": 50, "prNumber": 7}
    envelope = session.run_task("issue.comments.list", input)
    assert envelope["ok"] and envelope["data"]["items"] == []


def _triage(session: BackendSession, bound: dict[str, Any]) -> None:
    viewed = session.run_task("issue.view", bound)
    assert viewed["ok"]
    issue_id = viewed["data"]["id"]
    labels = [*viewed["data"]["labels"], "enhancement"]
    assert session.run_task("issue.labels.update", {"issueId": issue_id, "labels": labels})["ok"]
    body = "Triaged — tracking as enhancement."
    assert session.run_task("issue.comments.create", {"issueId": issue_id, "body": body})["ok"]


@needs_external
@pytest.mark.parametrize("perform", [True, False])
def test_triage_workflow_checkpoint_holds_only_after_the_steps(
    backend: SandboxBackend, tmp_path: Path, perform: bool
) -> None:
    scenario = external_workflow("issue-triage-comment-wf-001")
    bound = bind_input(scenario, backend.manifest())
    session = backend.open_session("issue-triage-comment-wf-001[ghx-r1]", tmp_path)
    if perform:
        _triage(session, bound)
    verdict = judge_workflow(
        scenario,
        bound_input=bound,
        final_text="Labelled and commented.",
        tool_call_count=3,
        run_task=session.run_task,
    )
    assert verdict.passed is perform, verdict.failures


RELAY = textwrap.dedent(
    '''
    import json
    import pytest_ghxbench as gb

    class Relay:
        """Performs the scenario's capability through the backend and answers with it."""
        name = "relay"
        modes = ("ghx",)

        def run(self, request):
            backend = request.backend
            if request.scenario.kind == "workflow":
                issue = backend.run_task("issue.view", request.input)["data"]
                backend.run_task(
                    "issue.labels.add", {"issueId": issue["id"], "labels": ["enhancement"]}
                )
                backend.run_task(
                    "issue.comments.create", {"issueId": issue["id"], "body": "Triaged."}
                )
                return gb.RunResult(final_text="done", tool_calls=[gb.ToolCall("ghx")] * 3)
            envelope = backend.run_task(request.scenario.task, request.input)
            return gb.RunResult(final_text=json.dumps(envelope), tool_calls=[gb.ToolCall("ghx")])

    def pytest_ghxbench_adapters(config):
        return [Relay()]
    '''
)


@needs_external
def test_sandbox_is_the_default_backend_end_to_end(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RELAY)
    root = pytester.path / "scenarios"
    (root / "workflows").mkdir(parents=True)
    for name in ("issue-view-001", "issue-comments-create-001", "issue-close-001"):
        shutil.copy(EXTERNAL_SCENARIOS / f"{name}.json", root)
    shutil.copy(
        EXTERNAL_SCENARIOS / "workflows" / "issue-triage-comment-wf-001.json", root / "workflows"
    )
    result = pytester.runpytest(
        f"--ghx-scenarios={root}", "--ghx-mode=ghx", "--reps=2", "--ghx-adapter=relay"
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    result.assert_outcomes(passed=8)
    assert "backend=sandbox" in result.stdout.str()
