"""A push or a new pull request starts the workflow runs GitHub starts, exactly when GitHub's
triggers (``on: push`` with its branch filters, ``on: pull_request``) take it; they progress on
the world's clock as dispatched runs do. A workflow file the world lists no workflow for (only
on another branch) starts nothing, and the item records the ``unsupported`` gap."""

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
from pytest_ghxbench.sandbox.operations.run_progress import QUEUED_SECONDS
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.sandbox.workflow_triggers import PUSH_RUNS, would_run

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


def put_file(
    world: World, branch: str, path: str = "NOTES.md", text: bytes = b"a note\n"
) -> list[str]:
    content = base64.b64encode(text).decode()
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


Started = tuple[str, str, str, list[int]]


def started(world: World, since: int) -> list[Started]:
    """The runs started after the first ``since``: workflow, event, branch, pull requests."""
    return [(r.name, r.event, r.head_branch, r.pull_requests) for r in world.workflow_runs[since:]]


def test_a_push_to_main_runs_ci() -> None:
    world = fresh_world()
    runs = len(world.workflow_runs)
    put_file(world, "main")
    assert started(world, runs) == [("CI", "push", "main", [])]
    run = world.workflow_runs[-1]
    assert run.head_sha == world.git.ref("refs/heads/main")
    assert (run.display_title, run.status, run.actor) == ("Add a note", "queued", world.viewer)


def test_a_push_to_a_pull_requests_branch_runs_its_checks() -> None:
    world = fresh_world()
    runs = len(world.workflow_runs)
    put_file(world, "fix/compaction-lock")
    assert started(world, runs) == [("CI", "pull_request", "fix/compaction-lock", [7])]
    pull = world.pull_request(7)
    assert pull is not None and world.workflow_runs[-1].head_sha == pull.head_sha
    assert world.workflow_runs[-1].display_title == pull.title


def test_a_push_that_runs_nothing_on_github_starts_nothing() -> None:
    world = fresh_world()
    runs = len(world.workflow_runs)
    branch = {"ref": "refs/heads/scratch", "sha": world.git.ref("refs/heads/main")}
    assert gaps_of(world, "POST", f"{REPO}/git/refs", branch) == []  # no push trigger takes it
    assert put_file(world, "scratch") == []
    assert started(world, runs) == []


def test_opening_a_pull_request_runs_ci() -> None:
    world = fresh_world()
    main = world.git.ref("refs/heads/main")
    gaps_of(world, "POST", f"{REPO}/git/refs", {"ref": "refs/heads/topic", "sha": main})
    put_file(world, "topic")
    runs = len(world.workflow_runs)
    pull = {"title": "A topic", "head": "topic", "base": "main"}
    gaps_of(world, "POST", f"{REPO}/pulls", pull)
    number = world.pull_requests[-1].number
    assert started(world, runs) == [("CI", "pull_request", "topic", [number])]
    assert world.pull_requests[-1].merge_state_status == "UNSTABLE"  # its checks are pending


def test_a_pushed_run_runs_on_the_wall_clock() -> None:
    world, wall = fresh_world(), [1000.0]
    world.use_wall_clock(lambda: wall[0])
    put_file(world, "main")
    run = world.workflow_runs[-1]

    def state() -> tuple[str, str | None]:
        gaps_of(world, "GET", f"{REPO}/actions/runs/{run.id}")  # the clock moves before it
        return run.status, run.conclusion

    assert state() == ("queued", None)
    wall[0] += QUEUED_SECONDS + 0.5
    assert state() == ("in_progress", None)
    wall[0] += 60
    assert state() == ("completed", "success")


def test_a_workflow_file_the_world_does_not_list_is_a_gap() -> None:
    world = fresh_world()
    runs = len(world.workflow_runs)
    gaps_of(
        world,
        "POST",
        f"{REPO}/git/refs",
        {"ref": "refs/heads/scratch", "sha": world.git.ref("refs/heads/main")},
    )
    flow = b"on: push\njobs: {build: {runs-on: ubuntu-latest, steps: [{run: make}]}}\n"
    assert put_file(world, "scratch", ".github/workflows/new.yml", flow) == [PUSH_RUNS]
    assert started(world, runs) == []
    # on the default branch it is a workflow at once: it runs, and so does CI
    never_run = "a workflow job never run before (it succeeds, with no log)"
    assert put_file(world, "main", ".github/workflows/new.yml", flow) == [never_run]
    assert {r[0] for r in started(world, runs)} == {"CI", ".github/workflows/new.yml"}


def test_a_disabled_workflow_runs_nothing() -> None:
    """CI disabled, and Docs (on: push to main) is disabled in the seed."""
    world = fresh_world()
    ci = world.workflow("ci.yml")
    assert ci is not None
    ci.state = "disabled_manually"
    runs = len(world.workflow_runs)
    assert put_file(world, "main") == []
    assert put_file(world, "fix/compaction-lock") == []
    assert started(world, runs) == []
