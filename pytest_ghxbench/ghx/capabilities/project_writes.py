"""Projects v2 changes: adding an issue to a project and setting an item's field (see
:mod:`.projects` for the inputs and answers). Both go through GitHub's GraphQL API.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.ghx.capabilities.projects import (
    _FIELD,
    _SETTABLE,
    LOGIN,
    NODE,
    NUMBER,
    _owner_project,
)
from pytest_ghxbench.ghx.client import GitHubClient, GitHubError
from pytest_ghxbench.ghx.registry import CapabilityError, capability, input_schema

__all__: list[str] = []

_ISSUE_URL = re.compile(r"^https://github\.com/([^/\s]+)/([^/\s]+)/(issues|pull)/(\d+)/?$")


_ISSUE_QUERY = """
query Issue($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      id
      projectItems(first: 100) { nodes { id project { id } } }
    }
  }
}
"""
_ADD_ITEM = """
mutation AddItem($projectId: ID!, $contentId: ID!) {
  addProjectV2ItemById(input: {projectId: $projectId, contentId: $contentId}) { item { id } }
}
"""


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
def project_item_add_issue(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    project = _owner_project(client, input["owner"], input["projectNumber"], "id")
    url = input["issueUrl"]
    match = _ISSUE_URL.match(url)
    if match is None:
        raise CapabilityError(
            "VALIDATION",
            f"input.issueUrl: expected https://github.com/OWNER/REPO/issues/N, got {url!r}",
        )
    owner, name, kind, number = match.groups()
    missing = CapabilityError(
        "NOT_FOUND", f"input.issueUrl: Could not resolve to an Issue at {url}"
    )
    if kind != "issues":
        raise missing
    data = _found(client, _ISSUE_QUERY, owner=owner, name=name, number=int(number))
    issue = (data.get("repository") or {}).get("issue")
    if not isinstance(issue, dict):
        raise missing
    existing = next(
        (
            node["id"]
            for node in (issue.get("projectItems") or {}).get("nodes") or []
            if (node.get("project") or {}).get("id") == project["id"]
        ),
        None,
    )
    if existing is not None:
        return {"itemId": existing, "itemType": "ISSUE", "added": False}
    added = client.graphql(_ADD_ITEM, {"projectId": project["id"], "contentId": issue["id"]})
    item = ((added or {}).get("addProjectV2ItemById") or {}).get("item") or {}
    return {"itemId": item.get("id"), "itemType": "ISSUE", "added": True}


_PROJECT_NODE = """
query Project($id: ID!) {
  node(id: $id) { ... on ProjectV2 { id number fields(first: 100) { nodes { FIELD } } } }
}
""".replace("FIELD", _FIELD)
_ITEM_NODE = """
query Item($id: ID!) { node(id: $id) { ... on ProjectV2Item { id project { id } } } }
"""
_SET_VALUE = """
mutation SetValue($projectId: ID!, $itemId: ID!, $fieldId: ID!, $value: ProjectV2FieldValue!) {
  updateProjectV2ItemFieldValue(
    input: {projectId: $projectId, itemId: $itemId, fieldId: $fieldId, value: $value}
  ) { projectV2Item { id } }
}
"""
_CLEAR_VALUE = """
mutation ClearValue($projectId: ID!, $itemId: ID!, $fieldId: ID!) {
  clearProjectV2ItemFieldValue(
    input: {projectId: $projectId, itemId: $itemId, fieldId: $fieldId}
  ) { projectV2Item { id } }
}
"""


def _found(client: GitHubClient, query: str, **variables: Any) -> dict[str, Any]:
    """The answer's data, ``{}`` when GitHub finds nothing by the given ids or numbers."""
    try:
        data = client.graphql(query, variables)
    except GitHubError as exc:
        if exc.status == 200 and exc.message.startswith("NOT_FOUND"):
            return {}
        raise
    return data if isinstance(data, dict) else {}


def _node(client: GitHubClient, query: str, node_id: str) -> dict[str, Any]:
    node = _found(client, query, id=node_id).get("node")
    return node if isinstance(node, dict) else {}


def _targets(client: GitHubClient, input: Mapping[str, Any]) -> dict[str, Any]:
    """The field the input names, once the project and the item are found; else
    ``NOT_FOUND``."""
    project = _node(client, _PROJECT_NODE, input["projectId"])
    if "number" not in project:
        raise CapabilityError(
            "NOT_FOUND",
            f"input.projectId: Could not resolve to a ProjectV2 with the global id of "
            f"'{input['projectId']}'.",
        )
    item = _node(client, _ITEM_NODE, input["itemId"])
    fields = (project.get("fields") or {}).get("nodes") or []
    field = next((f for f in fields if f.get("id") == input["fieldId"]), None)
    for key, found in (
        ("itemId", (item.get("project") or {}).get("id") == project["id"]),
        ("fieldId", field is not None),
    ):
        if not found:
            raise CapabilityError(
                "NOT_FOUND", f"input.{key}: {input[key]!r} is not in project #{project['number']}"
            )
    return dict(field or {})


def _new_value(field: Mapping[str, Any], input: Mapping[str, Any]) -> tuple[str, Any]:
    """The input key and value to set (``("clear", None)`` to clear), checked against the
    field's type and options."""
    given = [key for key in (*_SETTABLE, "clear") if key in input]
    if len(given) != 1 or input.get("clear") is False:
        raise CapabilityError(
            "VALIDATION",
            "input: give exactly one of " + ", ".join(_SETTABLE) + f" or clear: true (got "
            f"{', '.join(given) or 'none'})",
        )
    name, kind = field.get("name"), field.get("dataType")
    if kind not in _SETTABLE.values():
        raise CapabilityError(
            "VALIDATION",
            f"input.fieldId: {name!r} is a {kind} field, which changes with its "
            "issue or pull request, not through the project",
        )
    [key] = given
    if key == "clear":
        return key, None
    if _SETTABLE[key] != kind:
        wanted = next(k for k, settable in _SETTABLE.items() if settable == kind)
        raise CapabilityError(
            "VALIDATION", f"input.{key}: {name!r} is a {kind} field; use {wanted}"
        )
    value = input[key]
    options = field.get("options") or []
    if key == "valueSingleSelectOptionId" and value not in {o.get("id") for o in options}:
        listed = ", ".join(f"{o.get('id')} ({o.get('name')})" for o in options)
        raise CapabilityError(
            "VALIDATION", f"input.{key}: {value!r} is not an option of {name!r}: {listed}"
        )
    if key == "valueDate":
        try:
            datetime.date.fromisoformat(str(value))
        except ValueError:
            raise CapabilityError(
                "VALIDATION", f"input.{key}: expected a date as YYYY-MM-DD, got {value!r}"
            ) from None
    return key, value


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
def project_item_field_update(client: GitHubClient, input: dict[str, Any]) -> dict[str, Any]:
    field = _targets(client, input)
    key, value = _new_value(field, input)
    ids = {name: input[name] for name in ("projectId", "itemId", "fieldId")}
    if key == "clear":
        client.graphql(_CLEAR_VALUE, ids)
    else:
        client.graphql(_SET_VALUE, {**ids, "value": {key[5].lower() + key[6:]: value}})
    if key == "valueSingleSelectOptionId":
        options = field.get("options") or []
        value = next((o.get("name") for o in options if o.get("id") == value), None)
    return {"itemId": input["itemId"], "fieldId": input["fieldId"], "value": value, "updated": True}
