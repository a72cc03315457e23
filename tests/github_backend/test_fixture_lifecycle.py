"""`ghxbench fixtures seed|status|cleanup --backend github` against a fake GitHub over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_ghxbench.cli.main import main
from tests.github.fake_github import FakeGitHub

TOKEN = "ghp_canaryFIXTURE0123456789abcdef"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    monkeypatch.delenv("GHXBENCH_GITHUB_REPO", raising=False)
    monkeypatch.chdir(tmp_path)
    with FakeGitHub(token=TOKEN) as server:
        yield server


def _cli(fake: FakeGitHub, *args: str) -> int:
    return main(["fixtures", *args, "--backend", "github", "--api-url", fake.url])


def test_seed_status_cleanup_round_trip(
    fake: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = fake.add_workflow_run(conclusion="failure", head_sha="a" * 40)
    job = fake.add_job(run["id"], conclusion="failure")
    check = fake.add_check_run("a" * 40)

    assert _cli(fake, "seed", "--repo", "acme/fixtures") == 0
    seeded = capsys.readouterr().out
    manifest_path = tmp_path / ".ghxbench" / "fixture-manifest.github.json"
    manifest = json.loads(manifest_path.read_text())
    resources = manifest["resources"]
    assert manifest["repo"]["full_name"] == "acme/fixtures"
    for key in ("issue", "blocker_issue", "parent_issue"):
        issue = fake.issues[resources[key]["number"]]
        assert issue["state"] == "open" and issue["node_id"] == resources[key]["id"]
        assert [label["name"] for label in issue["labels"]] == ["ghxbench-fixture"]
    pull = fake.pulls[resources["pr"]["number"]]
    assert (
        pull["head"]["ref"]
        == resources["pr"]["head_ref"]
        == resources["pr_with_reviews"]["head_ref"]
    )
    assert f"refs/heads/{pull['head']['ref']}" in fake.refs
    assert resources["pr_thread"]["id"].startswith("PRRT_")
    tag = resources["release"]["tag_name"]
    assert tag.startswith("v0.0.0-ghxbench-") and f"refs/tags/{tag}" in fake.refs
    assert resources["workflow_run"] == {"id": run["id"]}
    assert resources["workflow_job"] == {"id": job["id"], "run_id": run["id"]}
    assert resources["check_run"] == {"id": check["id"]}
    assert "project" not in resources
    assert f"pull request #{pull['number']}" in seeded and str(manifest_path) in seeded

    assert _cli(fake, "status") == 0
    assert "0 problem(s)" in capsys.readouterr().out

    # a mutation scenario closed the issue: status says so and fails
    fake.issues[resources["issue"]["number"]]["state"] = "closed"
    assert _cli(fake, "status") == 1
    out = capsys.readouterr().out
    assert "issue: closed (a scenario changed it; seed again)" in out and "1 problem(s)" in out

    assert _cli(fake, "cleanup") == 0
    cleaned = capsys.readouterr().out
    labelled = [i for i in fake.issues.values() if i["labels"]]
    assert labelled and all(i["state"] == "closed" for i in labelled)
    assert fake.pulls[pull["number"]]["state"] == "closed"
    assert f"refs/heads/{pull['head']['ref']}" not in fake.refs
    assert f"refs/tags/{tag}" not in fake.refs and not fake.releases
    assert "deleted release" in cleaned

    assert _cli(fake, "cleanup") == 0  # idempotent: what is gone is skipped
    assert "already gone" in capsys.readouterr().out

    everything = seeded + cleaned + manifest_path.read_text()
    assert TOKEN not in everything


def test_a_repository_without_workflow_runs_seeds_the_rest(
    fake: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "m.json"
    assert _cli(fake, "seed", "--repo", "acme/fixtures", "--out", str(out_path)) == 0
    assert "no completed workflow run" in capsys.readouterr().out
    resources = json.loads(out_path.read_text())["resources"]
    assert {"issue", "pr", "release"} <= set(resources) and "workflow_run" not in resources
    assert _cli(fake, "status", "--fixture-manifest", str(out_path)) == 0
    assert "workflow_job: not seeded: scenarios that need it are skipped" in (
        capsys.readouterr().out
    )


def test_clear_errors_without_token_repository_or_manifest(
    fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(fake, "seed") == 2
    assert "name the fixture repository with --repo" in capsys.readouterr().err
    assert _cli(fake, "status") == 1
    assert "run `ghxbench fixtures seed --backend github` first" in capsys.readouterr().err
    assert _cli(fake, "seed", "--repo", "acme/missing") == 1
    assert "HTTP 404" in capsys.readouterr().err
    monkeypatch.setenv("GH_TOKEN", "ghp_wrongwrongwrongwrong")
    assert _cli(fake, "seed", "--repo", "acme/fixtures") == 1
    assert "HTTP 401" in capsys.readouterr().err
    monkeypatch.delenv("GH_TOKEN")
    assert _cli(fake, "seed", "--repo", "acme/fixtures") == 2
    assert "no GitHub token: set GH_TOKEN or GITHUB_TOKEN" in capsys.readouterr().err
