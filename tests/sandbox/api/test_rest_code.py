"""Code through the REST API: contents and READMEs, deleting files, branches, source archives
and languages, read from the world's git repository; GitHub's status codes and messages, and
the published response shapes."""

from __future__ import annotations

import base64
import io
import json
import tarfile
import zipfile
from typing import Any
from urllib.parse import parse_qs

import jsonschema  # type: ignore[import-untyped]
import pytest

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse
from pytest_ghxbench.sandbox.manifest import seeded
from pytest_ghxbench.sandbox.state import World
from tests.code import commit_on, protect
from tests.sandbox.api.test_rest_conformance import SUBSET, URLS, call, check

ROUTER = RestRouter()

REPO = "/repos/{owner}/{repo}"
BASE = "/repos/acme-labs/tinykv"
MAIN = seeded().seed.commits["bench"]
LOCK = seeded().seed.commits["lock-3"]
TAGGED = seeded().seed.commits["release-032"]


def ask(
    world: World, method: str, template: str, path: str, body: Any = None, **headers: str
) -> ApiResponse:
    """``method`` on ``BASE + path``, checked against the operation ``REPO + template``."""
    response = call(world, method, BASE + path, body, **headers)
    check(method, REPO + template, response)
    return response


def data(response: ApiResponse) -> Any:
    return json.loads(response.body)


def contents(world: World, path: str, **headers: str) -> ApiResponse:
    return ask(world, "GET", "/contents/{path}", f"/contents/{path}", **headers)


def raw(world: World, path: str, accept: str = "application/vnd.github.raw") -> ApiResponse:
    """``GET BASE + path`` with a raw media type (bytes, no JSON to check)."""
    response = call(world, "GET", BASE + path, accept=accept)
    assert response.status == 200, response.body[:200]
    return response


def text_at(world: World, commit: str, path: str) -> bytes:
    found = world.git.read(commit, path)
    assert found is not None
    return found


# ---------------------------------------------------------------------------------- contents


def test_a_file_comes_with_its_content_in_base64_lines(world: World) -> None:
    answer = data(contents(world, "src/tinykv/wal.py"))
    assert (answer["type"], answer["encoding"], answer["path"]) == (
        "file",
        "base64",
        "src/tinykv/wal.py",
    )
    assert base64.b64decode(answer["content"]) == text_at(world, MAIN, "src/tinykv/wal.py")
    lines = answer["content"].split("\n")
    assert lines[-1] == "" and all(len(line) <= 60 for line in lines)
    entry = world.git.entry(MAIN, "src/tinykv/wal.py")
    assert entry is not None and (answer["sha"], answer["size"]) == (entry.sha, entry.size)
    assert answer["url"].endswith("/contents/src/tinykv/wal.py?ref=main")
    assert (
        answer["download_url"]
        == "http://raw.github.localhost/acme-labs/tinykv/main/src/tinykv/wal.py"
    )
    assert (
        answer["_links"]["html"]
        == "http://github.localhost/acme-labs/tinykv/blob/main/src/tinykv/wal.py"
    )


@pytest.mark.parametrize(
    ("ref", "commit"),
    [
        ("fix/compaction-lock", LOCK),
        ("refs/heads/fix/compaction-lock", LOCK),
        ("v0.3.2", TAGGED),
        (LOCK, LOCK),
        (LOCK[:10], LOCK),
    ],
)
def test_a_file_at_a_branch_tag_or_sha(world: World, ref: str, commit: str) -> None:
    answer = data(contents(world, f"src/tinykv/compaction.py?ref={ref}"))
    assert base64.b64decode(answer["content"]) == text_at(world, commit, "src/tinykv/compaction.py")
    assert answer["url"].endswith(f"?ref={ref}")


def test_a_directory_is_listed_in_git_order(world: World) -> None:
    listed = data(contents(world, "src/tinykv"))
    names = [
        e.name
        for e in world.git.tree(MAIN, recursive=True) or []
        if e.path.startswith("src/tinykv/")
    ]
    assert [item["name"] for item in listed] == names
    assert {item["type"] for item in listed} == {"file"}
    root = data(ask(world, "GET", "/contents/{path}", "/contents"))
    assert [i["name"] for i in root][:3] == [".github", ".gitignore", "LICENSE"]
    folder = next(i for i in root if i["name"] == "src")
    assert (folder["type"], folder["size"], folder["download_url"]) == ("dir", 0, None)
    assert folder["git_url"].endswith(f"/git/trees/{folder['sha']}")
    assert data(ask(world, "GET", "/contents/{path}", "/contents/")) == root


def test_the_raw_and_object_media_types(world: World) -> None:
    readme = raw(world, "/contents/README.md", "application/vnd.github.raw+json")
    assert readme.body == text_at(world, MAIN, "README.md")
    assert readme.headers["Content-Type"].startswith("text/plain")
    assert raw(world, "/contents/README.md", "application/vnd.github.v3.raw").body == readme.body
    media = "application/vnd.github.object"
    whole = call(world, "GET", f"{BASE}/contents/src", accept=media)
    schemas = SUBSET["operations"][f"GET {REPO}/contents/{{path}}"]["responses"]["200"]
    jsonschema.validate(data(whole), {**schemas[media], "components": SUBSET["components"]})
    tree = data(whole)
    assert (tree["type"], tree["path"]) == ("dir", "src")
    assert [(e["name"], e["type"]) for e in tree["entries"]] == [("tinykv", "dir")]


def test_missing_paths_and_refs_are_github_s_404s(world: World) -> None:
    missing = contents(world, "src/nope.py")
    assert (missing.status, data(missing)["message"]) == (404, "Not Found")
    unknown = contents(world, "README.md?ref=no-such-branch")
    assert (unknown.status, data(unknown)["message"]) == (
        404,
        "No commit found for the ref no-such-branch",
    )


def test_a_file_over_a_megabyte_comes_without_content(world: World) -> None:
    big = "x" * 1_100_000
    commit_on(world, "main", {"data/big.txt": big}, "Add a big file")
    answer = data(contents(world, "data/big.txt"))
    assert (answer["content"], answer["encoding"], answer["size"]) == ("", "none", 1_100_000)
    assert raw(world, "/contents/data/big.txt").body == big.encode()


def _tree_commit(world: World, entries: list[dict[str, Any]]) -> str:
    """Commit ``entries`` on main through the git data API; the new commit's sha."""
    tree = data(call(world, "POST", f"{BASE}/git/trees", {"base_tree": MAIN, "tree": entries}))
    made = {"message": "links", "tree": tree["sha"], "parents": [MAIN]}
    commit = data(call(world, "POST", f"{BASE}/git/commits", made))["sha"]
    assert call(world, "PATCH", f"{BASE}/git/refs/heads/main", {"sha": commit}).status == 200
    return str(commit)


def test_symlinks_and_submodules(world: World) -> None:
    module = "1" * 40
    gitmodules = '[submodule "vendor/lib"]\n\tpath = vendor/lib\n\turl = https://github.com/acme-labs/lib.git\n'
    _tree_commit(
        world,
        [
            {"path": "README.txt", "mode": "120000", "type": "blob", "content": "README.md"},
            {"path": "source", "mode": "120000", "type": "blob", "content": "src"},
            {"path": ".gitmodules", "mode": "100644", "type": "blob", "content": gitmodules},
            {"path": "vendor/lib", "mode": "160000", "type": "commit", "sha": module},
        ],
    )
    followed = data(contents(world, "README.txt"))  # a link to a file answers with the file
    assert followed["path"] == "README.md"
    assert base64.b64decode(followed["content"]) == text_at(world, MAIN, "README.md")
    link = data(contents(world, "source"))
    assert (link["type"], link["target"]) == ("symlink", "src")
    sub = data(contents(world, "vendor/lib"))
    assert (sub["type"], sub["sha"]) == ("submodule", module)
    assert sub["submodule_git_url"] == "https://github.com/acme-labs/lib.git"
    assert [i["type"] for i in data(contents(world, "vendor"))] == ["file"]  # as GitHub lists it


# ---------------------------------------------------------------------------------- readme


def test_the_readme_at_the_root_in_a_folder_and_at_a_ref(world: World) -> None:
    readme = data(ask(world, "GET", "/readme", "/readme"))
    assert readme["path"] == "README.md"
    assert base64.b64decode(readme["content"]) == text_at(world, MAIN, "README.md")
    old = data(ask(world, "GET", "/readme", "/readme?ref=v0.3.2"))
    assert base64.b64decode(old["content"]) == text_at(world, TAGGED, "README.md")
    assert raw(world, "/readme").body == text_at(world, MAIN, "README.md")
    assert ask(world, "GET", "/readme/{dir}", "/readme/docs").status == 404
    commit_on(world, "main", {"docs/ReadMe.rst": "Docs\n====\n"})
    in_docs = data(ask(world, "GET", "/readme/{dir}", "/readme/docs"))
    assert in_docs["path"] == "docs/ReadMe.rst"
    assert ask(world, "GET", "/readme", "/readme?ref=nope").status == 404


# ---------------------------------------------------------------------------------- writes


def test_deleting_a_file_commits_its_removal_on_the_branch(world: World) -> None:
    entry = world.git.entry(LOCK, "tests/test_compaction.py")
    assert entry is not None
    body = {"message": "Drop the test", "sha": entry.sha, "branch": "fix/compaction-lock"}
    deleted = ask(world, "DELETE", "/contents/{path}", "/contents/tests/test_compaction.py", body)
    answer = data(deleted)
    assert deleted.status == 200 and answer["content"] is None
    assert answer["commit"]["parents"][0]["sha"] == LOCK
    assert answer["commit"]["message"] == "Drop the test"
    head = world.git.ref("refs/heads/fix/compaction-lock")
    assert (
        head == answer["commit"]["sha"]
        and world.git.entry(head, "tests/test_compaction.py") is None
    )
    pull = world.pull_request(7)
    assert pull is not None and pull.head_sha == head  # the pull request follows its branch
    again = ask(world, "DELETE", "/contents/{path}", "/contents/tests/test_compaction.py", body)
    assert (again.status, data(again)["message"]) == (404, "Not Found")


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"message": "m"}, 422, 'Invalid request.\n\n"sha" wasn\'t supplied.'),
        ({"sha": "x"}, 422, 'Invalid request.\n\n"message" wasn\'t supplied.'),
        ({"message": "m", "sha": "0" * 40}, 409, "README.md does not match " + "0" * 40),
        ({"message": "m", "sha": "0" * 40, "branch": "nope"}, 404, "Branch nope not found"),
    ],
)
def test_deleting_a_file_refuses_as_github_does(
    world: World, body: dict[str, str], status: int, message: str
) -> None:
    refused = call(world, "DELETE", f"{BASE}/contents/README.md", body)
    if status != 409:  # GitHub's schemas for 409 overlap
        check("DELETE", REPO + "/contents/{path}", refused)
    assert (refused.status, data(refused)["message"]) == (status, message)
    assert world.git.ref("refs/heads/main") == MAIN


def test_a_file_written_then_deleted_through_the_contents_api(world: World) -> None:
    put = {"message": "Add", "content": base64.b64encode(b"hello\n").decode(), "branch": "main"}
    made = data(ask(world, "PUT", "/contents/{path}", "/contents/notes/hello.txt", put))
    assert made["content"]["download_url"].endswith("/main/notes/hello.txt")
    assert base64.b64decode(data(contents(world, "notes/hello.txt"))["content"]) == b"hello\n"
    gone = {"message": "Remove", "sha": made["content"]["sha"]}
    assert ask(world, "DELETE", "/contents/{path}", "/contents/notes/hello.txt", gone).status == 200
    assert contents(world, "notes/hello.txt").status == 404
    assert contents(world, "notes").status == 404  # git keeps no empty folder


# ---------------------------------------------------------------------------------- branches


def test_one_branch_with_its_commit_and_protection(world: World) -> None:
    main = data(ask(world, "GET", "/branches/{branch}", "/branches/main"))
    assert (main["name"], main["commit"]["sha"], main["protected"]) == ("main", MAIN, False)
    assert main["protection"]["enabled"] is False
    assert main["_links"]["html"] == "http://github.localhost/acme-labs/tinykv/tree/main"
    lock = data(ask(world, "GET", "/branches/{branch}", "/branches/fix/compaction-lock"))
    assert lock["commit"]["sha"] == LOCK and lock["commit"]["commit"]["message"]
    protect(world, "main")
    assert data(ask(world, "GET", "/branches/{branch}", "/branches/main"))["protection"]["enabled"]
    missing = ask(world, "GET", "/branches/{branch}", "/branches/nope")
    assert (missing.status, data(missing)["message"]) == (404, "Branch not found")


def test_renaming_branches(world: World) -> None:
    renamed = ask(
        world, "POST", "/branches/{branch}/rename", "/branches/main/rename", {"new_name": "trunk"}
    )
    assert renamed.status == 201 and data(renamed)["name"] == "trunk"
    assert world.repository.default_branch == "trunk" == world.git.default_branch
    pull = world.pull_request(7)
    assert pull is not None and (pull.base_ref, pull.state) == ("trunk", "OPEN")
    ask(
        world,
        "POST",
        "/branches/{branch}/rename",
        "/branches/feat/wal-fsync-policy/rename",
        {"new_name": "feat/fsync"},
    )
    draft = world.pull_request(8)
    assert draft is not None and draft.state == "CLOSED"  # GitHub closes pull requests from it
    taken = ask(
        world,
        "POST",
        "/branches/{branch}/rename",
        "/branches/trunk/rename",
        {"new_name": "feat/fsync"},
    )
    assert taken.status == 422
    assert (
        ask(
            world, "POST", "/branches/{branch}/rename", "/branches/nope/rename", {"new_name": "x"}
        ).status
        == 404
    )


# ---------------------------------------------------------------------------------- archives


class Store:
    """A blob store that keeps what it is given, by link."""

    def __init__(self) -> None:
        self.blobs: dict[str, tuple[bytes, str | None]] = {}

    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        link = f"http://github.localhost/_blobs/k{len(self.blobs) + 1}"
        self.blobs[link] = (data, filename)
        return link


def archive(world: World, path: str) -> tuple[ApiResponse, Store]:
    store = Store()
    request = ApiRequest("GET", BASE + path, parse_qs(""), {}, b"", URLS, store)
    return handle(ROUTER, world, request), store


def test_a_tarball_is_git_archive_of_the_commit_behind_a_download_link(world: World) -> None:
    for path in ("/tarball/main", "/tarball"):
        response, store = archive(world, path)
        check("GET", REPO + "/tarball/{ref}", response)
        location = response.headers["Location"]
        assert response.status == 302 and location.endswith("/legacy.tar.gz/refs/heads/main")
        ((data_, name),) = store.blobs.values()
        assert location.startswith(next(iter(store.blobs)))
        assert name == f"acme-labs-tinykv-{MAIN[:7]}.tar.gz"
        with tarfile.open(fileobj=io.BytesIO(data_)) as tar:
            prefix = f"acme-labs-tinykv-{MAIN[:7]}/"
            assert all(f"{n}/".startswith(prefix) for n in tar.getnames())
            assert tar.pax_headers["comment"] == MAIN  # git archive's, as in GitHub's
            readme = tar.extractfile(prefix + "README.md")
            assert readme is not None and readme.read() == text_at(world, MAIN, "README.md")


def test_a_tag_s_zipball_also_offers_the_web_s_archive(world: World) -> None:
    response, store = archive(world, "/zipball/v0.3.2")
    assert response.status == 302
    location = response.headers["Location"]
    assert "/legacy.zip/refs/tags/v0.3.2?alt=" in location
    (legacy, legacy_name), (web, web_name) = store.blobs.values()
    assert legacy_name == f"acme-labs-tinykv-v0.3.2-0-g{TAGGED[:7]}.zip"
    assert web_name == "tinykv-0.3.2.zip"
    names = zipfile.ZipFile(io.BytesIO(web)).namelist()
    assert "tinykv-0.3.2/src/tinykv/store.py" in names
    assert (
        f"acme-labs-tinykv-{TAGGED[:7]}/README.md" in zipfile.ZipFile(io.BytesIO(legacy)).namelist()
    )
    assert archive(world, "/zipball/nope")[0].status == 404


# ---------------------------------------------------------------------------------- languages


def test_languages_count_programming_code_only(world: World) -> None:
    python = sum(
        e.size or 0 for e in world.git.tree(MAIN, recursive=True) or [] if e.path.endswith(".py")
    )
    assert data(ask(world, "GET", "/languages", "/languages")) == {"Python": python}
    commit_on(
        world,
        "main",
        {
            "scripts/bench.sh": "#!/bin/sh\necho hi\n",
            "docs/conf.py": "x = 1\n",
            "notes.toml": "a = 1\n",
        },
    )
    assert data(ask(world, "GET", "/languages", "/languages")) == {"Python": python, "Shell": 18}
