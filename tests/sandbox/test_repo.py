"""repo.* capabilities."""

from __future__ import annotations

import pytest

from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.sandbox.conftest import REPO, error, external_atomic, needs_external, ok, run_scenario


@needs_external
@pytest.mark.parametrize("scenario", external_atomic("repo."), ids=lambda s: s.id)
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
    assert data["url"] == "https://github.com/acme-labs/tinykv"
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
    # #1, #3, #4 and #5 are open issues in v0.4.0; none is closed.
    assert (first["title"], first["openIssues"], first["closedIssues"]) == ("v0.4.0", 4, 0)
    assert ok(world, "repo.milestones.list", {**REPO, "state": "closed"})["items"] == []
