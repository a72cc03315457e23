"""ghx release capabilities over HTTP: listing, reading, and the draft-first release flow."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.sandbox.manifest import seeded
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.ghx.conftest import error, ok
from tests.ghx.test_actions import github_urls, run_scenario, same_as_world
from tests.sandbox.conftest import external_atomic, needs_external

SCENARIOS = external_atomic("release.")
REPO = {"owner": "acme-labs", "name": "tinykv"}
PUBLISHED, DRAFT = 201000001, 201000002
SHA = seeded().seed.commits["bench"]


def data(world: World, task: str, **input: Any) -> Any:
    return github_urls(ok(world, task, {**REPO, **input}))


def code(world: World, task: str, **input: Any) -> str:
    return str(error(world, task, {**REPO, **input})["code"])


def listed(world: World) -> list[tuple[str, bool]]:
    return [(r["tagName"], r["isDraft"]) for r in data(world, "release.list")["items"]]


@needs_external
def test_every_external_release_scenario_is_covered() -> None:
    assert len(SCENARIOS) == 5


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.id)
def test_external_scenario_passes_in_ghx_mode(scenario: AtomicScenario) -> None:
    envelope, verdict = run_scenario(scenario)
    assert verdict.passed, verdict.failures
    assert envelope["meta"]["capability_id"] == scenario.task


_DIFFERENTIAL: list[tuple[str, dict[str, Any]]] = [
    ("release.list", {}),
    ("release.list", {"first": 1}),
    ("release.list", {"name": "other"}),
    *[("release.get", {"tagName": tag}) for tag in ("v0.3.2", "v0.4.0", "v9.9.9")],
    ("release.create_draft", {"tagName": "v0.5.0"}),
    ("release.create_draft", {"tagName": "v0.5.0", "title": "T", "notes": "N", "prerelease": True}),
    ("release.create_draft", {"tagName": "v0.4.0", "targetCommitish": SHA}),
    ("release.create_draft", {"tagName": "v0.3.2"}),
    ("release.create_draft", {"tagName": "v1", "targetCommitish": "nope"}),
    ("release.create_draft", {"tagName": ""}),
    ("release.update", {"releaseId": DRAFT, "title": "New", "notes": "Body", "draft": True}),
    ("release.update", {"releaseId": DRAFT, "tagName": "v0.4.1", "targetCommitish": SHA}),
    ("release.update", {"releaseId": DRAFT, "tagName": "v0.3.2"}),
    ("release.update", {"releaseId": DRAFT}),
    ("release.update", {"releaseId": DRAFT, "prerelease": True}),
    ("release.update", {"releaseId": PUBLISHED, "title": "Renamed"}),
    ("release.update", {"releaseId": PUBLISHED, "tagName": "v0.3.2"}),
    ("release.update", {"releaseId": DRAFT, "draft": False}),
    ("release.update", {"releaseId": PUBLISHED, "draft": True}),
    ("release.update", {"releaseId": DRAFT, "targetCommitish": "nope"}),
    ("release.update", {"releaseId": 1, "title": "x"}),
    ("release.publish_draft", {"releaseId": DRAFT}),
    ("release.publish_draft", {"releaseId": DRAFT, "title": "T", "notes": "N", "prerelease": True}),
    ("release.publish_draft", {"releaseId": PUBLISHED}),
    ("release.publish_draft", {"releaseId": 1}),
    ("release.publish_draft", {"releaseId": "201000002"}),
]


@pytest.mark.parametrize(
    ("task", "input"), _DIFFERENTIAL, ids=[f"{t}-{i}" for i, (t, _) in enumerate(_DIFFERENTIAL)]
)
def test_same_as_the_world_capability(task: str, input: dict[str, Any]) -> None:
    same_as_world(task, {**REPO, **input})


def test_list_newest_first_with_drafts(world: World) -> None:
    assert listed(world) == [("v0.4.0", True), ("v0.3.2", False)]
    page = data(world, "release.list", first=1)
    assert page["pageInfo"]["hasNextPage"] is True


def test_get_by_tag(world: World) -> None:
    published = data(world, "release.get", tagName="v0.3.2")
    assert (published["id"], published["isDraft"], published["author"]) == (
        PUBLISHED,
        False,
        "mona",
    )
    assert published["url"] == "https://github.com/acme-labs/tinykv/releases/tag/v0.3.2"
    assert [a["name"] for a in published["assets"]] == [
        "tinykv-0.3.2-py3-none-any.whl",
        "tinykv-0.3.2.tar.gz",
    ]
    draft = data(world, "release.get", tagName="v0.4.0")
    assert (draft["id"], draft["isDraft"], draft["publishedAt"]) == (DRAFT, True, None)
    assert "/releases/tag/untagged-" in draft["url"]
    assert code(world, "release.get", tagName="v9.9.9") == "NOT_FOUND"


def test_create_update_publish(world: World) -> None:
    created = data(world, "release.create_draft", tagName="v0.5.0", title="v0.5.0",
                   notes="Replication groundwork", prerelease=True)  # fmt: skip
    assert (created["isDraft"], created["isPrerelease"], created["targetCommitish"]) == (
        True,
        True,
        "main",
    )
    assert listed(world)[0] == ("v0.5.0", True)
    updated = data(world, "release.update", releaseId=created["id"], title="v0.5.0 — replicas",
                   draft=True)  # fmt: skip
    assert (updated["name"], updated["isDraft"]) == ("v0.5.0 — replicas", True)
    published = data(world, "release.publish_draft", releaseId=created["id"], prerelease=False)
    assert (published["isDraft"], published["wasDraft"], published["isPrerelease"]) == (
        False,
        True,
        False,
    )
    assert published["publishedAt"] is not None
    assert published["url"].endswith("/releases/tag/v0.5.0")
    got = data(world, "release.get", tagName="v0.5.0")
    assert (got["body"], got["author"]) == ("Replication groundwork", "bench-bot")
    assert code(world, "release.publish_draft", releaseId=created["id"]) == "CONFLICT"


def test_drafts_may_share_a_tag_but_published_releases_may_not(world: World) -> None:
    second = data(world, "release.create_draft", tagName="v0.4.0", title="Another take")
    # The newest draft answers for the tag until one is published.
    assert data(world, "release.get", tagName="v0.4.0")["id"] == second["id"]
    data(world, "release.publish_draft", releaseId=DRAFT)
    assert data(world, "release.get", tagName="v0.4.0")["id"] == DRAFT
    assert code(world, "release.publish_draft", releaseId=second["id"]) == "CONFLICT"
    assert code(world, "release.create_draft", tagName="v0.3.2") == "CONFLICT"
    assert code(world, "release.update", releaseId=DRAFT, tagName="v0.3.2") == "CONFLICT"


@pytest.mark.parametrize(
    ("task", "input", "expected"),
    [
        ("release.update", {"releaseId": DRAFT, "draft": False}, "VALIDATION"),
        ("release.update", {"releaseId": PUBLISHED, "draft": True}, "CONFLICT"),
        ("release.update", {"releaseId": 1, "title": "x"}, "NOT_FOUND"),
        ("release.publish_draft", {"releaseId": 1}, "NOT_FOUND"),
        ("release.publish_draft", {"releaseId": "201000002"}, "VALIDATION"),
        ("release.create_draft", {"tagName": "v1", "targetCommitish": "nope"}, "VALIDATION"),
        ("release.create_draft", {"tagName": ""}, "VALIDATION"),
        ("release.create_draft", {"tagName": "v1", "draft": True}, "VALIDATION"),
    ],
)
def test_refusals_change_nothing(
    world: World, task: str, input: dict[str, Any], expected: str
) -> None:
    before = world.model_dump(exclude={"clock", "last_id"})
    assert code(world, task, **input) == expected
    assert world.model_dump(exclude={"clock", "last_id"}) == before


def test_a_commit_sha_is_a_valid_target(world: World) -> None:
    created = data(world, "release.create_draft", tagName="v0.4.1", targetCommitish=SHA)
    assert created["targetCommitish"] == SHA
    assert created["name"] is None
