"""ghx code capabilities over HTTP: files, history, branches and comparisons read from the
world's git repository; branches, commits, pull requests and line comments written to it; the
world operations that do the same in process; and answers recorded to fix their shape."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.operations.registry import perform
from pytest_ghxbench.sandbox.state import World
from tests.adapters.plan_runs import differences, state
from tests.ghx.conftest import REPO, assert_as_recorded, error, ok, on_dotcom

COMMITS = seeded().seed.commits
WAL = "src/tinykv/wal.py"
SEGMENT = "src/tinykv/segment.py"
LINE = {**REPO, "prNumber": 8, "path": WAL, "line": 28, "body": "`batch` never fsyncs."}


def _text(world: World, ref: str, path: str) -> str:
    sha = world.git.resolve(ref)
    assert sha is not None
    return (world.git.read(sha, path) or b"").decode()


# ---------------------------------------------------------------- reads


def test_a_file_is_read_at_a_branch_a_tag_or_the_default_branch(world: World) -> None:
    data = ok(world, "repo.file.get", {**REPO, "path": WAL, "ref": "feat/wal-fsync-policy"})
    assert data["text"] == _text(world, "feat/wal-fsync-policy", WAL)
    assert 'FSYNC_POLICIES = ("always", "batch", "never")' in data["text"]
    assert (data["path"], data["ref"], data["size"]) == (WAL, "feat/wal-fsync-policy", 1383)
    assert data["isBinary"] is False and len(data["sha"]) == 40
    at_tag = ok(world, "repo.file.get", {**REPO, "path": "pyproject.toml", "ref": "v0.3.2"})
    assert 'version = "0.3.2"' in at_tag["text"]
    default = ok(world, "repo.file.get", {**REPO, "path": "/README.md/"})
    assert (default["path"], default["ref"]) == ("README.md", "main")


def test_a_missing_file_ref_or_a_folder_is_refused(world: World) -> None:
    assert error(world, "repo.file.get", {**REPO, "path": "docs/windows.md"}) == {
        "code": "NOT_FOUND",
        "message": "docs/windows.md does not exist at main",
    }
    missing_ref = {**REPO, "path": "README.md", "ref": "no/such-branch"}
    assert error(world, "repo.file.get", missing_ref)["code"] == "NOT_FOUND"
    assert error(world, "repo.file.get", {**REPO, "path": "src"})["code"] == "VALIDATION"


def test_history_of_a_path_newest_first(world: World) -> None:
    data = ok(world, "repo.commits.list", {**REPO, "ref": "main", "path": SEGMENT})
    assert [c["oid"] for c in data["items"]] == [COMMITS["segment-size"], COMMITS["segments"]]
    newest = data["items"][0]
    assert newest["messageHeadline"] == "Raise the default segment size to 4 MiB"
    assert (newest["authorLogin"], newest["authorName"]) == ("dana-ops", "Dana Ortiz")
    assert newest["abbreviatedOid"] == COMMITS["segment-size"][:7]
    assert on_dotcom(newest["url"]).endswith(f"/commit/{COMMITS['segment-size']}")


def test_history_by_an_author_pages(world: World) -> None:
    first = ok(world, "repo.commits.list", {**REPO, "author": "dana-ops", "first": 2})
    rest = ok(
        world,
        "repo.commits.list",
        {**REPO, "author": "dana-ops", "first": 2, "after": first["pageInfo"]["endCursor"]},
    )
    assert first["pageInfo"]["hasNextPage"] and not rest["pageInfo"]["hasNextPage"]
    logins = {c["authorLogin"] for c in first["items"] + rest["items"]}
    assert logins == {"dana-ops"} and len(first["items"] + rest["items"]) == 3
    unknown = {**REPO, "ref": "no/such-branch"}
    assert error(world, "repo.commits.list", unknown)["code"] == "NOT_FOUND"


def test_a_commit_with_its_files_by_sha_or_by_a_tag(world: World) -> None:
    data = ok(world, "repo.commit.get", {**REPO, "sha": COMMITS["segment-size"][:7]})
    assert data["oid"] == COMMITS["segment-size"] and data["parents"] == [
        COMMITS["store-snapshots"]
    ]
    assert data["messageBody"].startswith("With 1 MiB segments a 2 GB store")
    assert data["stats"] == {"additions": 1, "deletions": 1, "total": 2}
    (change,) = data["files"]
    assert (change["path"], change["status"]) == (SEGMENT, "modified")
    assert "+DEFAULT_SEGMENT_SIZE = 4 << 20" in change["patch"]
    tagged = ok(world, "repo.commit.get", {**REPO, "sha": "v0.3.2"})
    assert tagged["messageHeadline"] == "Release 0.3.2"
    assert error(world, "repo.commit.get", {**REPO, "sha": "0000000"})["code"] == "NOT_FOUND"


def test_branches_and_a_comparison(world: World) -> None:
    branches = ok(world, "repo.branches.list", REPO)["items"]
    assert [(b["name"], b["protected"]) for b in branches] == [
        ("feat/wal-fsync-policy", False),
        ("fix/compaction-lock", False),
        ("main", False),
    ]
    compared = ok(world, "repo.commits.compare", {**REPO, "base": "v0.3.2", "head": "main"})
    assert (compared["status"], compared["aheadBy"], compared["behindBy"]) == ("AHEAD", 4, 0)
    assert compared["mergeBaseOid"] == COMMITS["release-032"]
    assert [c["messageHeadline"] for c in compared["commits"]] == [
        "Use put_batch in the README quick start",
        "Merge pull request #9 from acme-labs/docs/readme-example",
        "Add type hints to the public API",
        "Add a benchmark of put latency during compaction",
    ]
    # The seed's merge of pull request #9 keeps its first parent's tree, so README.md is not
    # among the files.
    assert {f["path"] for f in compared["files"]} == {
        "benchmarks/compaction.py",
        "src/tinykv/__init__.py",
    }
    missing = {**REPO, "base": "v9.9.9", "head": "main"}
    assert error(world, "repo.commits.compare", missing)["code"] == "NOT_FOUND"


def test_review_threads_are_filtered_by_path_and_line(world: World) -> None:
    threads = {**REPO, "prNumber": 7, "unresolvedOnly": False}
    on_snapshot = ok(world, "pr.comments.list", {**threads, "path": "src/tinykv/snapshot.py"})
    assert [t["id"] for t in on_snapshot["items"]] == ["PRRT_kwDOtinykv7002"]
    assert on_snapshot["filterApplied"]["path"] == "src/tinykv/snapshot.py"
    assert ok(world, "pr.comments.list", {**threads, "line": 9})["items"][0]["isResolved"]
    elsewhere = {**threads, "path": "src/tinykv/compaction.py", "line": 1}
    assert ok(world, "pr.comments.list", elsewhere)["items"] == []


# ---------------------------------------------------------------- writes


def test_a_branch_from_the_default_branch_or_a_tag(world: World) -> None:
    made = ok(world, "repo.branch.create", {**REPO, "branch": "docs/platforms"})
    assert made == {"name": "docs/platforms", "oid": COMMITS["bench"], "from": "main"}
    tagged = ok(world, "repo.branch.create", {**REPO, "branch": "release/0.3", "from": "v0.3.2"})
    assert tagged["oid"] == world.git.ref("refs/heads/release/0.3") == COMMITS["release-032"]
    again = error(world, "repo.branch.create", {**REPO, "branch": "docs/platforms"})
    assert again["code"] == "VALIDATION" and "already exists" in again["message"]
    nowhere = {**REPO, "branch": "x", "from": "no/such-branch"}
    assert error(world, "repo.branch.create", nowhere)["code"] == "NOT_FOUND"


def test_a_file_is_created_then_replaced_in_commits_by_the_viewer(world: World) -> None:
    put = {**REPO, "branch": "fix/compaction-lock", "path": "docs/snapshots.md"}
    created = ok(world, "repo.file.put", {**put, "content": "one\n", "message": "Add a page"})
    replaced = ok(world, "repo.file.put", {**put, "content": "two\n", "message": "Reword it"})
    assert (created["created"], replaced["created"]) == (True, False)
    assert _text(world, "fix/compaction-lock", "docs/snapshots.md") == "two\n"
    commit = world.git.commit(replaced["commitOid"])
    assert commit is not None and commit.parents == (created["commitOid"],)
    assert (commit.title, commit.author.login) == ("Reword it", "bench-bot")
    pull = world.pull_request(7)  # its head branch moved, so its head did
    assert pull is not None and pull.head_sha == replaced["commitOid"]
    nowhere = {**put, "branch": "no/such-branch", "content": "x", "message": "x"}
    assert error(world, "repo.file.put", nowhere)["code"] == "NOT_FOUND"
    folder = {**put, "path": "src", "content": "x", "message": "x"}
    assert error(world, "repo.file.put", folder)["code"] == "VALIDATION"


def _feature_branch(world: World) -> None:
    assert ok(world, "repo.branch.create", {**REPO, "branch": "docs/platforms"})
    page = {"path": "docs/platforms.md", "content": "Windows too\n", "message": "Platforms"}
    assert ok(world, "repo.file.put", {**REPO, "branch": "docs/platforms", **page})


def test_a_pull_request_that_fixes_an_issue_links_it(world: World) -> None:
    _feature_branch(world)
    opened = {**REPO, "head": "docs/platforms", "title": "Platforms", "body": "Fixes #6"}
    data = ok(world, "pr.create", {**opened, "draft": True})
    assert (data["number"], data["state"], data["isDraft"]) == (10, "OPEN", True)
    assert (data["headRefName"], data["baseRefName"]) == ("docs/platforms", "main")
    linked = ok(world, "issue.linked_prs.list", {**REPO, "issueNumber": 6})["items"]
    assert [pull["number"] for pull in linked] == [10]
    assert error(world, "pr.create", opened)["code"] == "VALIDATION"  # one exists already
    missing = error(world, "pr.create", {**opened, "head": "no/such-branch"})
    assert missing == {
        "code": "NOT_FOUND",
        "message": "head branch 'no/such-branch' does not exist",
    }
    same = error(world, "pr.create", {**opened, "head": "main"})
    assert same["code"] == "VALIDATION"


def test_a_comment_on_a_line_of_the_diff_starts_a_thread(world: World) -> None:
    data = ok(world, "pr.comment.create", LINE)
    assert (data["path"], data["line"], data["side"]) == (WAL, 28, "RIGHT")
    (thread,) = ok(world, "pr.comments.list", {**REPO, "prNumber": 8, "path": WAL})["items"]
    assert thread["comments"][0]["id"] == data["id"] and thread["diffSide"] == "RIGHT"
    old_side = ok(world, "pr.comment.create", {**LINE, "line": 21, "side": "LEFT"})
    assert old_side["side"] == "LEFT"
    outside = error(world, "pr.comment.create", {**LINE, "line": 2})
    assert outside == {
        "code": "VALIDATION",
        "message": "Validation Failed (pull_request_review_thread.line must be part of the diff)",
    }
    unchanged = error(world, "pr.comment.create", {**LINE, "path": "README.md"})
    assert unchanged["code"] == "VALIDATION"
    assert error(world, "pr.comment.create", {**LINE, "prNumber": 99})["code"] == "NOT_FOUND"


STACKED = {**REPO, "head": "fix/compaction-lock", "base": "feat/wal-fsync-policy"}
OPERATIONS = {
    "repo.branch.create": "createRef",
    "repo.file.put": "repos/create-or-update-file-contents",
    "pr.create": "createPullRequest",
    "pr.comment.create": "addPullRequestReviewThread",
}
"""The sandbox's world operation each ghx capability here performs through the API."""
CODES = {404: "NOT_FOUND", 422: "VALIDATION", 409: "CONFLICT"}
WRITES: list[tuple[str, dict[str, Any]]] = [
    ("repo.branch.create", {**REPO, "branch": "release/0.3", "from": "v0.3.2"}),
    ("repo.branch.create", {**REPO, "branch": "main"}),
    ("repo.file.put", {**REPO, "branch": "main", "path": "a/b.md", "content": "b", "message": "B"}),
    ("repo.file.put", {**REPO, "branch": "nope", "path": "b.md", "content": "b", "message": "B"}),
    ("pr.create", {**STACKED, "title": "Stack the lock fix on the WAL work", "body": "Fixes #3"}),
    ("pr.create", {**REPO, "head": "fix/compaction-lock", "title": "Again"}),
    ("pr.comment.create", LINE),
    ("pr.comment.create", {**LINE, "line": 2}),
]


@pytest.mark.parametrize(
    ("task", "input"), WRITES, ids=[f"{t}-{n}" for n, (t, _) in enumerate(WRITES)]
)
def test_the_world_operation_does_what_the_capability_does_over_the_api(
    task: str, input: dict[str, Any], world: World
) -> None:
    in_process = fresh_world()
    done = perform(in_process, OPERATIONS[task], input)
    if done["ok"]:
        assert on_dotcom(ok(world, task, input)) == done["data"]
    else:
        assert error(world, task, input)["code"] == CODES[done["error"]["status"]]
    assert differences(state(in_process), state(world)) == []


RECORDED: list[tuple[str, dict[str, Any]]] = [
    ("repo.file.get", {**REPO, "path": WAL, "ref": "feat/wal-fsync-policy"}),
    ("repo.commits.list", {**REPO, "ref": "main", "path": SEGMENT}),
    ("repo.commit.get", {**REPO, "sha": COMMITS["segment-size"]}),
    ("repo.commits.compare", {**REPO, "base": "v0.3.2", "head": "main"}),
    ("repo.branches.list", REPO),
    ("pr.comment.create", LINE),
]


@pytest.mark.parametrize(
    ("task", "input"), RECORDED, ids=[f"{t}-{n}" for n, (t, _) in enumerate(RECORDED)]
)
def test_answers_are_as_recorded(task: str, input: dict[str, Any]) -> None:
    assert_as_recorded(task, input)
