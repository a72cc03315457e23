"""Projects v2 capabilities: boards, their fields and items, adding issues, setting fields.

A project is addressed by its owner's login and number (``owner`` or ``org`` / ``user``,
``projectNumber``); ``project_v2.item.field.update`` uses node ids (``projectId``, ``itemId``,
``fieldId``), as GitHub's mutation does. Lists take ``first`` / ``after`` and return
``{items, pageInfo}``. Everything goes through GitHub's GraphQL API.

- ``project_v2.org.get`` (``org``) and ``project_v2.user.get`` (``user``) → id, number, title,
  shortDescription, readme, public, closed, url, owner{login, type}, fields{totalCount},
  items{totalCount} (archived items not counted)
- ``project_v2.fields.list`` (``owner``) → items{id, name, dataType, options} (``options``:
  [{id, name}] for single-select fields, else null)
- ``project_v2.items.list`` (``owner``; archived items left out, so the items are fetched whole
  and paged here, with offsets as cursors) → items{id, contentType (ISSUE, PULL_REQUEST,
  DRAFT_ISSUE), contentNumber, contentTitle, fieldValues{field name: value}} (values set on
  the board: text, number, date, single select (the option's name), iteration)
- ``project_v2.item.add_issue`` (``owner``, ``issueUrl``) → itemId, itemType, added
- ``project_v2.item.field.update`` (exactly one of ``valueText``, ``valueNumber``,
  ``valueDate`` (YYYY-MM-DD), ``valueSingleSelectOptionId``, ``valueIterationId``, or
  ``clear: true``) → itemId, fieldId, value, updated

Adding an issue already on the board returns its item (``added: false``). A value must suit
the field (checked here, from the field's type and options, before the mutation). An owner is
looked up as an organization, then as a user (the user first for ``project_v2.user.get``).

Errors: ``NOT_FOUND`` for an unknown owner, project, item, field or issue; ``VALIDATION`` for a
malformed issue URL, a missing or second value, or a value that does not suit the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.issue_support import offset_page
from pytest_ghxbench.ghx.capabilities.shapes import connection_page
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import AFTER, FIRST, CapabilityError, capability, input_schema

__all__: list[str] = []

LOGIN: dict[str, Any] = {"type": "string", "minLength": 1, "description": "Owner login"}
NUMBER: dict[str, Any] = {"type": "integer", "minimum": 1, "description": "Project number"}
NODE: dict[str, Any] = {"type": "string", "minLength": 1}
_OWNERS = ("organization", "user")
_MAX_ITEMS = 2000

_FIELD = """
... on ProjectV2FieldCommon { id name dataType }
... on ProjectV2SingleSelectField { options { id name } }
"""
_PROJECT = """
id number title shortDescription readme public closed url
owner { __typename ... on Organization { login } ... on User { login } }
fields(first: 1) { totalCount }
"""
_VALUE_FIELD = "field { ... on ProjectV2FieldCommon { name dataType } }"
_ITEM = """
id type isArchived
content {
  ... on Issue { number title }
  ... on PullRequest { number title }
  ... on DraftIssue { title }
}
fieldValues(first: 100) {
  nodes {
    ... on ProjectV2ItemFieldTextValue { text FIELD }
    ... on ProjectV2ItemFieldNumberValue { number FIELD }
    ... on ProjectV2ItemFieldDateValue { date FIELD }
    ... on ProjectV2ItemFieldSingleSelectValue { name FIELD }
    ... on ProjectV2ItemFieldIterationValue { title FIELD }
  }
}
""".replace("FIELD", _VALUE_FIELD)
# field types whose values are set on the board (the others follow the issue)


_SETTABLE = {
    "valueText": "TEXT",
    "valueNumber": "NUMBER",
    "valueDate": "DATE",
    "valueSingleSelectOptionId": "SINGLE_SELECT",
    "valueIterationId": "ITERATION",
}


def _owner_project(
    client: GitHubClient,
    login: str,
    number: int,
    selection: str,
    owners: tuple[str, ...] = _OWNERS,
    **variables: tuple[str, Any],
) -> dict[str, Any]:
    """The ``projectV2`` (selecting ``selection``) of the organization or user ``login``."""
    declared = "".join(f", ${key}: {kind}" for key, (kind, _) in variables.items())
    values = {key: value for key, (_, value) in variables.items()}
    for owner in owners:
        query = (
            f"query Project($login: String!, $number: Int!{declared}) {{ "
            f"{owner}(login: $login) {{ projectV2(number: $number) {{ {selection} }} }} }}"
        )
        try:
            data = client.graphql(query, {"login": login, "number": number, **values})
        except GitHubError as exc:
            if exc.status == 200 and "login" in exc.message:
                continue  # no such organization (or user): try the other kind of owner
            raise
        project = ((data or {}).get(owner) or {}).get("projectV2")
        if isinstance(project, dict):
            return project
        break
    else:
        raise CapabilityError(
            "NOT_FOUND",
            f"Could not resolve to an organization or user with the login of '{login}'.",
        )
    raise CapabilityError(
        "NOT_FOUND", f"Could not resolve to a ProjectV2 with the number {number}."
    )


def _all_items(client: GitHubClient, login: str, number: int, selection: str) -> list[Any]:
    """Every item of the board (archived ones too), fetched 100 at a time."""
    items: list[Any] = []
    after: str | None = None
    while len(items) < _MAX_ITEMS:
        project = _owner_project(
            client,
            login,
            number,
            f"items(first: 100, after: $after) {{ nodes {{ {selection} }} "
            "pageInfo { hasNextPage endCursor } }",
            after=("String", after),
        )
        connection = project.get("items") or {}
        items.extend(connection.get("nodes") or [])
        info = connection.get("pageInfo") or {}
        after = info.get("endCursor")
        if not info.get("hasNextPage") or after is None:
            break
    return items


def _project_data(
    client: GitHubClient, login: str, number: int, owners: tuple[str, ...]
) -> dict[str, Any]:
    project = _owner_project(client, login, number, _PROJECT, owners)
    owner = project.get("owner") or {}
    live = [i for i in _all_items(client, login, number, "isArchived") if not i.get("isArchived")]
    return {
        "id": project["id"],
        "number": project["number"],
        "title": project["title"],
        "shortDescription": project.get("shortDescription") or "",
        "readme": project.get("readme") or "",
        "public": bool(project.get("public")),
        "closed": bool(project.get("closed")),
        "url": project.get("url"),
        "owner": {"login": owner.get("login"), "type": owner.get("__typename")},
        "fields": {"totalCount": (project.get("fields") or {}).get("totalCount", 0)},
        "items": {"totalCount": len(live)},
    }


# ---------------------------------------------------------------- reads


@capability(
    "project_v2.org.get",
    "Get an organization's Projects v2 board by number.",
    input_schema(["org", "projectNumber"], org=LOGIN, projectNumber=NUMBER),
)
def project_org_get(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    return _project_data(client, input["org"], input["projectNumber"], _OWNERS)


@capability(
    "project_v2.user.get",
    "Get a user's Projects v2 board by number.",
    input_schema(["user", "projectNumber"], user=LOGIN, projectNumber=NUMBER),
)
def project_user_get(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    owners = tuple(reversed(_OWNERS))
    return _project_data(client, input["user"], input["projectNumber"], owners)


BY_OWNER = input_schema(
    ["owner", "projectNumber"], owner=LOGIN, projectNumber=NUMBER, first=FIRST, after=AFTER
)


def _field_data(field: Mapping[str, Any]) -> dict[str, Any]:
    single = field.get("dataType") == "SINGLE_SELECT"
    return {
        "id": field.get("id"),
        "name": field.get("name"),
        "dataType": field.get("dataType"),
        "options": [{"id": o["id"], "name": o["name"]} for o in field.get("options") or []]
        if single
        else None,
    }


@capability("project_v2.fields.list", "List a project's fields (with select options).", BY_OWNER)
def project_fields_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    project = _owner_project(
        client,
        input["owner"],
        input["projectNumber"],
        f"fields(first: $first, after: $after) {{ nodes {{ {_FIELD} }} "
        "pageInfo { hasNextPage endCursor } }",
        first=("Int!", input["first"]),
        after=("String", input.get("after")),
    )
    return connection_page(project.get("fields") or {}, _field_data)


def _value(node: Mapping[str, Any]) -> tuple[str, Any] | None:
    field = node.get("field") or {}
    if field.get("dataType") not in _SETTABLE.values() or "name" not in field:
        return None
    for key in ("text", "number", "date", "name", "title"):
        if key in node:
            return str(field["name"]), node[key]
    return None


_CONTENT_TYPES = ("ISSUE", "PULL_REQUEST", "DRAFT_ISSUE")


def _item_data(item: Mapping[str, Any]) -> dict[str, Any]:
    content = item.get("content") or {}
    values = [_value(node) for node in (item.get("fieldValues") or {}).get("nodes") or []]
    kind = item.get("type")
    return {
        "id": item["id"],
        "contentType": kind if kind in _CONTENT_TYPES else "DRAFT_ISSUE",
        "contentNumber": content.get("number"),
        "contentTitle": content.get("title"),
        "fieldValues": dict(value for value in values if value is not None),
    }


@capability(
    "project_v2.items.list",
    "List a project's items with their content and field values.",
    BY_OWNER,
)
def project_items_list(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    items = _all_items(client, input["owner"], input["projectNumber"], _ITEM)
    return offset_page([i for i in items if not i.get("isArchived")], input, _item_data)


# ---------------------------------------------------------------- mutations
