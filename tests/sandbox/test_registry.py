"""The capability registry: input validation, envelopes, paging, and every capability's shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_ghxbench.sandbox.capabilities.registry import (
    Capability,
    CapabilityError,
    all_capabilities,
    capability,
    get_capability,
    input_schema,
    page,
    run_capability,
)
from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.manifest import bind_input
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.paths import EXTERNAL_SCENARIOS
from tests.sandbox.conftest import REPO, external_atomic, external_scenarios, is_registered

CHECKPOINT_TASKS = (
    "issue.comments.list",
    "pr.comments.list",
    "pr.reviews.list",
    "workflow_run.jobs.list",
)


def test_envelope_of_a_successful_call(world: World) -> None:
    envelope = run_capability(world, "repo.view", REPO)
    assert envelope["ok"] is True and envelope["error"] is None
    assert envelope["data"]["nameWithOwner"] == "acme-labs/tinykv"
    meta = envelope["meta"]
    assert meta["capability_id"] == "repo.view"
    assert meta["route_used"] == "cli"
    assert meta["attempts"] == [{"route": "cli", "status": "ok"}]
    assert meta["timings"]["total_ms"] >= 0


def test_route_is_the_one_scenarios_expect(world: World) -> None:
    envelope = run_capability(world, "issue.comments.list", {**REPO, "issueNumber": 3})
    assert envelope["meta"]["route_used"] == "graphql"
    assert envelope["meta"]["attempts"] == [{"route": "graphql", "status": "ok"}]


def test_unknown_capability_is_unsupported_with_a_suggestion(world: World) -> None:
    envelope = run_capability(world, "issue.veiw", {})
    assert envelope["ok"] is False and envelope["data"] is None
    assert envelope["error"]["code"] == "UNSUPPORTED"
    assert "'issue.veiw'" in envelope["error"]["message"]
    assert "did you mean issue.view" in envelope["error"]["message"]
    assert envelope["meta"]["route_used"] is None and envelope["meta"]["attempts"] == []


@pytest.mark.parametrize(
    ("input", "expected"),
    [
        ({"owner": "acme-labs", "name": "tinykv"}, "input: 'issueNumber' is a required property"),
        ({**REPO, "issueNumber": "3"}, "input.issueNumber: '3' is not of type 'integer'"),
        ({**REPO, "issueNumber": 0}, "input.issueNumber: 0 is less than the minimum of 1"),
        (
            {**REPO, "issueNumber": 3, "verbose": True},
            "Additional properties are not allowed ('verbose' was unexpected)",
        ),
    ],
)
def test_bad_input_is_a_validation_error_naming_the_field(
    world: World, input: dict[str, Any], expected: str
) -> None:
    envelope = run_capability(world, "issue.view", input)
    assert envelope["ok"] is False
    assert envelope["error"]["code"] == "VALIDATION"
    assert expected in envelope["error"]["message"]
    assert envelope["error"]["message"].startswith("invalid input for issue.view: ")
    assert envelope["meta"]["capability_id"] == "issue.view"
    assert envelope["meta"]["route_used"] is None


def test_input_must_be_an_object(world: World) -> None:
    envelope = run_capability(world, "repo.view", ["acme-labs"])  # type: ignore[arg-type]
    assert envelope["error"] == {
        "code": "VALIDATION",
        "message": "input must be a JSON object, got list",
    }


def test_lenient_mode_ignores_unknown_keys_but_still_validates_known_ones(world: World) -> None:
    input = {**REPO, "issueNumber": 3, "first": 50, "prNumber": 7, "extra": {"x": 1}}
    assert run_capability(world, "issue.view", input)["error"]["code"] == "VALIDATION"
    lenient = run_capability(world, "issue.view", input, strict=False)
    assert lenient["ok"] and lenient["data"]["number"] == 3
    broken = run_capability(world, "issue.view", {**input, "issueNumber": "x"}, strict=False)
    assert broken["error"]["code"] == "VALIDATION"


def test_paging_with_first_and_after(world: World) -> None:
    first = run_capability(world, "repo.labels.list", {**REPO, "first": 4})["data"]
    assert [label["name"] for label in first["items"]] == [
        "bug",
        "documentation",
        "enhancement",
        "good first issue",
    ]
    assert first["pageInfo"]["hasNextPage"] is True
    rest = run_capability(
        world, "repo.labels.list", {**REPO, "first": 10, "after": first["pageInfo"]["endCursor"]}
    )["data"]
    assert [label["name"] for label in rest["items"]] == [
        "help wanted",
        "question",
        "performance",
        "issues",
        "needs-triage",
    ]
    assert rest["pageInfo"]["hasNextPage"] is False


def test_a_bad_cursor_is_a_validation_error(world: World) -> None:
    envelope = run_capability(world, "repo.labels.list", {**REPO, "after": "not-a-cursor"})
    assert envelope["error"]["code"] == "VALIDATION"
    assert "input.after" in envelope["error"]["message"]


def test_page_of_nothing_has_no_cursor() -> None:
    assert page([], {"first": 5}, str) == {
        "items": [],
        "pageInfo": {"hasNextPage": False, "endCursor": None},
    }


def test_registering_twice_or_with_a_bad_schema_fails() -> None:
    assert get_capability("repo.view") is not None  # the built-in modules are loaded
    with pytest.raises(ValueError, match=r"'repo\.view' is registered twice"):
        capability("repo.view", "again", input_schema([]))(lambda w, i: None)
    with pytest.raises(ValueError, match="without a property schema"):
        input_schema(["owner"])


def test_capability_errors_need_a_known_code() -> None:
    with pytest.raises(ValueError, match="unknown error code 'OOPS'"):
        CapabilityError("OOPS", "no")


def test_every_capability_is_described_and_rejects_unknown_keys(world: World) -> None:
    capabilities = all_capabilities()
    assert len({c.id for c in capabilities}) == len(capabilities)
    for cap in capabilities:
        assert isinstance(cap, Capability)
        assert cap.description.endswith(".") and "\n" not in cap.description, cap.id
        assert cap.route in ("cli", "graphql", "rest"), cap.id
        assert cap.input_schema["type"] == "object", cap.id
        assert cap.input_schema.get("additionalProperties") is False, cap.id
        envelope = run_capability(world, cap.id, {"definitelyNotAKey": 1})
        assert envelope["error"]["code"] == "VALIDATION", cap.id
        assert "definitelyNotAKey" in envelope["error"]["message"], cap.id


def test_checkpoint_tasks_are_registered() -> None:
    missing = [task for task in CHECKPOINT_TASKS if not is_registered(task)]
    # pr.* capabilities arrive in their own module; until then only ours are required.
    assert [t for t in missing if not t.startswith("pr.")] == []


@pytest.mark.parametrize(
    "scenario",
    [s for s in external_atomic("") if is_registered(s.task)],
    ids=lambda s: s.id,
)
def test_list_capabilities_return_items_and_page_info(
    world: World, scenario: AtomicScenario, manifest: dict[str, Any]
) -> None:
    envelope = run_capability(world, scenario.task, bind_input(scenario, manifest))
    assert envelope["ok"], envelope["error"]
    json.dumps(envelope)
    if scenario.task.endswith(".list"):
        assert isinstance(envelope["data"]["items"], list)
        assert set(envelope["data"]["pageInfo"]) >= {"hasNextPage", "endCursor"}


@pytest.mark.skipif(not EXTERNAL_SCENARIOS.is_dir(), reason="shared/external is not present")
def test_external_tasks_are_ids_the_registry_could_hold() -> None:
    tasks = {s.task for s in external_scenarios() if isinstance(s, AtomicScenario)}
    assert len(tasks) >= 60
    for task in tasks:
        cap = get_capability(task)
        assert cap is None or cap.id == task
