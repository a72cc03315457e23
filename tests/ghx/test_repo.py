"""ghx repo.* capabilities over HTTP: the external repo.* scenarios, reads, errors, and the
answers recorded when they agreed with the former in-process capabilities."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.ghx.conftest import REPO, assert_as_recorded, error, ok, on_dotcom
from tests.ghx.test_issues import run_scenario
from tests.sandbox.conftest import external_atomic

SCENARIOS = external_atomic("repo.")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_external_repo_scenarios_pass_as_ghx_answers(scenario: AtomicScenario) -> None:
    envelope, verdict = run_scenario(scenario)
    assert verdict.passed, (verdict.failures, envelope)


def test_view_reports_the_seeded_repository(world: World) -> None:
    data = ok(world, "repo.view", {"owner": "ACME-labs", "name": "TinyKV"})
    assert (data["name"], data["nameWithOwner"], data["isPrivate"]) == (
        "tinykv",
        "acme-labs/tinykv",
        False,
    )
    assert (data["defaultBranch"], data["stargazerCount"], data["forkCount"]) == ("main", 128, 14)
    assert on_dotcom(data["url"]) == "https://github.com/acme-labs/tinykv"
    assert data["id"] == world.repository.node_id


def test_an_unknown_repository_is_not_found(world: World) -> None:
    assert error(world, "repo.view", {"owner": "acme-labs", "name": "bigkv"}) == {
        "code": "NOT_FOUND",
        "message": "Could not resolve to a Repository with the name 'acme-labs/bigkv'.",
    }


def test_labels_list_shows_every_label(world: World) -> None:
    data = ok(world, "repo.labels.list", {**REPO, "first": 100})
    assert len(data["items"]) == 9
    assert data["items"][0] == {
        "id": world.labels[0].node_id,
        "name": "bug",
        "color": "d73a4a",
        "description": "Something isn't working",
        "isDefault": True,
    }
    first = ok(world, "repo.labels.list", {**REPO, "first": 5})
    after = first["pageInfo"]["endCursor"]
    rest = ok(world, "repo.labels.list", {**REPO, "first": 5, "after": after})
    assert first["items"] + rest["items"] == data["items"]
    assert (first["pageInfo"]["hasNextPage"], rest["pageInfo"]["hasNextPage"]) == (True, False)


def test_issue_types_list(world: World) -> None:
    data = ok(world, "repo.issue_types.list", REPO)
    assert [(t["name"], t["isEnabled"]) for t in data["items"]] == [
        ("Bug", True),
        ("Feature", True),
        ("Task", True),
    ]
    assert data["pageInfo"] == {"hasNextPage": False, "endCursor": data["pageInfo"]["endCursor"]}


def test_milestones_list_counts_issues_by_state(world: World) -> None:
    data = ok(world, "repo.milestones.list", REPO)
    first = data["items"][0]
    # #1, #3, #4 and #5 are open issues in v0.4.0; none is closed (pull request #7, also in
    # it, is not counted).
    assert (first["title"], first["openIssues"], first["closedIssues"]) == ("v0.4.0", 4, 0)
    assert ok(world, "repo.milestones.list", {**REPO, "state": "closed"})["items"] == []


MISSING = {"owner": "acme-labs", "name": "nope"}
DIFFERENTIAL: list[tuple[str, dict[str, Any]]] = [
    ("repo.view", REPO),
    ("repo.view", {"owner": "ACME-labs", "name": "TinyKV"}),
    ("repo.view", MISSING),
    ("repo.view", {"owner": "", "name": "tinykv"}),
    ("repo.labels.list", REPO),
    ("repo.labels.list", {**REPO, "first": 4}),
    ("repo.labels.list", {**REPO, "first": 101}),
    ("repo.labels.list", MISSING),
    ("repo.issue_types.list", REPO),
    ("repo.issue_types.list", {**REPO, "first": 2}),
    ("repo.issue_types.list", MISSING),
    ("repo.milestones.list", REPO),
    ("repo.milestones.list", {**REPO, "state": "all", "first": 1}),
    ("repo.milestones.list", {**REPO, "state": "closed"}),
    ("repo.milestones.list", {**REPO, "state": "bogus"}),
    ("repo.milestones.list", MISSING),
]


def test_differential_covers_every_repo_capability() -> None:
    from pytest_ghxbench.ghx.registry import all_capabilities
    from tests.ghx.test_code import RECORDED, WRITES

    code = {task for task, _ in RECORDED + WRITES}  # the code capabilities are test_code's
    ours = {cap.id for cap in all_capabilities() if cap.id.startswith("repo.")} - code
    assert ours == {task for task, _ in DIFFERENTIAL} and len(ours) == 4


@pytest.mark.parametrize(
    ("task", "input"), DIFFERENTIAL, ids=[f"{t}-{i}" for i, (t, _) in enumerate(DIFFERENTIAL)]
)
def test_same_as_the_world_capability(task: str, input: dict[str, Any]) -> None:
    assert_as_recorded(task, input)
