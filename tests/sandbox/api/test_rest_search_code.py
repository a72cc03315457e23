"""``GET /search/code`` and ``GET /search/commits`` over the seed's repository (its default
branch), with the qualifiers agents use; the published shapes, and text matches that point at
the matched text."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.manifest import fresh_world, seeded
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_rest_conformance import call, check

REPO = "repo:acme-labs/tinykv"
MAIN = seeded().seed.commits["bench"]


@pytest.fixture(scope="module")
def world() -> World:
    return fresh_world()


def search(world: World, kind: str, q: str, **headers: str) -> ApiResponse:
    response = call(world, "GET", f"/search/{kind}?q={quote(q)}", **headers)
    check("GET", f"/search/{kind}", response)
    return response


def found(world: World, kind: str, q: str, **params: str) -> list[Any]:
    extra = "".join(f"&{k}={v}" for k, v in params.items())
    response = call(world, "GET", f"/search/{kind}?q={quote(q)}{extra}")
    check("GET", f"/search/{kind}", response)
    assert response.status == 200, response.body
    items = json.loads(response.body)["items"]
    if kind == "code":
        return [item["path"] for item in items]
    return [item["sha"] for item in items]


@pytest.mark.parametrize(
    ("q", "paths"),
    [
        (
            f"WriteAheadLog {REPO}",
            {"src/tinykv/store.py", "src/tinykv/wal.py", "tests/test_wal.py"},
        ),
        (f"snapshot_writer {REPO}", {"src/tinykv/store.py", "src/tinykv/compaction.py"}),
        (f'"max segments" {REPO}', {"src/tinykv/compaction.py"}),  # max_segments
        (f"WriteAheadLog {REPO} path:src/tinykv filename:wal.py", {"src/tinykv/wal.py"}),
        (
            f"WriteAheadLog {REPO} -filename:wal.py extension:py",
            {"src/tinykv/store.py", "tests/test_wal.py"},
        ),
        (f"pytest {REPO} language:yaml", {".github/workflows/ci.yml"}),
        (f"tinykv {REPO} path:/ language:markdown", {"README.md"}),
        (
            f"compaction {REPO} in:path",
            {"src/tinykv/compaction.py", "tests/test_compaction.py", "benchmarks/compaction.py"},
        ),
        (f"filename:conftest.py {REPO}", {"tests/conftest.py"}),
        ("WriteAheadLog -repo:acme-labs/tinykv", set()),
    ],
)
def test_code_search_qualifiers(world: World, q: str, paths: set[str]) -> None:
    assert set(found(world, "code", q)) == paths


def test_code_search_items_and_text_matches(world: World) -> None:
    plain = json.loads(search(world, "code", f"WriteAheadLog {REPO} filename:wal.py").body)
    item = plain["items"][0]
    entry = world.git.entry(MAIN, "src/tinykv/wal.py")
    assert entry is not None and (item["name"], item["sha"]) == ("wal.py", entry.sha)
    assert item["repository"]["full_name"] == "acme-labs/tinykv" and "text_matches" not in item
    assert item["html_url"].endswith(f"/blob/{MAIN}/src/tinykv/wal.py")
    media = "application/vnd.github.text-match+json"
    matched = json.loads(search(world, "code", f"replay {REPO}", accept=media).body)
    assert matched["total_count"] >= 2
    for hit in matched["items"]:
        assert hit["text_matches"], hit["path"]
        for text_match in hit["text_matches"]:
            fragment = text_match["fragment"]
            for match in text_match["matches"]:
                start, end = match["indices"]
                assert fragment[start:end].lower() == match["text"].lower() == "replay"


def test_code_search_wants_a_term_and_a_query(world: World) -> None:
    only = search(world, "code", f"{REPO} language:python")
    assert only.status == 422 and json.loads(only.body)["errors"][0]["field"] == "q"
    assert call(world, "GET", "/search/code").status == 422


def _commits(world: World, label: str) -> str:
    return seeded().seed.commits[label]


@pytest.mark.parametrize(
    ("q", "labels"),
    [
        (f"compaction {REPO}", ["bench", "compaction"]),
        (f"{REPO} author:lee-k", ["readme-fix", "put-batch", "docs-workflow"]),
        (f"{REPO} merge:true", ["merge-9"]),
        (f"{REPO} author-date:<2024-06-01", ["initial"]),
        (f"{REPO} author-date:<=2024-06-01", ["release-workflow", "initial"]),
        (
            f"segment {REPO} committer-email:dana-ops@users.noreply.github.com",
            ["segment-size", "segments"],
        ),
        (f"snapshot {REPO} -author:mona", ["bench"]),
    ],
)
def test_commit_search_qualifiers(world: World, q: str, labels: list[str]) -> None:
    expected = [_commits(world, label) for label in labels]
    assert found(world, "commits", q) == expected


def test_commit_search_items_hashes_and_order(world: World) -> None:
    sha = _commits(world, "typing")
    answer = json.loads(search(world, "commits", f"hash:{sha[:10]} {REPO}").body)
    (item,) = answer["items"]
    assert (item["sha"], item["author"]["login"]) == (sha, "octocat")
    assert item["commit"]["message"] == "Add type hints to the public API"
    assert item["repository"]["full_name"] == "acme-labs/tinykv"
    oldest = found(world, "commits", REPO, sort="author-date", order="asc")
    assert oldest[0] == _commits(world, "initial") and oldest[-1] == MAIN
