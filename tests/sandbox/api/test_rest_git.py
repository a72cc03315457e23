"""Git refs, writing files, opening pull requests and commenting on lines: GitHub's status
codes and messages, the published response shapes, and the world they leave behind."""

from __future__ import annotations

import base64
import json
from typing import Any

from pytest_ghxbench.sandbox.api.types import ApiResponse
from pytest_ghxbench.sandbox.manifest import seeded
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_rest_conformance import call, check

REPO = "/repos/{owner}/{repo}"
BASE = "/repos/acme-labs/tinykv"
MAIN = seeded().seed.commits["bench"]
"""main's tip in the seed."""


def ask(world: World, method: str, template: str, path: str, body: Any = None) -> ApiResponse:
    """``method`` on ``BASE + path``, checked against the operation ``REPO + template``."""
    response = call(world, method, BASE + path, body)
    check(method, REPO + template, response)
    return response


def data(response: ApiResponse) -> Any:
    return json.loads(response.body)


def write(world: World, branch: str, path: str, text: str, sha: str | None = None) -> ApiResponse:
    body = {"message": f"write {path}", "content": base64.b64encode(text.encode()).decode()}
    body |= {"branch": branch, **({"sha": sha} if sha else {})}
    response = call(world, "PUT", f"{BASE}/contents/{path}", body)
    if response.status != 409:  # GitHub's schemas for it overlap: a body matches both of oneOf
        check("PUT", REPO + "/contents/{path}", response)
    return response


def branch_from_main(world: World, name: str) -> None:
    created = ask(
        world, "POST", "/git/refs", "/git/refs", {"ref": f"refs/heads/{name}", "sha": MAIN}
    )
    assert created.status == 201


def test_refs_of_branches_and_tags(world: World) -> None:
    main = ask(world, "GET", "/git/ref/{ref}", "/git/ref/heads/main")
    assert data(main)["object"]["sha"] == MAIN and data(main)["ref"] == "refs/heads/main"
    tag = data(ask(world, "GET", "/git/ref/{ref}", "/git/ref/tags/v0.3.2"))
    assert tag["ref"] == "refs/tags/v0.3.2"
    assert ask(world, "GET", "/git/ref/{ref}", "/git/ref/heads/nope").status == 404
    assert ask(world, "GET", "/git/ref/{ref}", "/git/ref/tags/v0.4.0").status == 404  # a draft's


def test_creating_and_deleting_refs(world: World) -> None:
    branch_from_main(world, "topic/one")
    assert (
        data(ask(world, "GET", "/git/ref/{ref}", "/git/ref/heads/topic/one"))["object"]["sha"]
        == MAIN
    )
    again = ask(
        world, "POST", "/git/refs", "/git/refs", {"ref": "refs/heads/topic/one", "sha": MAIN}
    )
    assert (again.status, data(again)["message"]) == (422, "Reference already exists")
    unknown = {"ref": "refs/heads/x", "sha": "0" * 40}
    assert data(ask(world, "POST", "/git/refs", "/git/refs", unknown))["message"] == (
        "Object does not exist"
    )
    missing = ask(world, "POST", "/git/refs", "/git/refs", {"ref": "refs/heads/x"})
    assert missing.status == 422 and data(missing)["errors"][0]["field"] == "sha"
    tag = ask(world, "POST", "/git/refs", "/git/refs", {"ref": "refs/tags/t1", "sha": MAIN})
    assert tag.status == 201 and world.git.tags() == {
        "t1": MAIN,
        "v0.3.2": seeded().seed.commits["release-032"],
    }

    assert ask(world, "DELETE", "/git/refs/{ref}", "/git/refs/heads/topic/one").status == 204
    gone = ask(world, "DELETE", "/git/refs/{ref}", "/git/refs/heads/topic/one")
    assert (gone.status, data(gone)["message"]) == (422, "Reference does not exist")
    assert ask(world, "DELETE", "/git/refs/{ref}", "/git/refs/tags/t1").status == 204
    assert ask(world, "DELETE", "/git/refs/{ref}", "/git/refs/heads/main").status == 422


def test_deleting_a_published_release_tag_makes_the_release_a_draft(world: World) -> None:
    assert ask(world, "DELETE", "/git/refs/{ref}", "/git/refs/tags/v0.3.2").status == 204
    release = world.release_by_tag("v0.3.2")
    assert release is not None and release.draft


def test_writing_a_file_makes_a_commit_on_the_branch(world: World) -> None:
    branch_from_main(world, "docs")
    created = write(world, "docs", "docs/a.md", "one\ntwo\n")
    answer = data(created)
    assert created.status == 201 and answer["content"]["path"] == "docs/a.md"
    assert answer["commit"]["parents"][0]["sha"] == MAIN
    head = data(ask(world, "GET", "/git/ref/{ref}", "/git/ref/heads/docs"))["object"]["sha"]
    assert head == answer["commit"]["sha"] != MAIN
    unsupplied = write(world, "docs", "docs/a.md", "three\n")
    assert unsupplied.status == 422 and "sha" in data(unsupplied)["message"]
    assert write(world, "docs", "docs/a.md", "three\n", sha="0" * 40).status == 409
    updated = write(world, "docs", "docs/a.md", "three\n", sha=answer["content"]["sha"])
    assert updated.status == 200
    assert write(world, "nope", "a.md", "x").status == 404


def test_a_pull_request_from_a_branch_and_a_thread_on_its_line(world: World) -> None:
    branch_from_main(world, "feature")
    same = {"title": "Empty", "head": "feature", "base": "main"}
    empty = ask(world, "POST", "/pulls", "/pulls", same)
    assert empty.status == 422 and "No commits between main and feature" in empty.body.decode()
    written = data(write(world, "feature", "notes.md", "# Notes\n\nA line.\n"))
    opened = ask(world, "POST", "/pulls", "/pulls", {**same, "title": "Notes", "body": "Adds."})
    pull = data(opened)
    assert opened.status == 201 and pull["head"]["sha"] == written["commit"]["sha"]
    assert pull["number"] == 10 and pull["state"] == "open" and pull["user"]["login"] == "bench-bot"
    again = ask(world, "POST", "/pulls", "/pulls", same)
    assert "A pull request already exists" in again.body.decode()

    number = pull["number"]
    comment = {
        "body": "Reword this",
        "commit_id": written["commit"]["sha"],
        "path": "notes.md",
        "line": 3,
        "side": "RIGHT",
    }
    template = "/pulls/{pull_number}/comments"
    made = ask(world, "POST", template, f"/pulls/{number}/comments", comment)
    note = data(made)
    assert made.status == 201 and (note["line"], note["path"]) == (3, "notes.md")
    assert note["diff_hunk"].endswith("+A line.")
    created = world.pull_request(number)
    assert created is not None and len(created.review_threads) == 1
    assert created.review_threads[0].node_id.startswith("PRRT_")
    assert created.reviews[-1].state == "COMMENTED"
    outside = ask(world, "POST", template, f"/pulls/{number}/comments", {**comment, "line": 9})
    assert outside.status == 422 and "must be part of the diff" in outside.body.decode()
    reply = {"body": "Done", "in_reply_to": note["id"]}
    replied = ask(world, "POST", template, f"/pulls/{number}/comments", reply)  # pulls.py's
    assert replied.status == 201 and len(created.review_threads[0].comments) == 2

    # deleting the head branch closes the pull request
    assert ask(world, "DELETE", "/git/refs/{ref}", "/git/refs/heads/feature").status == 204
    assert created.state == "CLOSED"
