"""A workflow run's timing (``get_workflow_run_usage``) comes from the run's and its jobs' own
times, and bills nothing in a public repository, as GitHub answers."""

from __future__ import annotations

from pytest_ghxbench.sandbox.gaps import GapLog, request_scope
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.operations.run_progress import QUEUED_SECONDS
from tests.sandbox.test_run_progress import REPO, FakeWall, api, dispatch

RUN = 13500000003
"""The seed's failed CI run: started 16:42:33, completed 16:49:05."""


def test_a_finished_runs_duration_is_its_start_to_its_completion() -> None:
    world = fresh_world()
    timing = api(world, "GET", f"{REPO}/actions/runs/{RUN}/timing")
    assert timing == {"billable": {}, "run_duration_ms": 392_000}
    release = api(world, "GET", f"{REPO}/actions/runs/13500000001/timing")
    assert release["run_duration_ms"] == 370_000  # 10:00:02 to 10:06:12


def test_a_run_in_flight_has_run_for_the_time_so_far() -> None:
    world, wall = fresh_world(), FakeWall()
    world.use_wall_clock(wall)
    run = dispatch(world, "main")
    assert api(world, "GET", f"{REPO}/actions/runs/{run}/timing")["run_duration_ms"] == 0
    wall.now += QUEUED_SECONDS + 1
    in_flight = api(world, "GET", f"{REPO}/actions/runs/{run}/timing")
    assert api(world, "GET", f"{REPO}/actions/runs/{run}")["status"] == "in_progress"
    assert in_flight["run_duration_ms"] == (QUEUED_SECONDS + 1) * 1000
    wall.now += 600
    done = api(world, "GET", f"{REPO}/actions/runs/{run}")
    assert done["status"] == "completed"
    final = api(world, "GET", f"{REPO}/actions/runs/{run}/timing")["run_duration_ms"]
    assert final < 600_000  # it stopped counting when the run completed
    assert final == api(world, "GET", f"{REPO}/actions/runs/{run}/timing")["run_duration_ms"]


def test_a_workflows_usage_is_not_billed_in_a_public_repository() -> None:
    world = fresh_world()
    assert api(world, "GET", f"{REPO}/actions/workflows/ci.yml/timing") == {"billable": {}}


def test_a_private_repository_is_billed_per_job_and_says_what_it_assumes() -> None:
    world = fresh_world()
    world.repository.visibility = "PRIVATE"
    log = GapLog()
    with request_scope(log):
        timing = api(world, "GET", f"{REPO}/actions/runs/{RUN}/timing")
    jobs = {  # lint 16:42:40-16:43:31, test (3.11) 16:42:41-16:48:02, test (3.12) -16:49:01
        37800000005: 51_000,
        37800000006: 321_000,
        37800000007: 380_000,
    }
    assert timing["billable"] == {
        "UBUNTU": {
            "total_ms": sum(jobs.values()),
            "jobs": 3,
            "job_runs": [{"job_id": k, "duration_ms": v} for k, v in jobs.items()],
        }
    }
    assert [g["kind"] for g in log.entries()] == ["unsupported"]
    flow = api(world, "GET", f"{REPO}/actions/workflows/ci.yml/timing")
    assert flow == {"billable": {}}  # no CI job completed in the clock's month (March 2026)
