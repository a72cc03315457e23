"""World operations on Projects v2: adding an issue to a project and setting an item's field."""

from __future__ import annotations

import datetime
import re
from typing import Any

from pytest_ghxbench.sandbox.errors import NotFound, Unprocessable
from pytest_ghxbench.sandbox.operations.registry import operation
from pytest_ghxbench.sandbox.state import Project, ProjectField, ProjectItem, World

__all__: list[str] = []

_ISSUE_URL = re.compile(r"^https://github\.com/([^/\s]+)/([^/\s]+)/(issues|pull)/(\d+)/?$")


def _project(world: World, login: str, number: int) -> Project:
    project = world.project(login, number)
    if project is not None:
        return project
    known = {u.login.casefold() for u in world.users} | {p.owner.casefold() for p in world.projects}
    if login.casefold() not in known:
        raise NotFound(
            f"Could not resolve to an organization or user with the login of '{login}'.",
        )
    raise NotFound(f"Could not resolve to a ProjectV2 with the number {number}.")


def _display(field: ProjectField, value: str | float | None) -> str | float | None:
    if field.data_type == "SINGLE_SELECT":
        return next((o.name for o in field.options if o.id == value), None)
    return value


# ---------------------------------------------------------------- reads


# ---------------------------------------------------------------- mutations


@operation("addProjectV2ItemById")
def project_item_add_issue(world: World, input: dict[str, Any]) -> dict[str, Any]:
    project = _project(world, input["owner"], input["projectNumber"])
    url = input["issueUrl"]
    match = _ISSUE_URL.match(url)
    if match is None:
        raise Unprocessable(
            f"expected https://github.com/OWNER/REPO/issues/N, got {url!r}",
        )
    owner, name, kind, number = match.groups()
    repo = world.repository
    issue = world.issue(int(number))
    if f"{owner}/{name}".casefold() != repo.full_name.casefold() or kind != "issues" or not issue:
        raise NotFound(f"Could not resolve to an Issue at {url}")
    existing = next(
        (
            i
            for i in project.items
            if i.content_type == "Issue" and i.content_number == issue.number
        ),
        None,
    )
    if existing is not None:
        return {"itemId": existing.id, "itemType": "ISSUE", "added": False}
    item = ProjectItem(
        id=world.node("PVTI", project.owner, project.number, issue.number),
        content_type="Issue",
        content_number=issue.number,
    )
    project.items.append(item)
    project.updated_at = world.tick()
    return {"itemId": item.id, "itemType": "ISSUE", "added": True}


_VALUE_KEYS = {
    "valueText": "TEXT",
    "valueNumber": "NUMBER",
    "valueDate": "DATE",
    "valueSingleSelectOptionId": "SINGLE_SELECT",
    "valueIterationId": "ITERATION",
}


def _new_value(field: ProjectField, input: dict[str, Any]) -> str | float | None:
    given = [key for key in (*_VALUE_KEYS, "clear") if key in input]
    if len(given) != 1 or input.get("clear") is False:
        raise Unprocessable(
            "give exactly one of " + ", ".join(_VALUE_KEYS) + f" or clear: true (got "
            f"{', '.join(given) or 'none'})",
        )
    if field.data_type not in _VALUE_KEYS.values():
        raise Unprocessable(
            f"{field.name!r} is a {field.data_type} field, which changes with its "
            "issue or pull request, not through the project",
        )
    [key] = given
    if key == "clear":
        return None
    if _VALUE_KEYS[key] != field.data_type:
        wanted = next(k for k, kind in _VALUE_KEYS.items() if kind == field.data_type)
        raise Unprocessable(f"{field.name!r} is a {field.data_type} field; use {wanted}")
    value: str | float = input[key]
    if key == "valueSingleSelectOptionId" and value not in {o.id for o in field.options}:
        options = ", ".join(f"{o.id} ({o.name})" for o in field.options)
        raise Unprocessable(f"{value!r} is not an option of {field.name!r}: {options}")
    if key == "valueIterationId":
        raise Unprocessable(f"{field.name!r} has no iteration {value!r}")
    if key == "valueDate":
        try:
            datetime.date.fromisoformat(str(value))
        except ValueError:
            raise Unprocessable(f"expected a date as YYYY-MM-DD, got {value!r}") from None
    return value


@operation("updateProjectV2ItemFieldValue")
def project_item_field_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    project = world.project_by_node_id(input["projectId"])
    if project is None:
        raise NotFound(
            f"Could not resolve to a ProjectV2 with the global id of '{input['projectId']}'.",
        )
    item = next((i for i in project.items if i.id == input["itemId"]), None)
    field = next((f for f in project.fields if f.id == input["fieldId"]), None)
    for key, found in (("itemId", item), ("fieldId", field)):
        if found is None:
            raise NotFound(f"{input[key]!r} is not in project #{project.number}")
    assert item is not None and field is not None
    value = _new_value(field, input)
    if value is None:
        item.field_values.pop(field.id, None)
    else:
        item.field_values[field.id] = value
    project.updated_at = world.tick()
    return {
        "itemId": item.id,
        "fieldId": field.id,
        "value": _display(field, value),
        "updated": True,
    }
