"""Dispatched and re-run workflow runs move queued -> in progress -> completed on the world's
clock (mutations and an injected wall clock), with deterministic conclusions, as the REST API
shows them."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

import pytest

from pytest_ghxbench.sandbox.api.rest import RestRouter, handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiUrls
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.operations.run_progress import QUEUED_SECONDS
from pytest_ghxbench.sandbox.operations.workflow_jobs import declared_jobs
from pytest_ghxbench.sandbox.state import World

URLS = ApiUrls.dotcom("http", "github.localhost")
REPO = "/repos/acme-labs/tinykv"
ROUTER = RestRouter()
FAILED_RUN, FAILED_JOB = 13500000003, 37800000007


class Blobs:
    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        return f"{URLS.web}/_blobs/x"


class FakeWall:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def api(world: World, method: str, target: str, body: Any = None) -> Any:
    path, _, query = target.partition("?")
    data = json.dumps(body).encode() if body is not None else b""
    response = handle(
        ROUTER, world, ApiRequest(method, path, parse_qs(query), {}, data, URLS, Blobs())
    )
    assert response.status < 300, response.body[:300]
    return json.loads(response.body) if response.body else None


@pytest.fixture
def world_and_wall() -> tuple[World, FakeWall]:
    built, wall = fresh_world(), FakeWall()
    built.use_wall_clock(wall)
    return built, wall


def dispatch(world: World, ref: str) -> int:
    api(world, "POST", f"{REPO}/actions/workflows/ci.yml/dispatches", {"ref": ref})
    return world.workflow_runs[-1].id


def test_a_dispatched_run_runs_on_the_wall_clock(world_and_wall: tuple[World, FakeWall]) -> None:
    w, wall = world_and_wall
    run_id = dispatch(w, "main")
    run = api(w, "GET", f"{REPO}/actions/runs/{run_id}")
    assert (run["status"], run["conclusion"]) == ("queued", None)
    jobs = api(w, "GET", f"{REPO}/actions/runs/{run_id}/jobs")["jobs"]
    assert [(j["name"], j["status"]) for j in jobs] == [
        ("lint", "queued"),
        ("test (3.11)", "queued"),
        ("test (3.12)", "queued"),
    ]
    wall.now += QUEUED_SECONDS + 1.5
    run = api(w, "GET", f"{REPO}/actions/runs/{run_id}")
    assert run["status"] == "in_progress"
    lint = api(w, "GET", f"{REPO}/actions/runs/{run_id}/jobs")["jobs"][0]
    assert lint["status"] == "in_progress"
    assert [s["status"] for s in lint["steps"]] == ["completed", "in_progress", "queued", "queued"]
    wall.now += 60
    run = api(w, "GET", f"{REPO}/actions/runs/{run_id}")
    assert (run["status"], run["conclusion"]) == ("completed", "success")
    # sane times: queued 2 s, one second a step, the run ends with its longest job
    assert (run["run_started_at"], run["updated_at"]) == (
        "2026-03-01T12:00:01Z",
        "2026-03-01T12:00:10Z",
    )
    lint = api(w, "GET", f"{REPO}/actions/runs/{run_id}/jobs")["jobs"][0]
    assert (lint["started_at"], lint["completed_at"]) == (
        "2026-03-01T12:00:03Z",
        "2026-03-01T12:00:07Z",
    )
    assert [s["completed_at"][-3:] for s in lint["steps"]] == ["04Z", "05Z", "06Z", "07Z"]
    check = api(w, "GET", f"{REPO}/check-runs/{lint['id']}")
    assert (check["status"], check["conclusion"]) == ("completed", "success")


def test_mutations_move_time_without_a_wall_clock() -> None:
    w = fresh_world()
    run_id = dispatch(w, "main")
    for n in range(12):
        api(w, "POST", f"{REPO}/issues/3/comments", {"body": f"ping {n}"})
    assert api(w, "GET", f"{REPO}/actions/runs/{run_id}")["status"] == "completed"


def test_a_dispatch_on_an_earlier_runs_commit_repeats_its_results(
    world_and_wall: tuple[World, FakeWall],
) -> None:
    w, wall = world_and_wall
    run_id = dispatch(w, "fix/compaction-lock")  # the head run 13500000003 ran on
    wall.now += 60
    run = api(w, "GET", f"{REPO}/actions/runs/{run_id}")
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    jobs = api(w, "GET", f"{REPO}/actions/runs/{run_id}/jobs")["jobs"]
    assert [(j["name"], j["conclusion"]) for j in jobs] == [
        ("lint", "success"),
        ("test (3.11)", "success"),
        ("test (3.12)", "failure"),
    ]
    failed = jobs[2]
    annotations = api(w, "GET", f"{REPO}/check-runs/{failed['id']}/annotations")
    assert annotations[0]["message"] == "AssertionError: assert not True"
    names = api(w, "GET", f"{REPO}/actions/runs/{run_id}/artifacts")["artifacts"]
    assert sorted(a["name"] for a in names) == ["coverage-3.11", "test-results-3.12"]


def test_a_rerun_of_the_failed_jobs_fails_again_in_a_new_attempt(
    world_and_wall: tuple[World, FakeWall],
) -> None:
    w, wall = world_and_wall
    api(w, "POST", f"{REPO}/actions/runs/{FAILED_RUN}/rerun-failed-jobs")
    run = api(w, "GET", f"{REPO}/actions/runs/{FAILED_RUN}")
    assert (run["status"], run["run_attempt"]) == ("queued", 2)
    wall.now += 60
    run = api(w, "GET", f"{REPO}/actions/runs/{FAILED_RUN}")
    assert (run["status"], run["conclusion"], run["run_attempt"]) == ("completed", "failure", 2)
    every = api(w, "GET", f"{REPO}/actions/runs/{FAILED_RUN}/jobs?filter=all")["jobs"]
    assert [(j["name"], j["run_attempt"], j["conclusion"]) for j in every] == [
        ("lint", 1, "success"),
        ("test (3.11)", 1, "success"),
        ("test (3.12)", 1, "failure"),
        ("test (3.12)", 2, "failure"),
    ]
    again = w.job(every[-1]["id"])
    assert again is not None and again.log == w.job(FAILED_JOB).log  # type: ignore[union-attr]


def test_cancelling_a_run_in_flight_stops_its_jobs(world_and_wall: tuple[World, FakeWall]) -> None:
    w, wall = world_and_wall
    run_id = dispatch(w, "main")
    wall.now += QUEUED_SECONDS + 1
    api(w, "POST", f"{REPO}/actions/runs/{run_id}/cancel")
    wall.now += 60
    run = api(w, "GET", f"{REPO}/actions/runs/{run_id}")
    assert (run["status"], run["conclusion"]) == ("completed", "cancelled")
    steps = api(w, "GET", f"{REPO}/actions/runs/{run_id}/jobs")["jobs"][0]["steps"]
    assert [s["conclusion"] for s in steps] == ["success", "cancelled", "skipped", "skipped"]


def test_deleting_a_run_takes_its_jobs_checks_and_artifacts(
    world_and_wall: tuple[World, FakeWall],
) -> None:
    w, _ = world_and_wall
    api(w, "DELETE", f"{REPO}/actions/runs/{FAILED_RUN}")
    assert w.workflow_run(FAILED_RUN) is None
    assert not [j for j in w.jobs if j.run_id == FAILED_RUN]
    assert w.check_run(FAILED_JOB) is None and w.check_run(37800000008) is not None
    assert not [a for a in w.artifacts if a.run_id == FAILED_RUN]


def test_the_jobs_a_workflow_file_declares() -> None:
    text = """
jobs:
  lint:
    steps: [{uses: actions/checkout@v4}, {run: "ruff check .\\nmore"}]
  test:
    strategy: {matrix: {py: ["3.11", "3.12"], include: [{py: "3.13"}]}}
    steps: [{name: "Set up Python ${{ matrix.py }}", uses: actions/setup-python@v5}]
  docs:
    name: Build docs
"""
    jobs = declared_jobs(text)
    assert [(j.name, j.steps[1:-1]) for j in jobs] == [
        ("lint", ("Run actions/checkout@v4", "Run ruff check .")),
        ("test (3.11)", ("Set up Python 3.11",)),
        ("test (3.12)", ("Set up Python 3.12",)),
        ("Build docs", ()),
    ]
    assert declared_jobs("not: [a workflow") == [] == declared_jobs("name: x")


def test_an_earlier_attempt_is_shown_as_it_ended(world_and_wall: tuple[World, FakeWall]) -> None:
    w, wall = world_and_wall
    api(w, "POST", f"{REPO}/actions/runs/{FAILED_RUN}/rerun")
    attempts = f"{REPO}/actions/runs/{FAILED_RUN}/attempts"
    first = api(w, "GET", f"{attempts}/1")
    assert (first["run_attempt"], first["status"], first["conclusion"]) == (
        1,
        "completed",
        "failure",
    )
    assert [j["id"] for j in api(w, "GET", f"{attempts}/1/jobs")["jobs"]] == [
        37800000005,
        37800000006,
        FAILED_JOB,
    ]
    assert api(w, "GET", f"{attempts}/2")["status"] == "queued"
    wall.now += 60
    second = api(w, "GET", f"{attempts}/2")
    assert (second["status"], second["conclusion"], second["run_attempt"]) == (
        "completed",
        "failure",
        2,
    )
    assert all(j["run_attempt"] == 2 for j in api(w, "GET", f"{attempts}/2/jobs")["jobs"])
