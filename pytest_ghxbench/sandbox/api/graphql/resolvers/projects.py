"""GraphQL types for Projects v2: boards, fields (plain, single select, iteration), items,
their content and field values."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers.context import DOTCOM
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.state import Project, ProjectItem, World

__all__ = ["project_by_number", "project_items_of"]


def _actor(world: World, login: str) -> Typed | None:
    from pytest_ghxbench.sandbox.api.graphql.resolvers.types import actor

    return actor(world, login)


def project_by_number(world: World, owner: str, number: Any) -> Project:
    project = world.project(owner, int(number))
    if project is None:
        raise GraphQLError(
            f"Could not resolve to a ProjectV2 with the number {number}.", type="NOT_FOUND"
        )
    return project


def project_items_of(world: World, kind: str, number: int) -> list[tuple[Project, ProjectItem]]:
    return [
        (p, i)
        for p in world.projects
        for i in p.items
        if i.content_type == kind and i.content_number == number
    ]


_FIELD_TYPES = {
    "SINGLE_SELECT": "ProjectV2SingleSelectField",
    "ITERATION": "ProjectV2IterationField",
}


def _field_typed(field: Any) -> Typed:
    return Typed(_FIELD_TYPES.get(field.data_type, "ProjectV2Field"), field)


_FIELD_COMMON: dict[str, tuple[str, Any]] = {
    "id": ("ID", lambda f, a, c: f.id),
    "name": ("String", lambda f, a, c: f.name),
    "dataType": ("ProjectV2FieldType", lambda f, a, c: f.data_type),
}
obj("ProjectV2Field", **_FIELD_COMMON)
obj("ProjectV2IterationField", **_FIELD_COMMON)
obj(
    "ProjectV2SingleSelectFieldOption",
    id=("String", lambda o, a, c: o.id),
    name=("String", lambda o, a, c: o.name),
    color=("ProjectV2SingleSelectFieldOptionColor", lambda o, a, c: o.color),
    description=("String", lambda o, a, c: o.description),
)
obj(
    "ProjectV2SingleSelectField",
    **_FIELD_COMMON,
    options=("[ProjectV2SingleSelectFieldOption]", lambda f, a, c: list(f.options)),
)
_FIELD_KINDS = ("ProjectV2Field", "ProjectV2SingleSelectField", "ProjectV2IterationField")
abstract("ProjectV2FieldConfiguration", _FIELD_KINDS)
abstract("ProjectV2FieldCommon", _FIELD_KINDS, **_FIELD_COMMON)


def _values(project: Project, item: ProjectItem) -> list[Typed]:
    typed = []
    for field in project.fields:
        value = item.field_values.get(field.id)
        if value is None:
            continue
        if field.data_type == "SINGLE_SELECT":
            option = next((o for o in field.options if o.id == value), None)
            if option is not None:
                typed.append(Typed("ProjectV2ItemFieldSingleSelectValue", (field, option)))
        elif field.data_type == "NUMBER":
            typed.append(Typed("ProjectV2ItemFieldNumberValue", (field, value)))
        elif field.data_type == "DATE":
            typed.append(Typed("ProjectV2ItemFieldDateValue", (field, value)))
        else:
            typed.append(Typed("ProjectV2ItemFieldTextValue", (field, value)))
    return typed


_VALUE_FIELD = ("ProjectV2FieldConfiguration", lambda v, a, c: _field_typed(v[0]))
obj(
    "ProjectV2ItemFieldSingleSelectValue",
    name=("String", lambda v, a, c: v[1].name),
    optionId=("String", lambda v, a, c: v[1].id),
    field=_VALUE_FIELD,
)
obj("ProjectV2ItemFieldTextValue", text=("String", lambda v, a, c: str(v[1])), field=_VALUE_FIELD)
obj("ProjectV2ItemFieldNumberValue", number=("Float", lambda v, a, c: v[1]), field=_VALUE_FIELD)
obj("ProjectV2ItemFieldDateValue", date=("Date", lambda v, a, c: v[1]), field=_VALUE_FIELD)
# The sandbox's items hold no values of these kinds; gh's fragments name them all.
obj(
    "ProjectV2ItemFieldIterationValue",
    title=("String", lambda v, a, c: str(v[1])),
    iterationId=("String", lambda v, a, c: str(v[1])),
    startDate=("Date", lambda v, a, c: None),
    duration=("Int", lambda v, a, c: 0),
    field=_VALUE_FIELD,
)
obj(
    "ProjectV2ItemFieldLabelValue",
    labels=connection("Label", lambda v, a, c: list(v[1])),
    field=_VALUE_FIELD,
)
obj(
    "ProjectV2ItemFieldMilestoneValue",
    milestone=("Milestone", lambda v, a, c: v[1]),
    field=_VALUE_FIELD,
)
obj(
    "ProjectV2ItemFieldPullRequestValue",
    pullRequests=connection("PullRequest", lambda v, a, c: list(v[1])),
    field=_VALUE_FIELD,
)
obj(
    "ProjectV2ItemFieldRepositoryValue",
    repository=("Repository", lambda v, a, c: c.world),
    field=_VALUE_FIELD,
)
obj(
    "ProjectV2ItemFieldReviewerValue",
    reviewers=connection("RequestedReviewer", lambda v, a, c: list(v[1])),
    field=_VALUE_FIELD,
)
obj(
    "ProjectV2ItemFieldUserValue",
    users=connection("User", lambda v, a, c: list(v[1])),
    field=_VALUE_FIELD,
)
abstract(
    "ProjectV2ItemFieldValue",
    (
        "ProjectV2ItemFieldSingleSelectValue",
        "ProjectV2ItemFieldTextValue",
        "ProjectV2ItemFieldNumberValue",
        "ProjectV2ItemFieldDateValue",
        "ProjectV2ItemFieldIterationValue",
        "ProjectV2ItemFieldLabelValue",
        "ProjectV2ItemFieldMilestoneValue",
        "ProjectV2ItemFieldPullRequestValue",
        "ProjectV2ItemFieldRepositoryValue",
        "ProjectV2ItemFieldReviewerValue",
        "ProjectV2ItemFieldUserValue",
    ),
)
obj(
    "DraftIssue",
    id=("ID", lambda i, a, c: i.id.replace("PVTI_", "DI_")),
    title=("String", lambda i, a, c: i.title),
    body=("String", lambda i, a, c: ""),
)
abstract("ProjectV2ItemContent", ("Issue", "PullRequest", "DraftIssue"))


def _content(world: World, item: ProjectItem) -> Typed | None:
    if item.content_type == "DraftIssue":
        return Typed("DraftIssue", item)
    if item.content_type == "Issue":
        issue = world.issue(item.content_number or 0)
        return Typed("Issue", issue) if issue else None
    pull = world.pull_request(item.content_number or 0)
    return Typed("PullRequest", pull) if pull else None


obj(
    "ProjectV2Item",
    id=("ID", lambda p, a, c: p[1].id),
    type=(
        "ProjectV2ItemType",
        lambda p, a, c: {"Issue": "ISSUE", "PullRequest": "PULL_REQUEST"}.get(
            p[1].content_type, "DRAFT_ISSUE"
        ),
    ),
    isArchived=("Boolean", lambda p, a, c: p[1].is_archived),
    content=("ProjectV2ItemContent", lambda p, a, c: _content(c.world, p[1])),
    fieldValues=connection("ProjectV2ItemFieldValue", lambda p, a, c: _values(*p)),
    fieldValueByName=(
        "ProjectV2ItemFieldValue",
        lambda p, a, c: next((v for v in _values(*p) if v.value[0].name == a.get("name")), None),
    ),
    project=("ProjectV2", lambda p, a, c: p[0]),
)
obj(
    "ProjectV2",
    id=("ID", lambda p, a, c: p.node_id),
    number=("Int", lambda p, a, c: p.number),
    title=("String", lambda p, a, c: p.title),
    shortDescription=("String", lambda p, a, c: p.short_description or None),
    readme=("String", lambda p, a, c: p.readme or None),
    public=("Boolean", lambda p, a, c: p.public),
    closed=("Boolean", lambda p, a, c: p.closed),
    url=("URI", lambda p, a, c: p.url),
    resourcePath=("URI", lambda p, a, c: p.url.removeprefix(DOTCOM)),
    createdAt=("DateTime", lambda p, a, c: p.created_at),
    updatedAt=("DateTime", lambda p, a, c: p.updated_at),
    owner=("ProjectV2Owner", lambda p, a, c: _actor(c.world, p.owner)),
    fields=connection(
        "ProjectV2FieldConfiguration", lambda p, a, c: [_field_typed(f) for f in p.fields]
    ),
    field=(
        "ProjectV2FieldConfiguration",
        lambda p, a, c: next((_field_typed(f) for f in p.fields if f.name == a.get("name")), None),
    ),
    items=connection("ProjectV2Item", lambda p, a, c: [(p, i) for i in p.items]),
)
abstract("ProjectV2Owner", ("Organization", "User"), id=("ID", lambda v, a, c: None))
