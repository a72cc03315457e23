"""`ghxbench fixtures seed|status|cleanup --backend github` over HTTP against the sandbox's API
server serving a fresh world."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ghxbench.cli.main import main
from pytest_ghxbench.github.fixtures import SEED_LABEL
from pytest_ghxbench.sandbox.code import pull_files
from tests.github.served import REPO, Served


@pytest.fixture(autouse=True)
def _in_tmp_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # where the manifest is written


def _cli(served: Served, *args: str) -> int:
    return main(["fixtures", *args, "--backend", "github", "--api-url", served.url])


def _tags(served: Served) -> set[str]:
    """The repository's tags: its git tags (published releases created theirs)."""
    return set(served.world.git.tags())


def test_seed_status_cleanup_round_trip(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = served.world
    assert _cli(served, "seed", "--repo", REPO) == 0
    seeded = capsys.readouterr().out
    manifest_path = tmp_path / ".ghxbench" / "fixture-manifest.github.json"
    manifest = json.loads(manifest_path.read_text())
    resources = manifest["resources"]
    assert manifest["repo"]["full_name"] == REPO
    for key in ("issue", "blocker_issue", "parent_issue"):
        issue = world.issue(resources[key]["number"])
        assert issue is not None and issue.state == "OPEN"
        assert issue.node_id == resources[key]["id"] and issue.labels == [SEED_LABEL]
    pull = world.pull_request(resources["pr"]["number"])
    assert pull is not None and pull.state == "OPEN" and SEED_LABEL in pull.labels
    assert pull.head_ref == resources["pr"]["head_ref"] == resources["pr_with_reviews"]["head_ref"]
    assert pull.head_ref in world.git.branches()
    assert [f.path for f in pull_files(world, pull)] == ["ghxbench-fixture.md"]
    thread = world.review_thread(resources["pr_thread"]["id"])
    assert thread is not None and thread[0] is pull and thread[1].line == 3
    assert [r.state for r in pull.reviews] == ["COMMENTED", "COMMENTED"]
    tag = resources["release"]["tag_name"]
    release = world.release(resources["release"]["id"])
    assert release is not None and release.prerelease and not release.draft
    assert tag.startswith("v0.0.0-ghxbench-") and tag in _tags(served)
    # the repository's most recent completed run, its first job and a check run of its commit
    run = world.workflow_run(resources["workflow_run"]["id"])
    job = world.job(resources["workflow_job"]["id"])
    check = world.check_run(resources["check_run"]["id"])
    assert run is not None and run.status == "completed"
    assert job is not None and job.run_id == run.id == resources["workflow_job"]["run_id"]
    assert check is not None and check.head_sha == run.head_sha
    assert "project" not in resources
    assert f"pull request #{pull.number}" in seeded and str(manifest_path) in seeded

    assert _cli(served, "status") == 0
    assert "0 problem(s)" in capsys.readouterr().out

    # a mutation scenario closed the issue: status says so and fails
    number = resources["issue"]["number"]
    served.client().rest("PATCH", f"/repos/{REPO}/issues/{number}", body={"state": "closed"})
    assert _cli(served, "status") == 1
    out = capsys.readouterr().out
    assert "issue: closed (a scenario changed it; seed again)" in out and "1 problem(s)" in out

    assert _cli(served, "cleanup") == 0
    cleaned = capsys.readouterr().out
    labelled = [i for i in world.issues if SEED_LABEL in i.labels]
    assert len(labelled) == 3 and all(i.state == "CLOSED" for i in labelled)
    closed = world.pull_request(pull.number)
    assert closed is not None and closed.state == "CLOSED"
    assert pull.head_ref not in world.git.branches()
    assert tag not in _tags(served) and world.release(resources["release"]["id"]) is None
    assert "deleted release" in cleaned and f"deleted branch {pull.head_ref}" in cleaned

    assert _cli(served, "cleanup") == 0  # idempotent: what is gone is skipped
    assert "already gone" in capsys.readouterr().out

    everything = seeded + cleaned + manifest_path.read_text()
    assert served.token not in everything


def test_a_repository_without_workflow_runs_seeds_the_rest(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.world.workflow_runs.clear()
    out_path = tmp_path / "m.json"
    assert _cli(served, "seed", "--repo", REPO, "--out", str(out_path)) == 0
    assert "no completed workflow run" in capsys.readouterr().out
    resources = json.loads(out_path.read_text())["resources"]
    assert {"issue", "pr", "pr_thread", "release"} <= set(resources)
    assert "workflow_run" not in resources
    assert _cli(served, "status", "--fixture-manifest", str(out_path)) == 0
    assert "workflow_job: not seeded: scenarios that need it are skipped" in (
        capsys.readouterr().out
    )


def test_clear_errors_without_token_repository_or_manifest(
    served: Served, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(served, "seed") == 2
    assert "name the fixture repository with --repo" in capsys.readouterr().err
    assert _cli(served, "status") == 1
    assert "run `ghxbench fixtures seed --backend github` first" in capsys.readouterr().err
    assert _cli(served, "seed", "--repo", "acme-labs/missing") == 1
    assert "HTTP 404" in capsys.readouterr().err
    monkeypatch.setenv("GH_TOKEN", "ghp_wrongwrongwrongwrong")
    assert _cli(served, "seed", "--repo", REPO) == 1
    assert "HTTP 401" in capsys.readouterr().err
    monkeypatch.delenv("GH_TOKEN")
    assert _cli(served, "seed", "--repo", REPO) == 2
    assert "no GitHub token: set GH_TOKEN or GITHUB_TOKEN" in capsys.readouterr().err
