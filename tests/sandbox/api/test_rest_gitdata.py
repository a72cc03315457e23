"""The git data API on the world's git repository: trees, blobs, commits and annotated tags,
read and written, then a ref moved to the new commit (as GitHub's MCP server pushes files);
GitHub's status codes and messages and the published response shapes."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.manifest import seeded
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_rest_code import BASE, LOCK, MAIN, ask, data, text_at
from tests.sandbox.api.test_rest_conformance import call, check

TREE = seeded().repo.commit(MAIN).tree  # type: ignore[union-attr]
NEITHER = (
    "Must supply either tree.sha or tree.content. Request will be rejected if both are present."
)


def post(world: World, kind: str, body: Any) -> ApiResponse:
    response = call(world, "POST", f"{BASE}/git/{kind}", body)
    if not (kind == "blobs" and response.status == 422):  # its schemas overlap (oneOf)
        check("POST", f"/repos/{{owner}}/{{repo}}/git/{kind}", response)
    return response


def message(response: ApiResponse) -> tuple[int, str]:
    return response.status, data(response)["message"]


def test_a_tree_by_sha_commit_or_branch(world: World) -> None:
    by_sha = data(ask(world, "GET", "/git/trees/{tree_sha}", f"/git/trees/{TREE}"))
    assert by_sha["sha"] == TREE and by_sha["truncated"] is False
    top = [(e["path"], e["type"]) for e in by_sha["tree"]]
    assert (
        ("src", "tree") in top
        and ("README.md", "blob") in top
        and ("src/tinykv", "tree") not in top
    )
    readme = next(e for e in by_sha["tree"] if e["path"] == "README.md")
    assert (readme["mode"], readme["size"]) == ("100644", len(text_at(world, MAIN, "README.md")))
    assert readme["url"].endswith(f"/git/blobs/{readme['sha']}")
    assert data(ask(world, "GET", "/git/trees/{tree_sha}", "/git/trees/main")) == by_sha
    assert data(ask(world, "GET", "/git/trees/{tree_sha}", f"/git/trees/{MAIN}")) == by_sha
    lock = data(
        ask(world, "GET", "/git/trees/{tree_sha}", "/git/trees/fix/compaction-lock?recursive=0")
    )
    paths = [e["path"] for e in lock["tree"]]  # any value of recursive recurses, as on GitHub
    assert "src/tinykv/compaction.py" in paths and lock["sha"] == world.git.commit(LOCK).tree  # type: ignore[union-attr]
    assert message(ask(world, "GET", "/git/trees/{tree_sha}", "/git/trees/nope")) == (
        404,
        "Not Found",
    )


def test_blobs_written_as_text_or_base64_and_read_back(world: World) -> None:
    text = post(world, "blobs", {"content": "héllo\n"})
    assert text.status == 201 and text.headers["Location"].endswith(data(text)["sha"])
    encoded = base64.b64encode(b"\x00\x01binary").decode()
    binary = data(post(world, "blobs", {"content": encoded, "encoding": "base64"}))
    read = data(ask(world, "GET", "/git/blobs/{file_sha}", f"/git/blobs/{data(text)['sha']}"))
    assert base64.b64decode(read["content"]) == "héllo\n".encode() and read["encoding"] == "base64"
    raw = call(
        world, "GET", f"{BASE}/git/blobs/{binary['sha']}", accept="application/vnd.github.raw"
    )
    assert raw.body == b"\x00\x01binary"
    assert message(post(world, "blobs", {"encoding": "utf-8"})) == (
        422,
        'Invalid request.\n\n"content" wasn\'t supplied.',
    )
    assert post(world, "blobs", {"content": "x", "encoding": "utf-16"}).status == 422
    missing = ask(world, "GET", "/git/blobs/{file_sha}", f"/git/blobs/{'0' * 40}")
    assert message(missing) == (404, "Not Found")
    assert ask(world, "GET", "/git/blobs/{file_sha}", f"/git/blobs/{TREE}").status == 404


def test_files_pushed_as_a_tree_a_commit_and_a_ref_move(world: World) -> None:
    """What the MCP server's push_files and delete_file do, step by step."""
    blob = data(post(world, "blobs", {"content": "# Changes\n"}))["sha"]
    entries = [
        {"path": "docs/notes.md", "mode": "100644", "type": "blob", "content": "notes\n"},
        {"path": "CHANGES.md", "mode": "100644", "type": "blob", "sha": blob},
        {"path": "LICENSE", "mode": "100644", "type": "blob", "sha": None},
        {"path": "tests", "mode": "040000", "type": "tree", "sha": None},
    ]
    tree = post(world, "trees", {"base_tree": TREE, "tree": entries})
    assert tree.status == 201
    sha = data(tree)["sha"]
    top = {e["path"] for e in data(tree)["tree"]}
    assert {"CHANGES.md", "docs", "src"} <= top and not top & {"LICENSE", "tests"}
    author = {
        "name": "Mona Lisa",
        "email": "mona@users.noreply.github.com",
        "date": "2026-03-02T10:00:00Z",
    }
    made = post(
        world, "commits", {"message": "Docs", "tree": sha, "parents": [MAIN], "author": author}
    )
    commit = data(made)
    assert made.status == 201 and commit["tree"]["sha"] == sha
    assert commit["author"] == author and commit["committer"]["name"] == "Mona Lisa"
    assert commit["parents"][0]["sha"] == MAIN
    again = data(ask(world, "GET", "/git/commits/{commit_sha}", f"/git/commits/{commit['sha']}"))
    assert again == commit
    assert world.git.ref("refs/heads/main") == MAIN  # objects move no ref
    moved = ask(
        world,
        "PATCH",
        "/git/refs/{ref}",
        "/git/refs/heads/main",
        {"sha": commit["sha"], "force": False},
    )
    assert moved.status == 200
    assert text_at(world, commit["sha"], "docs/notes.md") == b"notes\n"
    assert world.git.entry(commit["sha"], "tests/test_wal.py") is None


def test_a_commit_on_a_pull_request_s_branch_moves_the_pull_request(world: World) -> None:
    lock_tree = world.git.commit(LOCK).tree  # type: ignore[union-attr]
    change = [{"path": "NOTES.md", "mode": "100644", "type": "blob", "content": "n\n"}]
    tree = data(post(world, "trees", {"base_tree": lock_tree, "tree": change}))["sha"]
    commit = data(post(world, "commits", {"message": "Notes", "tree": tree, "parents": [LOCK]}))
    not_forward = {"sha": MAIN, "force": False}
    refused = ask(
        world, "PATCH", "/git/refs/{ref}", "/git/refs/heads/fix/compaction-lock", not_forward
    )
    assert message(refused) == (422, "Update is not a fast forward")
    body = {"sha": commit["sha"]}
    assert (
        ask(world, "PATCH", "/git/refs/{ref}", "/git/refs/heads/fix/compaction-lock", body).status
        == 200
    )
    pull = world.pull_request(7)
    assert pull is not None and pull.head_sha == commit["sha"]
    forced = {"sha": MAIN, "force": True}
    assert (
        ask(world, "PATCH", "/git/refs/{ref}", "/git/refs/heads/fix/compaction-lock", forced).status
        == 200
    )
    assert world.git.ref("refs/heads/fix/compaction-lock") == MAIN


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"base_tree": TREE}, 'Invalid request.\n\n"tree" wasn\'t supplied.'),
        ({"base_tree": "f" * 40, "tree": []}, "base_tree is not a valid tree oid"),
        (
            {"tree": [{"path": "a", "mode": "100644", "type": "blob"}]},
            NEITHER,
        ),
        (
            {
                "tree": [
                    {"path": "a", "mode": "100644", "type": "blob", "sha": TREE, "content": "x"}
                ]
            },
            NEITHER,
        ),
        (
            {"tree": [{"path": "a", "mode": "100644", "type": "blob", "sha": TREE}]},
            f"tree.sha {TREE} is not a valid blob",
        ),
        (
            {
                "base_tree": TREE,
                "tree": [{"path": "nope.txt", "mode": "100644", "type": "blob", "sha": None}],
            },
            "GitRPC::BadObjectState",
        ),
    ],
)
def test_creating_a_tree_refuses_as_github_does(world: World, body: Any, expected: str) -> None:
    assert message(post(world, "trees", body)) == (422, expected)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"tree": TREE}, 'Invalid request.\n\n"message" wasn\'t supplied.'),
        ({"message": "m", "tree": "f" * 40}, "Tree SHA does not exist"),
        (
            {"message": "m", "tree": TREE, "parents": ["f" * 40]},
            "Parent SHA does not exist or is not a commit object",
        ),
        (
            {"message": "m", "tree": TREE, "parents": ["main"]},
            "Each SHA in the 'parents' parameter must be exactly 40 characters and contain "
            "only [0-9a-f].",
        ),
    ],
)
def test_creating_a_commit_refuses_as_github_does(world: World, body: Any, expected: str) -> None:
    assert message(post(world, "commits", body)) == (422, expected)


def test_a_root_commit_and_unknown_commits(world: World) -> None:
    made = data(post(world, "commits", {"message": "Root", "tree": TREE}))
    assert made["parents"] == [] and made["author"]["email"] == "bench-bot@users.noreply.github.com"
    assert ask(world, "GET", "/git/commits/{commit_sha}", "/git/commits/main").status == 404
    assert ask(world, "GET", "/git/commits/{commit_sha}", f"/git/commits/{TREE}").status == 404


def test_an_annotated_tag_object_then_its_ref(world: World) -> None:
    tagger = {
        "name": "Lee Kim",
        "email": "lee-k@users.noreply.github.com",
        "date": "2026-03-02T09:00:00Z",
    }
    body = {
        "tag": "v0.4.0",
        "message": "tinykv 0.4.0\n",
        "object": MAIN,
        "type": "commit",
        "tagger": tagger,
    }
    made = post(world, "tags", body)
    tag = data(made)
    assert made.status == 201 and (tag["tag"], tag["message"], tag["tagger"]) == (
        "v0.4.0",
        "tinykv 0.4.0\n",
        tagger,
    )
    assert tag["object"] == {"sha": MAIN, "type": "commit", "url": tag["object"]["url"]}
    assert world.git.ref("refs/tags/v0.4.0") is None  # the object only, as on GitHub
    assert data(ask(world, "GET", "/git/tags/{tag_sha}", f"/git/tags/{tag['sha']}")) == tag
    ref = ask(
        world, "POST", "/git/refs", "/git/refs", {"ref": "refs/tags/v0.4.0", "sha": tag["sha"]}
    )
    assert data(ref)["object"]["type"] == "tag"
    assert world.git.resolve("v0.4.0") == MAIN
    seed_tag = post(world, "tags", {**body, "tag": "v0.3.2"})  # a name a ref already has
    assert (
        seed_tag.status == 201
        and world.git.tags()["v0.3.2"] == seeded().seed.commits["release-032"]
    )
    assert message(post(world, "tags", {**body, "object": "f" * 40})) == (
        422,
        "Object does not exist",
    )
    assert ask(world, "GET", "/git/tags/{tag_sha}", f"/git/tags/{MAIN}").status == 404  # a commit


def test_a_folder_where_a_file_was(world: World) -> None:
    entries = [{"path": "LICENSE/MIT.txt", "mode": "100644", "type": "blob", "content": "MIT\n"}]
    tree = data(post(world, "trees", {"base_tree": TREE, "tree": entries}))
    folder = next(e for e in tree["tree"] if e["path"] == "LICENSE")
    assert (folder["type"], folder["mode"]) == ("tree", "040000")
