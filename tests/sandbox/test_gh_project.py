"""``gh project`` in the sandbox."""

from __future__ import annotations

import json

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.state import World


def gh(world: World, *argv: str) -> tuple[int, str, str, bool]:
    result = run_gh(world, argv)
    return result.exit_code, result.stdout, result.stderr, result.mutated


def test_view_json(world: World) -> None:
    data = json.loads(
        gh(world, "project", "view", "1", "--owner", "acme-labs", "--format", "json")[1]
    )
    assert data["title"] == "tinykv roadmap"
    assert data["owner"] == {"login": "acme-labs", "type": "Organization"}
    assert data["items"] == {"totalCount": 4} and data["fields"] == {"totalCount": 5}


def test_user_project_with_me(world: World) -> None:
    assert gh(world, "project", "view", "2", "--owner", "mona")[0] == 0
    code, _, err, _ = gh(world, "project", "view", "2", "--owner", "@me")
    assert code == 1 and "Could not resolve" in err


def test_field_list_json_and_table(world: World) -> None:
    out = gh(world, "project", "field-list", "1", "--owner", "acme-labs", "--format", "json")[1]
    fields = {f["name"]: f for f in json.loads(out)["fields"]}
    assert fields["Status"]["type"] == "ProjectV2SingleSelectField"
    assert [o["name"] for o in fields["Status"]["options"]] == ["Todo", "In progress", "Done"]
    table = gh(world, "project", "field-list", "1", "--owner", "acme-labs")[1]
    assert "Status\tProjectV2SingleSelectField\tPVTSSF_kwDOtinykvF0003\n" in table


def test_item_list_uses_camel_case_field_keys(world: World) -> None:
    out = gh(world, "project", "item-list", "1", "--owner", "acme-labs", "--format", "json")[1]
    items = {i["id"]: i for i in json.loads(out)["items"]}
    second = items["PVTI_kwDOtinykv0002"]
    assert (second["status"], second["priority"], second["estimate"]) == ("Todo", "P0", 3)
    assert second["content"]["number"] == 3 and second["content"]["type"] == "Issue"


def test_item_add_and_edit(world: World) -> None:
    code, out, _, mutated = gh(
        world, "project", "item-add", "1", "--owner", "acme-labs",
        "--url", "https://github.com/acme-labs/tinykv/issues/5", "--format", "json",
    )  # fmt: skip
    assert (code, mutated) == (0, True)
    added = json.loads(out)
    project = world.project("acme-labs", 1)
    assert project is not None and project.items[-1].id == added["id"]
    code, out, _, _ = gh(
        world, "project", "item-edit", "--id", "PVTI_kwDOtinykv0002", "--project-id",
        project.node_id, "--field-id", "PVTSSF_kwDOtinykvF0003",
        "--single-select-option-id", "47fc9ee4",
    )  # fmt: skip
    assert code == 0 and out.startswith("Edited item ")
    assert project.items[1].field_values["PVTSSF_kwDOtinykvF0003"] == "47fc9ee4"


def test_owner_is_required(world: World) -> None:
    assert gh(world, "project", "view", "1")[:3] == (
        1,
        "",
        "owner is required when not running interactively\n",
    )
