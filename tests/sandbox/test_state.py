"""The seed, the fixture manifest and per-item copies of the world."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.manifest import (
    DEFAULT_SEED,
    SeedError,
    fresh_world,
    load_seed,
    seeded,
)
from pytest_ghxbench.sandbox.state import World, node_id
from pytest_ghxbench.scenario.manifest import bind_input, missing_resources
from pytest_ghxbench.scenario.models import Scenario
from tests.sandbox.conftest import external_scenarios, issue, needs_external, pull


def test_shipped_seed_has_the_objects_scenarios_need() -> None:
    world = seeded().seed.world
    assert world.repository.full_name == "acme-labs/tinykv"
    bug = issue(world, 3)
    assert bug.parent == 1 and bug.blocked_by == [5]
    assert bug.comments == []  # so that a triage comment is observable
    assert len(issue(world, 5).comments) == 3
    pull = world.pull_request(7)
    assert pull is not None
    assert [t.is_resolved for t in pull.review_threads] == [False, False, True]
    assert any(c.conclusion == "failure" for c in world.check_runs if c.head_sha == pull.head_sha)
    run = world.workflow_run(13500000003)
    assert run is not None and run.conclusion == "failure"
    release = world.release_by_tag("v0.4.0")
    assert release is not None and release.draft


def test_node_ids_are_filled_in_deterministically() -> None:
    world = load_seed(DEFAULT_SEED).world
    again = load_seed(DEFAULT_SEED).world
    assert issue(world, 3).node_id == issue(again, 3).node_id
    assert issue(world, 3).node_id.startswith("I_kwDO")
    assert node_id("I", "acme-labs/tinykv", 3) == issue(world, 3).node_id
    ids = [i.node_id for i in world.issues] + [p.node_id for p in world.pull_requests]
    assert len(set(ids)) == len(ids)


def test_manifest_uses_the_typescript_harness_names(manifest: dict[str, object]) -> None:
    world = seeded().seed.world
    assert manifest["repo"] == {
        "owner": "acme-labs",
        "name": "tinykv",
        "full_name": "acme-labs/tinykv",
        "default_branch": "main",
    }
    resources = manifest["resources"]
    assert isinstance(resources, dict)
    assert resources["issue"] == {
        "id": issue(world, 3).node_id,
        "number": 3,
        "url": "https://github.com/acme-labs/tinykv/issues/3",
    }
    assert resources["pr_thread"] == {"id": "PRRT_kwDOtinykv7001"}
    assert resources["workflow_job"]["id"] == 37800000007
    assert resources["release"] == {"id": 201000002, "tag_name": "v0.4.0"}
    project = resources["project"]
    assert (project["field_id"], project["option_id"]) == ("PVTSSF_kwDOtinykvF0003", "47fc9ee4")


@needs_external
@pytest.mark.parametrize("scenario", external_scenarios(), ids=lambda s: s.id)
def test_every_external_scenario_binds(scenario: Scenario, manifest: dict[str, object]) -> None:
    assert missing_resources(scenario, manifest) == []
    bound = bind_input(scenario, manifest)
    for target in scenario.fixture.bindings if scenario.fixture else {}:
        value = bound[target.split(".", 1)[1]]
        assert "PLACEHOLDER" not in str(value) and value != 0


def test_copies_are_isolated() -> None:
    first, second = fresh_world(), fresh_world()
    issue(first, 3).labels.append("mutated")
    issue(first, 5).comments[0].body = "changed"
    pull(first, 7).review_threads[0].is_resolved = True
    first.projects[0].items[1].field_values["PVTSSF_kwDOtinykvF0003"] = "98236657"
    first.issues.pop()
    first.tick()
    assert issue(second, 3).labels == ["bug", "performance"]
    assert issue(second, 5).comments[0].body.startswith("`Store._lock`")
    assert not pull(second, 7).review_threads[0].is_resolved
    assert second.projects[0].items[1].field_values["PVTSSF_kwDOtinykvF0003"] == "f75ad846"
    assert len(second.issues) == 6
    assert second.clock == "2026-03-01T12:00:00Z"
    assert fresh_world().issue(3).labels == ["bug", "performance"]


def test_clock_and_ids_advance_deterministically(world: World) -> None:
    assert world.tick() == "2026-03-01T12:00:01Z"
    assert world.tick() == "2026-03-01T12:00:02Z"
    assert world.next_id() == 4_000_000_001
    assert world.next_issue_number() == 10


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "seed.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_seed_errors_name_the_file_and_field(tmp_path: Path) -> None:
    text = DEFAULT_SEED.read_text(encoding="utf-8").replace(
        "    stargazer_count: 128", "    stars: 1"
    )
    with pytest.raises(SeedError) as info:
        load_seed(_write(tmp_path, text))
    message = str(info.value)
    assert str(tmp_path / "seed.yaml") in message
    assert "world.repository.stars: Extra inputs are not permitted" in message


def test_seed_resources_must_exist(tmp_path: Path) -> None:
    text = DEFAULT_SEED.read_text(encoding="utf-8").replace(
        "  blocker_issue: 5", "  blocker_issue: 55"
    )
    with pytest.raises(SeedError, match=r"resources.blocker_issue: issue #55 is not defined"):
        load_seed(_write(tmp_path, text))


@pytest.mark.parametrize("text", ["", "- a list\n", "world: [\n"])
def test_seed_must_be_a_yaml_mapping(tmp_path: Path, text: str) -> None:
    with pytest.raises(SeedError, match=r"seed\.yaml"):
        load_seed(_write(tmp_path, text))
