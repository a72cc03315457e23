"""A push or a new pull request that would start workflow runs on GitHub starts none in the
sandbox, and says so: the item records the ``unsupported`` gap, exactly when GitHub's triggers
(``on: push`` with its branch filters, ``on: pull_request``) would have run a workflow."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import parse_qs

import pytest

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiUrls
from pytest_ghxbench.sandbox.gaps import GapLog, request_scope
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.sandbox.workflow_triggers import PULL_REQUEST_RUNS, PUSH_RUNS, would_run

ROUTER = RestRouter()

URLS = ApiUrls.dotcom("http", "github.localhost")
REPO = "/repos/acme-labs/tinykv"


class Blobs:
    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        raise AssertionError("no blobs here")


def gaps_of(world: World, method: str, target: str, body: Any = None) -> list[str]:
    """The ``unsupported`` gaps one request records (it must succeed)."""
    path, _, query = target.partition("?")
    data = json.dumps(body).encode() if body is not None else b""
    log = GapLog()
    with request_scope(log):
        response = handle(
            ROUTER, world, ApiRequest(method, path, parse_qs(query), {}, data, URLS, Blobs())
        )
    assert response.status < 300, response.body[:300]
    return [g["detail"] for g in log.entries() if g["kind"] == "unsupported"]


def put_file(world: World, branch: str, path: str = "NOTES.md") -> list[str]:
    content = base64.b64encode(b"a note\n").decode()
    body = {"message": "Add a note", "content": content, "branch": branch}
    return gaps_of(world, "PUT", f"{REPO}/contents/{path}", body)


CI = """on:
  push:
    branches: [main, "release/**"]
  pull_request:
    types: [opened]
jobs: {}
"""


@pytest.mark.parametrize(
    ("text", "event", "branch", "activity", "expected"),
    [
        (CI, "push", "main", None, True),
        (CI, "push", "release/1.0/rc", None, True),
        (CI, "push", "feature", None, False),
        (CI, "pull_request", "main", "opened", True),
        (CI, "pull_request", "main", "synchronize", False),
        ("on: push\njobs: {}\n", "push", "anything", None, True),
        ("on: [push, pull_request]\n", "pull_request", "dev", "synchronize", True),
        ("on:\n  push:\n    tags: [v*]\n", "push", "main", None, False),
        ("on:\n  push:\n    branches-ignore: ['dependabot/**']\n", "push", "main", None, True),
        ("on:\n  push:\n    branches: ['*', '!wip*']\n", "push", "wip-1", None, False),
        ("on:\n  push:\n    branches: ['*']\n", "push", "fix/lock", None, False),
        ("on: workflow_dispatch\n", "push", "main", None, False),
        ("on: [", "push", "main", None, False),
    ],
)
def test_triggers_are_read_as_github_reads_them(
    text: str, event: str, branch: str, activity: str | None, expected: bool
) -> None:
    assert would_run(text, event, branch, activity) is expected


def test_a_push_to_main_would_run_ci_and_is_a_gap() -> None:
    world = fresh_world()
    runs = len(world.workflow_runs)
    assert put_file(world, "main") == [PUSH_RUNS]
    assert len(world.workflow_runs) == runs  # nothing was faked into existence


def test_a_push_to_a_pull_requests_branch_would_run_its_checks() -> None:
    world = fresh_world()
    assert put_file(world, "fix/compaction-lock") == [PULL_REQUEST_RUNS]


def test_a_push_that_runs_nothing_on_github_is_no_gap() -> None:
    world = fresh_world()
    branch = {"ref": "refs/heads/scratch", "sha": world.git.ref("refs/heads/main")}
    assert gaps_of(world, "POST", f"{REPO}/git/refs", branch) == []  # no push trigger takes it
    assert put_file(world, "scratch") == []


def test_opening_a_pull_request_would_run_ci() -> None:
    world = fresh_world()
    main = world.git.ref("refs/heads/main")
    gaps_of(world, "POST", f"{REPO}/git/refs", {"ref": "refs/heads/topic", "sha": main})
    put_file(world, "topic")
    pull = {"title": "A topic", "head": "topic", "base": "main"}
    assert gaps_of(world, "POST", f"{REPO}/pulls", pull) == [PULL_REQUEST_RUNS]


def test_a_disabled_workflow_runs_nothing() -> None:
    """CI disabled, and Docs (on: push to main) is disabled in the seed."""
    world = fresh_world()
    ci = world.workflow("ci.yml")
    assert ci is not None
    ci.state = "disabled_manually"
    assert put_file(world, "main") == []
    assert put_file(world, "fix/compaction-lock") == []
