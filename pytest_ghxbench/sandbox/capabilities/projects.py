"""Projects v2 capabilities: boards, their fields and items, adding issues, setting fields.

A project is addressed by its owner's login and number (``owner`` or ``org`` / ``user``,
``projectNumber``); ``project_v2.item.field.update`` uses node ids (``projectId``, ``itemId``,
``fieldId``), as GitHub's mutation does. Lists take ``first`` / ``after`` and return
``{items, pageInfo}``.

- ``project_v2.org.get`` (``org``) and ``project_v2.user.get`` (``user``) → id, number, title,
  shortDescription, readme, public, closed, url, owner{login, type}, fields{totalCount},
  items{totalCount}
- ``project_v2.fields.list`` (``owner``) → items{id, name, dataType, options} (``options``:
  [{id, name}] for single-select fields, else null)
- ``project_v2.items.list`` (``owner``; archived items left out) → items{id, contentType
  (ISSUE, PULL_REQUEST, DRAFT_ISSUE), contentNumber, contentTitle, fieldValues{field name:
  value}} (a single-select value is the option's name)
- ``project_v2.item.add_issue`` (``owner``, ``issueUrl``) → itemId, itemType, added
- ``project_v2.item.field.update`` (exactly one of ``valueText``, ``valueNumber``,
  ``valueDate`` (YYYY-MM-DD), ``valueSingleSelectOptionId``, ``valueIterationId``, or
  ``clear: true``) → itemId, fieldId, value, updated

Adding an issue that is already on the board returns its item (``added: false``), as GitHub
does. The value must suit the field: an option id of that field for a single-select field,
text for a text field, and so on; title, assignee and label fields change with their issue,
not here.

One deliberate difference: the owner's type is not checked, so ``project_v2.user.get`` finds
an organization's board and ``project_v2.org.get`` a user's (``gh project view --owner``
accepts either); the shared fixture binds both to the repository owner.

Errors: ``NOT_FOUND`` for an unknown owner, project, item, field or issue (and an issue URL of
another repository); ``VALIDATION`` for a malformed issue URL, a missing or second value, or a
value that does not suit the field.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import (
    AFTER,
    FIRST,
    CapabilityError,
    capability,
    input_schema,
)
from pytest_ghxbench.sandbox.state import Project, ProjectField, ProjectItem, World

__all__: list[str] = []

LOGIN: dict[str, Any] = {"type": "string", "minLength": 1, "description": "Owner login"}
NUMBER: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Project number"}
NODE: dict[str, Any] = {"type": "string", "minLength": 1}
_ISSUE_URL = re.compile(r"^https://github\.com/([^/\s]+)/([^/\s]+)/(issues|pull)/(\d+)/?$")
_CONTENT_TYPES = {"Issue": "ISSUE", "PullRequest": "PULL_REQUEST", "DraftIssue": "DRAFT_ISSUE"}


def _project(world: World, login: str, number: int) -> Project:
    project = world.project(login, number)
    if project is not None:
        return project
    known = {u.login.casefold() for u in world.users} | {p.owner.casefold() for p in world.projects}
    if login.casefold() not in known:
        raise CapabilityError(
            "NOT_FOUND",
            f"Could not resolve to an organization or user with the login of '{login}'.",
        )
    raise CapabilityError(
        "NOT_FOUND", f"Could not resolve to a ProjectV2 with the number {number}."
    )


def _project_data(project: Project) -> dict[str, Any]:
    return {
        "id": project.node_id,
        "number": project.number,
        "title": project.title,
        "shortDescription": project.short_description,
        "readme": project.readme,
        "public": project.public,
        "closed": project.closed,
        "url": project.url,
        "owner": {"login": project.owner, "type": project.owner_type},
        "fields": {"totalCount": len(project.fields)},
        "items": {"totalCount": len([i for i in project.items if not i.is_archived])},
    }


def _display(field: ProjectField, value: str | float | None) -> str | float | None:
    if field.data_type == "SINGLE_SELECT":
        return next((o.name for o in field.options if o.id == value), None)
    return value


def _item_data(world: World, project: Project, item: ProjectItem) -> dict[str, Any]:
    title: str | None = item.title
    if item.content_type == "Issue" and item.content_number is not None:
        issue = world.issue(item.content_number)
        title = issue.title if issue is not None else None
    elif item.content_type == "PullRequest" and item.content_number is not None:
        pull = world.pull_request(item.content_number)
        title = pull.title if pull is not None else None
    fields = {f.id: f for f in project.fields}
    return {
        "id": item.id,
        "contentType": _CONTENT_TYPES[item.content_type],
        "contentNumber": item.content_number,
        "contentTitle": title,
        "fieldValues": {
            fields[key].name: _display(fields[key], value)
            for key, value in item.field_values.items()
            if key in fields
        },
    }


# ---------------------------------------------------------------- reads


BY_OWNER = input_schema(
    ["owner", "projectNumber"], owner=LOGIN, projectNumber=NUMBER, first=FIRST, after=AFTER
)


# ---------------------------------------------------------------- mutations


@capability(
    "project_v2.item.add_issue",
    "Add an issue (by URL) to a project; an issue already there keeps its item.",
    input_schema(
        ["owner", "projectNumber", "issueUrl"],
        owner=LOGIN,
        projectNumber=NUMBER,
        issueUrl={**NODE, "description": "https://github.com/OWNER/REPO/issues/NUMBER"},
    ),
    mutates=True,
)
def project_item_add_issue(world: World, input: dict[str, Any]) -> dict[str, Any]:
    project = _project(world, input["owner"], input["projectNumber"])
    url = input["issueUrl"]
    match = _ISSUE_URL.match(url)
    if match is None:
        raise CapabilityError(
            "VALIDATION",
            f"input.issueUrl: expected https://github.com/OWNER/REPO/issues/N, got {url!r}",
        )
    owner, name, kind, number = match.groups()
    repo = world.repository
    issue = world.issue(int(number))
    if f"{owner}/{name}".casefold() != repo.full_name.casefold() or kind != "issues" or not issue:
        raise CapabilityError(
            "NOT_FOUND", f"input.issueUrl: Could not resolve to an Issue at {url}"
        )
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
        raise CapabilityError(
            "VALIDATION",
            "input: give exactly one of " + ", ".join(_VALUE_KEYS) + f" or clear: true (got "
            f"{', '.join(given) or 'none'})",
        )
    if field.data_type not in _VALUE_KEYS.values():
        raise CapabilityError(
            "VALIDATION",
            f"input.fieldId: {field.name!r} is a {field.data_type} field, which changes with its "
            "issue or pull request, not through the project",
        )
    [key] = given
    if key == "clear":
        return None
    if _VALUE_KEYS[key] != field.data_type:
        wanted = next(k for k, kind in _VALUE_KEYS.items() if kind == field.data_type)
        raise CapabilityError(
            "VALIDATION", f"input.{key}: {field.name!r} is a {field.data_type} field; use {wanted}"
        )
    value: str | float = input[key]
    if key == "valueSingleSelectOptionId" and value not in {o.id for o in field.options}:
        options = ", ".join(f"{o.id} ({o.name})" for o in field.options)
        raise CapabilityError(
            "VALIDATION", f"input.{key}: {value!r} is not an option of {field.name!r}: {options}"
        )
    if key == "valueIterationId":
        raise CapabilityError(
            "VALIDATION", f"input.{key}: {field.name!r} has no iteration {value!r}"
        )
    if key == "valueDate":
        try:
            datetime.date.fromisoformat(str(value))
        except ValueError:
            raise CapabilityError(
                "VALIDATION", f"input.{key}: expected a date as YYYY-MM-DD, got {value!r}"
            ) from None
    return value


@capability(
    "project_v2.item.field.update",
    "Set (or clear) one field of a project item.",
    input_schema(
        ["projectId", "itemId", "fieldId"],
        projectId={**NODE, "description": "Project node id (PVT_...)"},
        itemId={**NODE, "description": "Project item node id (PVTI_...)"},
        fieldId={**NODE, "description": "Field node id (PVTF_... / PVTSSF_...)"},
        valueText=NODE,
        valueNumber={"type": "number"},
        valueDate=NODE,
        valueSingleSelectOptionId=NODE,
        valueIterationId=NODE,
        clear={"type": "boolean"},
    ),
    mutates=True,
)
def project_item_field_update(world: World, input: dict[str, Any]) -> dict[str, Any]:
    project = world.project_by_node_id(input["projectId"])
    if project is None:
        raise CapabilityError(
            "NOT_FOUND",
            f"input.projectId: Could not resolve to a ProjectV2 with the global id of "
            f"'{input['projectId']}'.",
        )
    item = next((i for i in project.items if i.id == input["itemId"]), None)
    field = next((f for f in project.fields if f.id == input["fieldId"]), None)
    for key, found in (("itemId", item), ("fieldId", field)):
        if found is None:
            raise CapabilityError(
                "NOT_FOUND", f"input.{key}: {input[key]!r} is not in project #{project.number}"
            )
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
