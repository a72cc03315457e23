"""Handlers of the MCP Projects v2 tools (routed in :mod:`.mcp_exec_rest`).

Projects, fields and items get REST-style numeric ids derived from their node ids
(:func:`database_id`); tools accept either form. The world keeps no status updates or views, so
those lists are empty and status updates are never found.
"""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.mcp_exec_base import ToolCall, database_id, fetch_all
from pytest_ghxbench.sandbox.state import Project

__all__ = [
    "add_item",
    "delete_item",
    "empty_list",
    "get_field",
    "get_item",
    "get_project",
    "list_fields",
    "list_items",
    "list_projects",
    "no_status_update",
    "update_item",
]


def _project(call: ToolCall, args: dict[str, Any]) -> Project:
    owner, number = str(args["owner"]), int(args["project_number"])
    kind = args.get("owner_type")
    if kind is None:
        found = call.world.project(owner, number)
        kind = "user" if found is not None and found.owner_type == "User" else "org"
    capability_id, key = (
        ("project_v2.user.get", "user") if kind == "user" else ("project_v2.org.get", "org")
    )
    call.run(capability_id, {key: owner, "projectNumber": number})
    project = call.world.project(owner, number)
    assert project is not None
    return project


def _project_object(project: Project) -> dict[str, Any]:
    return {"id": database_id(project.node_id), "node_id": project.node_id,
            "number": project.number, "title": project.title,
            "short_description": project.short_description, "public": project.public,
            "closed": project.closed, "url": project.url,
            "owner": {"login": project.owner, "type": project.owner_type},
            "created_at": project.created_at, "updated_at": project.updated_at}  # fmt: skip


def list_projects(call: ToolCall, args: dict[str, Any]) -> Any:
    owner = str(args["owner"]).casefold()
    words = str(args.get("query") or "").split()
    found = [p for p in call.world.projects if p.owner.casefold() == owner]
    for word in words:
        if word in ("is:open", "is:closed"):
            found = [p for p in found if p.closed == (word == "is:closed")]
        else:
            found = [p for p in found if word.casefold() in p.title.casefold()]
    return {"projects": [_project_object(p) for p in found], "pageInfo": {"hasNextPage": False}}


def _field_object(field: Any) -> dict[str, Any]:
    return {"id": database_id(field.id), "node_id": field.id, "name": field.name,
            "data_type": field.data_type.lower(),
            "options": [{"id": o.id, "name": o.name} for o in field.options]}  # fmt: skip


def list_fields(call: ToolCall, args: dict[str, Any]) -> Any:
    project = _project(call, args)
    fetch_all(
        call, "project_v2.fields.list", {"owner": project.owner, "projectNumber": project.number}
    )
    return {
        "fields": [_field_object(f) for f in project.fields],
        "pageInfo": {"hasNextPage": False},
    }


def _item_object(
    call: ToolCall, project: Project, item: Any, fields: list[str] | None
) -> dict[str, Any]:
    issue = call.world.issue(item.content_number) if item.content_number else None
    pull = call.world.pull_request(item.content_number) if item.content_number else None
    content = issue or pull
    shown: dict[str, Any] = {
        "id": database_id(item.id), "node_id": item.id, "content_type": item.content_type,
        "title": content.title if content else item.title,
        "content": {"number": content.number} if content else None,
    }  # fmt: skip
    if fields is not None:
        wanted = {str(f) for f in fields}
        values = []
        for field in project.fields:
            if (
                field.id in item.field_values
                and {str(database_id(field.id)), field.id, field.name} & wanted
            ):
                raw = item.field_values[field.id]
                option = next((o.name for o in field.options if o.id == raw), raw)
                values.append({"id": database_id(field.id), "name": field.name, "value": option})
        shown["fields"] = values
    return shown


def list_items(call: ToolCall, args: dict[str, Any]) -> Any:
    project = _project(call, args)
    fetch_all(
        call, "project_v2.items.list", {"owner": project.owner, "projectNumber": project.number}
    )
    fields = args.get("fields") or args.get("field_names")
    items = [_item_object(call, project, i, fields) for i in project.items if not i.is_archived]
    return {"items": items, "pageInfo": {"hasNextPage": False}}


def empty_list(key: str) -> Any:
    def read(call: ToolCall, args: dict[str, Any]) -> Any:
        _project(call, args)
        return {key: [], "pageInfo": {"hasNextPage": False}}

    return read


def get_project(call: ToolCall, args: dict[str, Any]) -> Any:
    return _project_object(_project(call, args))


def _find(call: ToolCall, rows: list[Any], key: Any, what: str) -> Any:
    found = next(
        (r for r in rows if key is not None and str(key) in (str(database_id(r.id)), r.id)), None
    )
    if found is None:
        raise call.fail(f"{what} {key} not found")
    return found


def get_field(call: ToolCall, args: dict[str, Any]) -> Any:
    project = _project(call, args)
    return _field_object(_find(call, project.fields, args.get("field_id"), "field"))


def get_item(call: ToolCall, args: dict[str, Any]) -> Any:
    project = _project(call, args)
    item = _find(call, project.items, args.get("item_id"), "item")
    return _item_object(call, project, item, args.get("fields") or [f.id for f in project.fields])


def no_status_update(call: ToolCall, args: dict[str, Any]) -> Any:
    _project(call, args)
    raise call.fail(f"status update {args.get('status_update_id')!r} not found")


def add_item(call: ToolCall, args: dict[str, Any]) -> Any:
    project = _project(call, args)
    if args.get("item_type", "issue") != "issue" or args.get("issue_number") is None:
        raise call.fail("the sandbox adds issues: give item_type issue and issue_number")
    repo = call.world.repository
    url = f"{repo.url}/issues/{int(args['issue_number'])}"
    data = call.run(
        "project_v2.item.add_issue",
        {"owner": project.owner, "projectNumber": project.number, "issueUrl": url},
    )
    item = _find(call, project.items, data.get("itemId") or data.get("id"), "item")
    return _item_object(call, project, item, None)


def update_item(call: ToolCall, args: dict[str, Any]) -> Any:
    project = _project(call, args)
    item = _find(call, project.items, args.get("item_id"), "item")
    updates = list(args.get("updated_fields") or []) + (
        [args["updated_field"]] if args.get("updated_field") else []
    )
    if not updates:
        raise call.fail("missing required parameter: updated_field")
    for update in updates:
        field = _find(call, project.fields, update.get("id"), "field")
        input: dict[str, Any] = {
            "projectId": project.node_id,
            "itemId": item.id,
            "fieldId": field.id,
        }
        value = update.get("value")
        if value is None:
            input["clear"] = True
        elif field.data_type == "SINGLE_SELECT":
            option = next((o for o in field.options if value in (o.id, o.name)), None)
            if option is None:
                raise call.fail(f"field {field.name} has no option {value!r}")
            input["valueSingleSelectOptionId"] = option.id
        elif field.data_type == "NUMBER":
            input["valueNumber"] = float(value)
        elif field.data_type == "DATE":
            input["valueDate"] = str(value)
        else:
            input["valueText"] = str(value)
        call.run("project_v2.item.field.update", input)
    return _item_object(call, project, item, [f.id for f in project.fields])


def delete_item(call: ToolCall, args: dict[str, Any]) -> Any:
    project = _project(call, args)
    item = _find(call, project.items, args.get("item_id"), "item")
    project.items.remove(item)
    call.touched()
    return "project item successfully deleted"
