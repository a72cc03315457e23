"""``gh project``: ``list``, ``view``, ``field-list``, ``item-list``, ``item-add`` and
``item-edit`` for Projects v2 boards. Output formats follow gh's ``--format json`` shapes;
adding and editing items go through the ``project_v2.*`` capabilities."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, dump_json, ok, table
from pytest_ghxbench.sandbox.dialects.gh_jq import JqError, run_jq
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Project, ProjectField, ProjectItem, World

__all__ = ["PROJECT_COMMANDS"]

_FIELD_TYPES = {
    "SINGLE_SELECT": "ProjectV2SingleSelectField",
    "ITERATION": "ProjectV2IterationField",
}
FORMAT = Flag("format", "Output format", kind="enum", choices=("json",))
JQ = Flag("jq", "Filter JSON output using a jq expression", short="q", metavar="expression")
TEMPLATE = Flag(
    "template", 'Format JSON output using a Go template; see "gh help formatting"', short="t"
)
OWNER = Flag("owner", 'Login of the owner. Use "@me" for the current user.')
LIMIT = Flag("limit", "Maximum number of items to fetch", short="L", kind="int", default=30)


def _owner(ctx: GhContext, parsed: Parsed) -> str:
    owner = parsed.text("owner")
    if not owner:
        raise GhError("owner is required when not running interactively")
    return ctx.world.viewer if owner == "@me" else owner


def _project(ctx: GhContext, parsed: Parsed) -> Project:
    owner = _owner(ctx, parsed)
    if not parsed.args or not parsed.args[0].isdigit():
        raise GhError("project number is required when not running interactively")
    project = ctx.world.project(owner, int(parsed.args[0]))
    if project is None:
        kind = (
            "an organization or user"
            if not any(u.login == owner for u in ctx.world.users)
            else "a project"
        )
        raise GhError(f"Could not resolve to {kind} with the number of {parsed.args[0]}.")
    return project


def _emit(ctx: GhContext, parsed: Parsed, value: Any, text: str) -> CliResult:
    if parsed.has("template"):
        raise GhError("--template is not supported in the sandbox; use --format json with --jq")
    if parsed.text("jq") and parsed.text("format") != "json":
        raise GhError("cannot use `--jq` without specifying `--format json`")
    if parsed.text("format") == "json":
        if parsed.text("jq"):
            try:
                return ok(run_jq(parsed.text("jq"), value), context=ctx)
            except JqError as exc:
                raise GhError(str(exc)) from None
        return ok(dump_json(value) + "\n", context=ctx)
    return ok(text, context=ctx)


def _project_json(world: World, project: Project) -> dict[str, Any]:
    return {
        "closed": project.closed,
        "fields": {"totalCount": len(project.fields)},
        "id": project.node_id,
        "items": {"totalCount": len(project.items)},
        "number": project.number,
        "owner": {"login": project.owner, "type": project.owner_type},
        "public": project.public,
        "readme": project.readme,
        "shortDescription": project.short_description,
        "title": project.title,
        "url": project.url,
    }


def _list(ctx: GhContext, parsed: Parsed) -> CliResult:
    owner = _owner(ctx, parsed)
    projects = [
        p
        for p in ctx.world.projects
        if p.owner.casefold() == owner.casefold() and (parsed.on("closed") or not p.closed)
    ][: parsed.number("limit")]
    value = {
        "projects": [_project_json(ctx.world, p) for p in projects],
        "totalCount": len(projects),
    }
    rows = [[p.number, p.title, "closed" if p.closed else "open", p.node_id] for p in projects]
    return _emit(ctx, parsed, value, table(rows))


def _view(ctx: GhContext, parsed: Parsed) -> CliResult:
    project = _project(ctx, parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to print the project")
    lines = [
        f"Title\t{project.title}",
        f"Description\t{project.short_description}",
        f"Visibility\t{'Public' if project.public else 'Private'}",
        f"URL\t{project.url}",
        f"Item count\t{len(project.items)}",
        f"Readme\t{project.readme}",
        *[f"Field Name ({_field_type(f)})\t{f.name}" for f in project.fields],
    ]
    return _emit(ctx, parsed, _project_json(ctx.world, project), "\n".join(lines) + "\n")


def _field_type(field: ProjectField) -> str:
    return _FIELD_TYPES.get(field.data_type, "ProjectV2Field")


def _field_json(field: ProjectField) -> dict[str, Any]:
    data: dict[str, Any] = {"id": field.id, "name": field.name, "type": _field_type(field)}
    if field.options:
        data["options"] = [{"id": o.id, "name": o.name} for o in field.options]
    return data


def _field_list(ctx: GhContext, parsed: Parsed) -> CliResult:
    project = _project(ctx, parsed)
    fields = project.fields[: parsed.number("limit")]
    value = {"fields": [_field_json(f) for f in fields], "totalCount": len(project.fields)}
    return _emit(ctx, parsed, value, table([[f.name, _field_type(f), f.id] for f in fields]))


def _camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def _content(world: World, item: ProjectItem) -> tuple[dict[str, Any], Any]:
    if item.content_type == "DraftIssue":
        return {"body": "", "title": item.title, "type": "DraftIssue"}, None
    found = (
        world.issue(item.content_number or 0)
        if item.content_type == "Issue"
        else world.pull_request(item.content_number or 0)
    )
    if found is None:
        return {"type": item.content_type}, None
    kind = "issues" if item.content_type == "Issue" else "pull"
    return {
        "body": found.body,
        "number": found.number,
        "repository": world.repository.full_name,
        "title": found.title,
        "type": item.content_type,
        "url": f"{world.repository.url}/{kind}/{found.number}",
    }, found


def item_json(world: World, project: Project, item: ProjectItem) -> dict[str, Any]:
    """One item as ``gh project item-list --format json`` shows it."""
    content, found = _content(world, item)
    data: dict[str, Any] = {"content": content, "id": item.id}
    for field in project.fields:
        key = _camel(field.name)
        if field.data_type == "TITLE":
            data[key] = content.get("title", item.title)
        elif field.data_type == "ASSIGNEES" and found is not None and found.assignees:
            data[key] = list(found.assignees)
        elif field.data_type == "LABELS" and found is not None and found.labels:
            data[key] = list(found.labels)
        value = item.field_values.get(field.id)
        if value is None:
            continue
        if field.data_type == "SINGLE_SELECT":
            option = next((o for o in field.options if o.id == value), None)
            if option is not None:
                data[key] = option.name
        else:
            data[key] = value
    if found is not None:
        data["repository"] = world.repository.url
    return data


def _item_list(ctx: GhContext, parsed: Parsed) -> CliResult:
    project = _project(ctx, parsed)
    items = project.items[: parsed.number("limit")]
    value = {
        "items": [item_json(ctx.world, project, i) for i in items],
        "totalCount": len(project.items),
    }
    rows = []
    for item in items:
        content, _ = _content(ctx.world, item)
        rows.append(
            [
                content.get("type", ""),
                content.get("title", ""),
                content.get("number", ""),
                content.get("repository", ""),
                item.id,
            ]
        )
    return _emit(ctx, parsed, value, table(rows))


def _item_summary(world: World, item: ProjectItem) -> dict[str, Any]:
    """What ``item-add`` and ``item-edit`` print about the item they touched."""
    content, _ = _content(world, item)
    return {
        "body": content.get("body", ""),
        "id": item.id,
        "title": content.get("title", ""),
        "type": content.get("type", ""),
        "url": content.get("url", ""),
    }


def _item_add(ctx: GhContext, parsed: Parsed) -> CliResult:
    project = _project(ctx, parsed)
    url = parsed.text("url")
    if not url:
        raise GhError('required flag(s) "url" not set')
    data = ctx.call(
        "project_v2.item.add_issue",
        {"owner": project.owner, "projectNumber": project.number, "issueUrl": url},
    )
    item = next(i for i in project.items if i.id == data["itemId"])
    value = _item_summary(ctx.world, item)
    return _emit(ctx, parsed, value, "Added item\n")


_VALUES = {
    "text": "valueText",
    "number": "valueNumber",
    "date": "valueDate",
    "single-select-option-id": "valueSingleSelectOptionId",
    "iteration-id": "valueIterationId",
}


def _item_edit(ctx: GhContext, parsed: Parsed) -> CliResult:
    if not parsed.text("id"):
        raise GhError('required flag(s) "id" not set')
    given = [name for name in _VALUES if parsed.has(name)]
    if len(given) + parsed.on("clear") != 1:
        raise GhError(
            "only one of `--text`, `--number`, `--date`, `--single-select-option-id`, "
            "`--iteration-id` or `--clear` may be used"
        )
    if not parsed.text("project-id") or not parsed.text("field-id"):
        raise GhError("`--project-id` and `--field-id` are required to edit a field value")
    payload: dict[str, Any] = {
        "projectId": parsed.text("project-id"),
        "itemId": parsed.text("id"),
        "fieldId": parsed.text("field-id"),
    }
    if parsed.on("clear"):
        payload["clear"] = True
    else:
        raw = parsed.text(given[0])
        if given[0] == "number":
            try:
                payload["valueNumber"] = float(raw)
            except ValueError:
                raise GhError(f'invalid argument "{raw}" for "--number" flag') from None
        else:
            payload[_VALUES[given[0]]] = raw
    ctx.call("project_v2.item.field.update", payload)
    project = ctx.world.project_by_node_id(payload["projectId"])
    assert project is not None
    item = next(i for i in project.items if i.id == payload["itemId"])
    value = _item_summary(ctx.world, item)
    return _emit(ctx, parsed, value, f'Edited item "{value["title"]}"\n')


def _command(name: str, use: str, short: str, handler: Any, *flags: Flag, args: int = 1) -> Command:
    return Command(
        f"project {name}",
        use,
        short,
        handler,
        flags=tuple(sorted((*flags, FORMAT, JQ, TEMPLATE), key=lambda f: f.long)),
        max_args=args,
        repo_flag=False,
    )


PROJECT_COMMANDS = (
    _command(
        "field-list",
        "field-list [<number>]",
        "List the fields in a project",
        _field_list,
        OWNER,
        LIMIT,
    ),
    _command(
        "item-add",
        "item-add [<number>]",
        "Add a pull request or an issue to a project",
        _item_add,
        OWNER,
        Flag("url", "URL of the issue or pull request to add to the project"),
    ),
    _command(
        "item-edit",
        "item-edit",
        "Edit an item in a project",
        _item_edit,
        Flag("clear", "Remove field value", kind="bool"),
        Flag("date", "Date value for the field (YYYY-MM-DD)"),
        Flag("field-id", "ID of the field to update"),
        Flag("id", "ID of the item to edit"),
        Flag("iteration-id", "ID of the iteration value to set on the field"),
        Flag("number", "Number value for the field"),
        Flag("project-id", "ID of the project to which the field belongs to"),
        Flag("single-select-option-id", "ID of the single select option value to set on the field"),
        Flag("text", "Text value for the field"),
        args=0,
    ),
    _command(
        "item-list", "item-list [<number>]", "List the items in a project", _item_list, OWNER, LIMIT
    ),
    _command(
        "list",
        "list",
        "List the projects for an owner",
        _list,
        OWNER,
        LIMIT,
        Flag("closed", "Include closed projects", kind="bool"),
        args=0,
    ),
    _command(
        "view",
        "view [<number>]",
        "View a project",
        _view,
        OWNER,
        Flag("web", "Open a project in the browser", short="w", kind="bool"),
    ),
)
