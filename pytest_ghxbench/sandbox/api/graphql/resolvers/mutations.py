"""GraphQL mutations of the sandbox's endpoint, named and shaped like GitHub's.

Each runs the matching sandbox capability (so the world changes as it does through the REST
API) and returns GitHub's payload object. Capability failures become GraphQL errors
with GitHub's ``type`` (``NOT_FOUND``, ``UNPROCESSABLE``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    FIELD_KEY,
    GraphQLError,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.types import (
    find_node,
    label_node,
    user_node,
)
from pytest_ghxbench.sandbox.api.limits import graphql_problem
from pytest_ghxbench.sandbox.errors import GitHubError
from pytest_ghxbench.sandbox.operations.registry import apply, mutates
from pytest_ghxbench.sandbox.state import Issue, PullRequest

__all__ = [
    "by_number",
    "call_capability",
    "done",
    "input_of",
    "logins_of",
    "need",
    "pull_of",
    "register",
    "typed_node",
]

A = dict[str, Any]
C = Context
_Node = TypeVar("_Node")


def call_capability(ctx: C, name: str, payload: Mapping[str, Any]) -> Any:
    """Apply the world's operation ``name``; a refusal becomes GitHub's GraphQL error."""
    if mutates(name):
        ctx.mutated = True  # even if it then fails: a write was attempted
    try:
        return apply(ctx.world, name, payload)
    except GitHubError as exc:
        raise GraphQLError(exc.graphql_message, type=exc.graphql_type) from None


def input_of(args: A) -> A:
    """The mutation's ``input``, refused when a text in it is over GitHub's limit."""
    value = args.get("input")
    if not isinstance(value, dict):
        raise GraphQLError("Argument 'input' on Field is required and must be an input object")
    too_long = graphql_problem(str(args.get(FIELD_KEY, "")), value)
    if too_long is not None:
        raise GraphQLError(too_long, type="UNPROCESSABLE")
    return value


def need(data: A, key: str) -> Any:
    if data.get(key) in (None, ""):
        raise GraphQLError(f"Argument '{key}' on InputObject is required. Expected type ID!")
    return data[key]


def _node_of_kind(ctx: C, node: Any, kinds: tuple[str, ...]) -> Typed:
    found = find_node(ctx.world, str(node))
    if found is None or found.typename not in kinds:
        raise GraphQLError(
            f"Could not resolve to a node with the global id of '{node}'", type="NOT_FOUND"
        )
    return found


def typed_node(ctx: C, node: Any, kind: str) -> Any:
    return _node_of_kind(ctx, node, (kind,)).value


def issue_or_pull_node(ctx: C, node: Any) -> Typed:
    """The issue or pull request whose global id is ``node``; ``NOT_FOUND`` for anything else."""
    return _node_of_kind(ctx, node, ("Issue", "PullRequest"))


def issue_of(ctx: C, node: Any) -> Issue:
    issue: Issue = typed_node(ctx, node, "Issue")
    return issue


def pull_of(ctx: C, node: Any) -> PullRequest:
    pull: PullRequest = typed_node(ctx, node, "PullRequest")
    return pull


def by_number(ctx: C, pull: PullRequest) -> A:
    repo = ctx.world.repository
    return {"owner": repo.owner, "name": repo.name, "prNumber": pull.number}


def payload_type(name: str, **fields: str) -> str:
    obj(
        name,
        clientMutationId=("String", lambda d, a, c: d.get("clientMutationId")),
        **{key: (kind, (lambda k: lambda d, a, c: d.get(k))(key)) for key, kind in fields.items()},
    )
    return name


def done(data: A, **values: Any) -> A:
    return {"clientMutationId": data.get("clientMutationId"), **values}


def register(field: str, resolver: Any, **payload: str) -> None:
    """Add mutation ``field`` (payload type ``<Field>Payload`` with ``payload``'s fields)."""
    name = field[0].upper() + field[1:] + "Payload"
    obj("Mutation", **{field: (payload_type(name, **payload), resolver)})


# ---------------------------------------------------------------- issues


def _add_comment(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    subject = issue_or_pull_node(ctx, need(data, "subjectId"))
    body = str(data.get("body") or "")
    if subject.typename == "Issue":
        call_capability(ctx, "addComment", {"issueId": subject.value.node_id, "body": body})
    else:
        if not body.strip():
            raise GraphQLError("Body can't be blank", type="UNPROCESSABLE")
        ctx.mutated = True
        with history.tracked(ctx.world, subject.value):
            ctx.world.add_comment(subject.value, body)
    item = subject.value
    edge = (len(item.comments) - 1, (item, item.comments[-1]))
    return done(data, commentEdge=edge, subject=subject)


def _issue_state(closing: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        issue = issue_of(ctx, need(data, "issueId"))
        if closing:
            reason = str(data.get("stateReason") or "COMPLETED").lower()
            call_capability(ctx, "closeIssue", {"issueId": issue.node_id, "reason": reason})
        else:
            call_capability(ctx, "reopenIssue", {"issueId": issue.node_id})
        return done(data, issue=issue)

    return resolve


def _each_node(ids: Any, typename: str, lookup: Callable[[str], _Node | None]) -> list[_Node]:
    """Every id of ``ids`` looked up, or ``NOT_FOUND`` naming the first that is not a
    ``typename``."""
    found = []
    for node in ids or []:
        value = lookup(str(node))
        if value is None:
            raise GraphQLError(
                f"Could not resolve to a {typename} with the global id of '{node}'.",
                type="NOT_FOUND",
            )
        found.append(value)
    return found


def logins_of(ctx: C, ids: Any) -> list[str]:
    return _each_node(ids, "User", lambda node: user_node(ctx.world, node))


def label_names(ctx: C, ids: Any) -> list[str]:
    return [label.name for label in _each_node(ids, "Label", lambda n: label_node(ctx.world, n))]


def milestone_number(ctx: C, node: Any) -> int | None:
    if node is None:
        return None
    milestone = next((m for m in ctx.world.milestones if m.node_id == node), None)
    if milestone is None:
        raise GraphQLError(
            f"Could not resolve to a Milestone with the global id of '{node}'.", type="NOT_FOUND"
        )
    return milestone.number


def _update_issue(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    issue = issue_of(ctx, need(data, "id"))
    node = issue.node_id
    if "title" in data or "body" in data:
        call_capability(
            ctx,
            "updateIssue",
            {"issueId": node, **{k: data[k] for k in ("title", "body") if k in data}},
        )
    if "labelIds" in data:
        call_capability(
            ctx,
            "updateIssue(labelIds:)",
            {"issueId": node, "labels": label_names(ctx, data["labelIds"])},
        )
    if "assigneeIds" in data:
        call_capability(
            ctx,
            "replaceActorsForAssignable",
            {"issueId": node, "assignees": logins_of(ctx, data["assigneeIds"])},
        )
    if "milestoneId" in data:
        call_capability(
            ctx,
            "updateIssue(milestoneId:)",
            {"issueId": node, "milestoneNumber": milestone_number(ctx, data["milestoneId"])},
        )
    if data.get("state") == "CLOSED":
        call_capability(ctx, "closeIssue", {"issueId": node})
    elif data.get("state") == "OPEN":
        call_capability(ctx, "reopenIssue", {"issueId": node})
    return done(data, issue=issue)


def _create_issue(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    if data.get("repositoryId") != ctx.world.repository.node_id:
        raise GraphQLError(
            f"Could not resolve to a node with the global id of '{data.get('repositoryId')}'",
            type="NOT_FOUND",
        )
    payload: A = {
        **_repo(ctx),
        "title": str(data.get("title") or ""),
        "body": str(data.get("body") or ""),
    }
    payload["labels"] = label_names(ctx, data.get("labelIds"))
    payload["assignees"] = logins_of(ctx, data.get("assigneeIds"))
    number = milestone_number(ctx, data.get("milestoneId"))
    if number is not None:
        payload["milestoneNumber"] = number
    if data.get("issueTypeId"):
        kind = next((t for t in ctx.world.issue_types if t.node_id == data["issueTypeId"]), None)
        if kind is None:
            raise GraphQLError("Could not resolve to an IssueType", type="NOT_FOUND")
        payload["issueType"] = kind.name
    created = call_capability(ctx, "createIssue", payload)
    return done(data, issue=ctx.world.issue(created["number"]))


def _repo(ctx: C) -> A:
    repo = ctx.world.repository
    return {"owner": repo.owner, "name": repo.name}


def _delete_issue(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    issue = issue_of(ctx, need(data, "issueId"))
    call_capability(ctx, "deleteIssue", {"issueId": issue.node_id})
    return done(data, repository=ctx.world)


def _labels_change(adding: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        target_id = need(data, "labelableId")
        names = label_names(ctx, data.get("labelIds"))
        target = issue_or_pull_node(ctx, target_id)
        item = target.value
        wanted = [*item.labels, *names] if adding else [n for n in item.labels if n not in names]
        if target.typename == "Issue":
            call_capability(
                ctx,
                "updateIssue(labelIds:)",
                {"issueId": item.node_id, "labels": list(dict.fromkeys(wanted))},
            )
        else:
            ctx.mutated = True
            with history.tracked(ctx.world, item):
                item.labels = list(dict.fromkeys(wanted))
                item.updated_at = ctx.world.tick()
        return done(data, labelable=target)

    return resolve


def _assignees_change(adding: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        target_id = need(data, "assignableId")
        logins = logins_of(ctx, data.get("assigneeIds"))
        target = issue_or_pull_node(ctx, target_id)
        item = target.value
        if target.typename == "Issue":
            wanted = (
                [*item.assignees, *logins]
                if adding
                else [x for x in item.assignees if x not in logins]
            )
            call_capability(
                ctx,
                "replaceActorsForAssignable",
                {"issueId": item.node_id, "assignees": list(dict.fromkeys(wanted))},
            )
        else:
            change = {"add": logins} if adding else {"remove": logins}
            call_capability(
                ctx, "updatePullRequest(assigneeIds:)", {**by_number(ctx, item), **change}
            )
        return done(data, assignable=target)

    return resolve


def _sub_issue(adding: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        parent = issue_of(ctx, need(data, "issueId"))
        if adding and data.get("subIssueUrl") and not data.get("subIssueId"):
            match = re.search(r"/issues/(\d+)$", str(data["subIssueUrl"]))
            child = ctx.world.issue(int(match.group(1))) if match else None
            if child is None:
                raise GraphQLError(
                    f"Could not resolve to an Issue with the URL of '{data['subIssueUrl']}'",
                    type="NOT_FOUND",
                )
        else:
            child = issue_of(ctx, need(data, "subIssueId"))
        if adding:
            call_capability(
                ctx, "addSubIssue", {"issueId": child.node_id, "parentIssueId": parent.node_id}
            )
        else:
            if child.parent != parent.number:
                raise GraphQLError(
                    f"Issue #{child.number} is not a sub-issue of #{parent.number}",
                    type="UNPROCESSABLE",
                )
            call_capability(ctx, "removeSubIssue", {"issueId": child.node_id})
        return done(data, issue=parent, subIssue=child)

    return resolve


def _blocked_by(adding: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        issue = issue_of(ctx, need(data, "issueId"))
        blocker = issue_of(ctx, need(data, "blockingIssueId"))
        task = "addBlockedBy" if adding else "removeBlockedBy"
        call_capability(ctx, task, {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id})
        return done(data, issue=issue, blockingIssue=blocker)

    return resolve


register(
    "addComment",
    _add_comment,
    commentEdge="IssueCommentEdge",
    subject="Node",
)
register("closeIssue", _issue_state(True), issue="Issue")
register("reopenIssue", _issue_state(False), issue="Issue")
register("updateIssue", _update_issue, issue="Issue")
register("createIssue", _create_issue, issue="Issue")
register("deleteIssue", _delete_issue, repository="Repository")
register("addLabelsToLabelable", _labels_change(True), labelable="Labelable")
register("removeLabelsFromLabelable", _labels_change(False), labelable="Labelable")
register("addAssigneesToAssignable", _assignees_change(True), assignable="Assignable")
register("removeAssigneesFromAssignable", _assignees_change(False), assignable="Assignable")
register("addSubIssue", _sub_issue(True), issue="Issue", subIssue="Issue")
register("removeSubIssue", _sub_issue(False), issue="Issue", subIssue="Issue")
register("addBlockedBy", _blocked_by(True), issue="Issue", blockingIssue="Issue")
register("removeBlockedBy", _blocked_by(False), issue="Issue", blockingIssue="Issue")
abstract(
    "Labelable",
    ("Issue", "PullRequest"),
    labels=connection("Label", lambda v, a, c: []),
)
abstract(
    "Assignable",
    ("Issue", "PullRequest"),
    assignees=connection("User", lambda v, a, c: []),
)
