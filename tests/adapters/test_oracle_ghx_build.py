"""``--ghx-ghx`` swaps in another ghx build: items get it on ``PATH`` and the oracle's ghx plans
run it as a process against the item's GitHub."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pytest_ghxbench.adapters.oracle.adapter import OracleAdapter
from pytest_ghxbench.api import RunRequest
from pytest_ghxbench.sandbox.backend import SandboxBackend
from pytest_ghxbench.sandbox.clients import Clients
from pytest_ghxbench.scenario.prompt import mode_instructions
from tests.paths import REPO_ROOT


def _build(tmp_path: Path) -> Path:
    """A "ghx build": a program of its own that logs its calls and answers through the
    package's CLI."""
    program = tmp_path / "my-ghx"
    log = tmp_path / "calls.log"
    program.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {log}\n'
        f'PYTHONPATH={REPO_ROOT} exec {sys.executable} -m pytest_ghxbench.ghx "$@"\n'
    )
    program.chmod(0o755)
    return program


def test_the_oracle_runs_the_configured_build_as_a_process(tmp_path: Path) -> None:
    program = _build(tmp_path)
    backend = SandboxBackend(clients=Clients(ghx=str(program)))
    item = backend.open_session("issue-view[ghx-r1]", tmp_path / "item", mode="ghx")
    try:
        dict(item.env)  # builds the item's environment
        assert (tmp_path / "item" / "bin" / "ghx").read_text().count(str(program)) == 1
        assert backend.clients.versions()["ghx"] != "built-in"

        class Atomic:
            kind = "atomic"
            task = "issue.view"
            id = "issue-view"

        request = RunRequest(
            scenario=Atomic(),
            mode="ghx",
            prompt="View issue 3.",
            instructions=mode_instructions("ghx"),
            timeout_s=60.0,
            iteration=1,
            workdir=tmp_path / "item",
            env=item.env,
            backend=item,
            input={"owner": "acme-labs", "name": "tinykv", "issueNumber": 3},
        )
        result = OracleAdapter().run(request)
        assert result.error is None, result.error
        answer = json.loads(result.final_text or "")
        assert answer["ok"] and answer["data"]["number"] == 3
        assert "run issue.view --input" in (tmp_path / "calls.log").read_text()
    finally:
        item.close()
        backend.close()
