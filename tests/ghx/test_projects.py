"""ghx Projects v2 capabilities over HTTP: boards, fields, items, adding issues, setting
fields."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.sandbox.state import World
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.ghx.conftest import error, ok, run
from tests.ghx.test_actions import github_urls, run_scenario, same_as_world
from tests.sandbox.conftest import external_atomic, needs_external

SCENARIOS = external_atomic("project_v2.")
BOARD = {"owner": "acme-labs", "projectNumber": 1}
STATUS, PRIORITY, ESTIMATE, TITLE = (
    "PVTSSF_kwDOtinykvF0003",
    "PVTSSF_kwDOtinykvF0004",
    "PVTF_kwDOtinykvF0005",
    "PVTF_kwDOtinykvF0001",
)
ITEM = "PVTI_kwDOtinykv0002"  # issue #3
DONE = "98236657"
PROJECT = "PVT_kwDOCl8r5km_gXcNKd"  # acme-labs' board #1
ISSUES = "https://github.com/acme-labs/tinykv"
MONA = {"owner": "mona", "projectNumber": 2}


def data(world: World, task: str, **input: Any) -> Any:
    return github_urls(ok(world, task, input))


def problem(world: World, task: str, **input: Any) -> dict[str, Any]:
    return dict(error(world, task, input))


def project_id(world: World) -> str:
    return str(data(world, "project_v2.org.get", org="acme-labs", projectNumber=1)["id"])


def values(world: World) -> dict[int | None, dict[str, Any]]:
    items = data(world, "project_v2.items.list", **BOARD)["items"]
    return {item["contentNumber"]: item["fieldValues"] for item in items}


def update(world: World, **value: Any) -> dict[str, Any]:
    return run(
        world,
        "project_v2.item.field.update",
        {"projectId": project_id(world), "itemId": ITEM, **value},
    )


@needs_external
def test_every_external_project_scenario_is_covered() -> None:
    assert len(SCENARIOS) == 6


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.id)
def test_external_scenario_passes_in_ghx_mode(scenario: AtomicScenario) -> None:
    envelope, verdict = run_scenario(scenario)
    assert verdict.passed, verdict.failures
    assert envelope["meta"]["capability_id"] == scenario.task


def _set(field: str, **value: Any) -> dict[str, Any]:
    return {"projectId": PROJECT, "itemId": ITEM, "fieldId": field, **value}


_DIFFERENTIAL: list[tuple[str, dict[str, Any]]] = [
    ("project_v2.org.get", {"org": "acme-labs", "projectNumber": 1}),
    ("project_v2.org.get", {"org": "mona", "projectNumber": 2}),
    ("project_v2.org.get", {"org": "acme-labs", "projectNumber": 7}),
    ("project_v2.org.get", {"org": "ghost-user", "projectNumber": 1}),
    ("project_v2.user.get", {"user": "mona", "projectNumber": 2}),
    ("project_v2.user.get", {"user": "acme-labs", "projectNumber": 1}),
    ("project_v2.user.get", {"user": "mona", "projectNumber": 1}),
    ("project_v2.user.get", {"user": "ghost-user", "projectNumber": 1}),
    ("project_v2.fields.list", BOARD),
    ("project_v2.fields.list", {**BOARD, "first": 2}),
    ("project_v2.fields.list", {"owner": "mona", "projectNumber": 2}),
    ("project_v2.fields.list", {"owner": "mona", "projectNumber": 1}),
    ("project_v2.fields.list", {"owner": "ghost-user", "projectNumber": 1}),
    ("project_v2.items.list", BOARD),
    ("project_v2.items.list", {**BOARD, "first": 3}),
    ("project_v2.items.list", {"owner": "mona", "projectNumber": 2}),
    ("project_v2.items.list", {"owner": "acme-labs", "projectNumber": 9}),
    *[
        ("project_v2.item.add_issue", {**BOARD, "issueUrl": f"{ISSUES}/issues/{n}"})
        for n in (3, 6, 99)
    ],
    (
        "project_v2.item.add_issue",
        {"owner": "mona", "projectNumber": 2, "issueUrl": f"{ISSUES}/issues/1"},
    ),
    ("project_v2.item.add_issue", {**BOARD, "issueUrl": f"{ISSUES}/pull/7"}),
    (
        "project_v2.item.add_issue",
        {**BOARD, "issueUrl": "https://github.com/someone/else/issues/3"},
    ),
    ("project_v2.item.add_issue", {**BOARD, "issueUrl": "acme-labs/tinykv#3"}),
    ("project_v2.item.add_issue", {"owner": "acme-labs", "projectNumber": 8, "issueUrl": "x"}),
    ("project_v2.item.field.update", _set(STATUS, valueSingleSelectOptionId=DONE)),
    ("project_v2.item.field.update", _set(ESTIMATE, valueNumber=5.5)),
    ("project_v2.item.field.update", _set(ESTIMATE, valueNumber=2)),
    ("project_v2.item.field.update", _set(ESTIMATE, clear=True)),
    ("project_v2.item.field.update", _set(STATUS, clear=True)),
    ("project_v2.item.field.update", _set(STATUS, valueSingleSelectOptionId="nope")),
    ("project_v2.item.field.update", _set(STATUS, valueText="Done")),
    ("project_v2.item.field.update", _set(STATUS)),
    ("project_v2.item.field.update", _set(STATUS, clear=False)),
    ("project_v2.item.field.update", _set(ESTIMATE, valueNumber=1, clear=True)),
    ("project_v2.item.field.update", _set(ESTIMATE, valueDate="2026-01-01")),
    ("project_v2.item.field.update", _set(TITLE, valueText="Renamed")),
    ("project_v2.item.field.update", _set("PVTF_nope", valueText="x")),
    ("project_v2.item.field.update", _set(PRIORITY, valueSingleSelectOptionId=DONE)),
    ("project_v2.item.field.update", {**_set(STATUS, clear=True), "projectId": "PVT_nope"}),
    ("project_v2.item.field.update", {**_set(STATUS, clear=True), "itemId": "PVTI_kwDOmona0001"}),
    ("project_v2.item.field.update", {**_set(STATUS), "projectId": "PVT_nope"}),
]


@pytest.mark.parametrize(
    ("task", "input"), _DIFFERENTIAL, ids=[f"{t}-{i}" for i, (t, _) in enumerate(_DIFFERENTIAL)]
)
def test_same_as_the_world_capability(task: str, input: dict[str, Any]) -> None:
    same_as_world(task, input)


# ---------------------------------------------------------------- reads


def test_boards_of_an_organization_and_a_user(world: World) -> None:
    org = data(world, "project_v2.org.get", org="acme-labs", projectNumber=1)
    assert (org["title"], org["public"], org["closed"]) == ("tinykv roadmap", True, False)
    assert org["url"] == "https://github.com/orgs/acme-labs/projects/1"
    assert (org["fields"]["totalCount"], org["items"]["totalCount"]) == (5, 4)
    user = data(world, "project_v2.user.get", user="mona", projectNumber=2)
    assert (user["url"], user["owner"]) == (
        "https://github.com/users/mona/projects/2",
        {"login": "mona", "type": "User"},
    )


def test_archived_items_are_not_counted(world: World) -> None:
    world.projects[0].items[0].is_archived = True
    org = data(world, "project_v2.org.get", org="acme-labs", projectNumber=1)
    assert org["items"]["totalCount"] == 3


def test_unknown_boards_and_owners(world: World) -> None:
    missing = problem(world, "project_v2.org.get", org="acme-labs", projectNumber=7)
    assert missing["code"] == "NOT_FOUND" and "number 7" in missing["message"]
    nobody = problem(world, "project_v2.user.get", user="ghost-user", projectNumber=1)
    assert nobody["code"] == "NOT_FOUND" and "ghost-user" in nobody["message"]
    assert problem(world, "project_v2.fields.list", owner="mona", projectNumber=1)["code"] == (
        "NOT_FOUND"
    )
    assert problem(world, "project_v2.org.get", org="acme-labs")["code"] == "VALIDATION"


def test_fields_with_their_options(world: World) -> None:
    fields = data(world, "project_v2.fields.list", **BOARD)["items"]
    assert [(f["name"], f["dataType"]) for f in fields] == [
        ("Title", "TITLE"),
        ("Assignees", "ASSIGNEES"),
        ("Status", "SINGLE_SELECT"),
        ("Priority", "SINGLE_SELECT"),
        ("Estimate", "NUMBER"),
    ]
    assert [o["name"] for o in fields[2]["options"]] == ["Todo", "In progress", "Done"]
    assert fields[4]["options"] is None


def test_items_with_their_content_and_values(world: World) -> None:
    items = data(world, "project_v2.items.list", **BOARD)["items"]
    assert [(i["contentType"], i["contentNumber"]) for i in items] == [
        ("ISSUE", 1),
        ("ISSUE", 3),
        ("PULL_REQUEST", 7),
        ("DRAFT_ISSUE", None),
    ]
    assert items[3]["contentTitle"] == "Benchmark compaction on a 10 GB store"
    assert items[1]["fieldValues"] == {"Status": "Todo", "Priority": "P0", "Estimate": 3}
    world.projects[0].items[0].is_archived = True
    assert len(data(world, "project_v2.items.list", **BOARD)["items"]) == 3


def test_items_page_past_archived_ones(world: World) -> None:
    world.projects[0].items[1].is_archived = True
    first = data(world, "project_v2.items.list", **BOARD, first=2)
    assert [i["contentNumber"] for i in first["items"]] == [1, 7]
    assert first["pageInfo"]["hasNextPage"] is True
    rest = data(world, "project_v2.items.list", **BOARD, after=first["pageInfo"]["endCursor"])
    assert [i["contentType"] for i in rest["items"]] == ["DRAFT_ISSUE"]
    assert rest["pageInfo"]["hasNextPage"] is False


# ---------------------------------------------------------------- adding issues


def test_adding_an_issue_puts_it_on_the_board_once(world: World) -> None:
    url = f"{ISSUES}/issues/6"
    added = data(world, "project_v2.item.add_issue", **BOARD, issueUrl=url)
    assert (added["itemType"], added["added"]) == ("ISSUE", True)
    items = data(world, "project_v2.items.list", **BOARD)["items"]
    assert (items[-1]["id"], items[-1]["contentNumber"], items[-1]["fieldValues"]) == (
        added["itemId"],
        6,
        {},
    )
    again = data(world, "project_v2.item.add_issue", **BOARD, issueUrl=url)
    assert again == {"itemId": added["itemId"], "itemType": "ISSUE", "added": False}
    assert len(data(world, "project_v2.items.list", **BOARD)["items"]) == 5


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (f"{ISSUES}/issues/99", "NOT_FOUND"),
        (f"{ISSUES}/pull/7", "NOT_FOUND"),
        ("https://github.com/someone/else/issues/3", "NOT_FOUND"),
        ("acme-labs/tinykv#3", "VALIDATION"),
    ],
)
def test_issue_urls_that_cannot_be_added(world: World, url: str, expected: str) -> None:
    assert problem(world, "project_v2.item.add_issue", **BOARD, issueUrl=url)["code"] == expected


# ---------------------------------------------------------------- setting fields


def test_setting_a_single_select_field_shows_in_the_item_list(world: World) -> None:
    envelope = update(world, fieldId=STATUS, valueSingleSelectOptionId=DONE)
    assert envelope["data"] == {
        "itemId": ITEM,
        "fieldId": STATUS,
        "value": "Done",
        "updated": True,
    }
    assert values(world)[3]["Status"] == "Done"


def test_setting_and_clearing_a_number(world: World) -> None:
    assert update(world, fieldId=ESTIMATE, valueNumber=5.5)["ok"]
    assert values(world)[3]["Estimate"] == 5.5
    assert update(world, fieldId=ESTIMATE, clear=True)["data"]["value"] is None
    assert "Estimate" not in values(world)[3]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"fieldId": STATUS, "valueSingleSelectOptionId": "nope"}, "VALIDATION"),
        ({"fieldId": STATUS, "valueText": "Done"}, "VALIDATION"),
        ({"fieldId": STATUS}, "VALIDATION"),
        ({"fieldId": STATUS, "clear": False}, "VALIDATION"),
        ({"fieldId": ESTIMATE, "valueNumber": 1, "clear": True}, "VALIDATION"),
        ({"fieldId": ESTIMATE, "valueNumber": True}, "VALIDATION"),
        ({"fieldId": TITLE, "valueText": "Renamed"}, "VALIDATION"),
        ({"fieldId": "PVTF_nope", "valueText": "x"}, "NOT_FOUND"),
        ({"fieldId": PRIORITY, "valueSingleSelectOptionId": DONE}, "VALIDATION"),
    ],
)
def test_field_values_that_do_not_fit(world: World, value: dict[str, Any], expected: str) -> None:
    before = values(world)
    assert update(world, **value)["error"]["code"] == expected
    assert values(world) == before


def test_unknown_project_or_item(world: World) -> None:
    bad_project = {"projectId": "PVT_nope", "itemId": ITEM, "fieldId": STATUS, "clear": True}
    assert problem(world, "project_v2.item.field.update", **bad_project)["code"] == "NOT_FOUND"
    bad_item = {**bad_project, "projectId": project_id(world), "itemId": "PVTI_kwDOmona0001"}
    found = problem(world, "project_v2.item.field.update", **bad_item)
    assert found["code"] == "NOT_FOUND" and "itemId" in found["message"]


def test_a_date_must_be_a_calendar_date(world: World) -> None:
    field = world.projects[0].fields[4]
    field.data_type = "DATE"
    assert update(world, fieldId=ESTIMATE, valueDate="2026-03-31")["ok"]
    assert values(world)[3]["Estimate"] == "2026-03-31"
    assert update(world, fieldId=ESTIMATE, valueDate="2026-02-30")["error"]["code"] == "VALIDATION"
