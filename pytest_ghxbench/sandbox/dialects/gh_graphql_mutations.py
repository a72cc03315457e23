"""GraphQL mutations of the sandbox's endpoint, named and shaped like GitHub's.

Each runs the matching sandbox capability (so the world changes exactly as it does through
``ghx`` or MCP) and returns GitHub's payload object. Capability failures become GraphQL errors
with GitHub's ``type`` (``NOT_FOUND``, ``UNPROCESSABLE``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_ghxbench.sandbox.capabilities.registry import get_capability, run_capability
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
from pytest_ghxbench.sandbox.dialects.gh_graphql import GraphQLError, abstract, connection, obj
from pytest_ghxbench.sandbox.dialects.gh_graphql_types import (
    find_node,
    issue_url,
    label_node,
    user_node,
)
from pytest_ghxbench.sandbox.state import Issue, PullRequest

__all__: list[str] = []

A = dict[str, Any]
C = GhContext
_TYPES = {"NOT_FOUND": "NOT_FOUND", "VALIDATION": "UNPROCESSABLE", "CONFLICT": "UNPROCESSABLE"}


def _call(ctx: C, task: str, payload: Mapping[str, Any]) -> Any:
    cap = get_capability(task)
    if cap is not None and cap.mutates:
        ctx.mutated = True
    envelope = run_capability(ctx.world, task, payload)
    if not envelope["ok"]:
        error = envelope["error"] or {}
        message = re.sub(r"^input(?:\.\w+)*: ", "", str(error.get("message", "")))
        raise GraphQLError(message, type=_TYPES.get(str(error.get("code")), "UNPROCESSABLE"))
    return envelope["data"]


def _input(args: A) -> A:
    value = args.get("input")
    if not isinstance(value, dict):
        raise GraphQLError("Argument 'input' on Field is required and must be an input object")
    return value


def _need(data: A, key: str) -> Any:
    if data.get(key) in (None, ""):
        raise GraphQLError(f"Argument '{key}' on InputObject is required. Expected type ID!")
    return data[key]


def _typed(ctx: C, node: Any, kind: str) -> Any:
    found = find_node(ctx.world, str(node))
    if found is None or found.typename != kind:
        raise GraphQLError(
            f"Could not resolve to a node with the global id of '{node}'", type="NOT_FOUND"
        )
    return found.value


def _issue(ctx: C, node: Any) -> Issue:
    issue: Issue = _typed(ctx, node, "Issue")
    return issue


def _pull(ctx: C, node: Any) -> PullRequest:
    pull: PullRequest = _typed(ctx, node, "PullRequest")
    return pull


def _by_number(ctx: C, pull: PullRequest) -> A:
    repo = ctx.world.repository
    return {"owner": repo.owner, "name": repo.name, "prNumber": pull.number}


def _payload(name: str, **fields: str) -> str:
    obj(
        name,
        clientMutationId=("String", lambda d, a, c: d.get("clientMutationId")),
        **{key: (kind, (lambda k: lambda d, a, c: d.get(k))(key)) for key, kind in fields.items()},
    )
    return name


def _done(data: A, **values: Any) -> A:
    return {"clientMutationId": data.get("clientMutationId"), **values}


# ---------------------------------------------------------------- review threads


def _set_thread(resolved: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = _input(args)
        node = _need(data, "threadId")
        _call(ctx, "pr.comment.resolve" if resolved else "pr.comment.unresolve", {"threadId": node})
        found = ctx.world.review_thread(str(node))
        return _done(data, thread=found)

    return resolve


def _thread_reply(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    node = _need(data, "pullRequestReviewThreadId")
    _call(ctx, "pr.comment.reply", {"threadId": node, "body": data.get("body", "")})
    found = ctx.world.review_thread(str(node))
    assert found is not None
    return _done(data, comment=(found[0], found[1].comments[-1]))


def _review_comment_reply(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    parent = _typed(ctx, _need(data, "inReplyTo"), "PullRequestReviewComment")
    pull, note = parent
    thread = next(t for t in pull.review_threads if note in t.comments)
    _call(ctx, "pr.comment.reply", {"threadId": thread.node_id, "body": data.get("body", "")})
    return _done(data, comment=(pull, thread.comments[-1]))


# ---------------------------------------------------------------- issues


def _add_comment(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    subject = find_node(ctx.world, str(_need(data, "subjectId")))
    body = str(data.get("body") or "")
    if subject is None or subject.typename not in ("Issue", "PullRequest"):
        raise GraphQLError(
            f"Could not resolve to a node with the global id of '{data['subjectId']}'",
            type="NOT_FOUND",
        )
    if subject.typename == "Issue":
        _call(ctx, "issue.comments.create", {"issueId": subject.value.node_id, "body": body})
    else:
        from pytest_ghxbench.sandbox.dialects.gh_pr_write import add_conversation_comment

        if not body.strip():
            raise GraphQLError("Body can't be blank", type="UNPROCESSABLE")
        ctx.mutated = True
        add_conversation_comment(ctx.world, subject.value, body)
    item = subject.value
    edge = (len(item.comments) - 1, (item, item.comments[-1]))
    return _done(data, commentEdge=edge, subject=subject, timelineEdge=None)


def _issue_state(closing: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = _input(args)
        issue = _issue(ctx, _need(data, "issueId"))
        if closing:
            reason = str(data.get("stateReason") or "COMPLETED").lower()
            _call(ctx, "issue.close", {"issueId": issue.node_id, "reason": reason})
        else:
            _call(ctx, "issue.reopen", {"issueId": issue.node_id})
        return _done(data, issue=issue)

    return resolve


def _logins(ctx: C, ids: Any) -> list[str]:
    logins = []
    for node in ids or []:
        login = user_node(ctx.world, str(node))
        if login is None:
            raise GraphQLError(
                f"Could not resolve to a User with the global id of '{node}'.", type="NOT_FOUND"
            )
        logins.append(login)
    return logins


def _label_names(ctx: C, ids: Any) -> list[str]:
    names = []
    for node in ids or []:
        label = label_node(ctx.world, str(node))
        if label is None:
            raise GraphQLError(
                f"Could not resolve to a Label with the global id of '{node}'.", type="NOT_FOUND"
            )
        names.append(label.name)
    return names


def _milestone_number(ctx: C, node: Any) -> int | None:
    if node is None:
        return None
    milestone = next((m for m in ctx.world.milestones if m.node_id == node), None)
    if milestone is None:
        raise GraphQLError(
            f"Could not resolve to a Milestone with the global id of '{node}'.", type="NOT_FOUND"
        )
    return milestone.number


def _update_issue(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    issue = _issue(ctx, _need(data, "id"))
    node = issue.node_id
    if "title" in data or "body" in data:
        _call(
            ctx,
            "issue.update",
            {"issueId": node, **{k: data[k] for k in ("title", "body") if k in data}},
        )
    if "labelIds" in data:
        _call(
            ctx,
            "issue.labels.update",
            {"issueId": node, "labels": _label_names(ctx, data["labelIds"])},
        )
    if "assigneeIds" in data:
        _call(
            ctx,
            "issue.assignees.update",
            {"issueId": node, "assignees": _logins(ctx, data["assigneeIds"])},
        )
    if "milestoneId" in data:
        _call(
            ctx,
            "issue.milestone.set",
            {"issueId": node, "milestoneNumber": _milestone_number(ctx, data["milestoneId"])},
        )
    if data.get("state") == "CLOSED":
        _call(ctx, "issue.close", {"issueId": node})
    elif data.get("state") == "OPEN":
        _call(ctx, "issue.reopen", {"issueId": node})
    return _done(data, issue=issue)


def _create_issue(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
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
    payload["labels"] = _label_names(ctx, data.get("labelIds"))
    payload["assignees"] = _logins(ctx, data.get("assigneeIds"))
    number = _milestone_number(ctx, data.get("milestoneId"))
    if number is not None:
        payload["milestoneNumber"] = number
    if data.get("issueTypeId"):
        kind = next((t for t in ctx.world.issue_types if t.node_id == data["issueTypeId"]), None)
        if kind is None:
            raise GraphQLError("Could not resolve to an IssueType", type="NOT_FOUND")
        payload["issueType"] = kind.name
    created = _call(ctx, "issue.create", payload)
    return _done(data, issue=ctx.world.issue(created["number"]))


def _repo(ctx: C) -> A:
    repo = ctx.world.repository
    return {"owner": repo.owner, "name": repo.name}


def _delete_issue(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    issue = _issue(ctx, _need(data, "issueId"))
    _call(ctx, "issue.delete", {"issueId": issue.node_id})
    return _done(data, repository=ctx.world)


def _labels_change(adding: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = _input(args)
        target = find_node(ctx.world, str(_need(data, "labelableId")))
        names = _label_names(ctx, data.get("labelIds"))
        if target is None or target.typename not in ("Issue", "PullRequest"):
            raise GraphQLError(
                f"Could not resolve to a node with the global id of '{data['labelableId']}'",
                type="NOT_FOUND",
            )
        item = target.value
        wanted = [*item.labels, *names] if adding else [n for n in item.labels if n not in names]
        if target.typename == "Issue":
            _call(
                ctx,
                "issue.labels.update",
                {"issueId": item.node_id, "labels": list(dict.fromkeys(wanted))},
            )
        else:
            ctx.mutated = True
            item.labels = list(dict.fromkeys(wanted))
            item.updated_at = ctx.world.tick()
        return _done(data, labelable=target)

    return resolve


def _assignees_change(adding: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = _input(args)
        target = find_node(ctx.world, str(_need(data, "assignableId")))
        logins = _logins(ctx, data.get("assigneeIds"))
        if target is None or target.typename not in ("Issue", "PullRequest"):
            raise GraphQLError(
                f"Could not resolve to a node with the global id of '{data['assignableId']}'",
                type="NOT_FOUND",
            )
        item = target.value
        if target.typename == "Issue":
            wanted = (
                [*item.assignees, *logins]
                if adding
                else [x for x in item.assignees if x not in logins]
            )
            _call(
                ctx,
                "issue.assignees.update",
                {"issueId": item.node_id, "assignees": list(dict.fromkeys(wanted))},
            )
        else:
            change = {"add": logins} if adding else {"remove": logins}
            _call(ctx, "pr.assignees.update", {**_by_number(ctx, item), **change})
        return _done(data, assignable=target)

    return resolve


def _sub_issue(adding: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = _input(args)
        parent = _issue(ctx, _need(data, "issueId"))
        if adding and data.get("subIssueUrl") and not data.get("subIssueId"):
            match = re.search(r"/issues/(\d+)$", str(data["subIssueUrl"]))
            child = ctx.world.issue(int(match.group(1))) if match else None
            if child is None:
                raise GraphQLError(
                    f"Could not resolve to an Issue with the URL of '{data['subIssueUrl']}'",
                    type="NOT_FOUND",
                )
        else:
            child = _issue(ctx, _need(data, "subIssueId"))
        if adding:
            _call(
                ctx, "issue.parent.set", {"issueId": child.node_id, "parentIssueId": parent.node_id}
            )
        else:
            if child.parent != parent.number:
                raise GraphQLError(
                    f"Issue #{child.number} is not a sub-issue of #{parent.number}",
                    type="UNPROCESSABLE",
                )
            _call(ctx, "issue.parent.remove", {"issueId": child.node_id})
        return _done(data, issue=parent, subIssue=child)

    return resolve


def _blocked_by(adding: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = _input(args)
        issue = _issue(ctx, _need(data, "issueId"))
        blocker = _issue(ctx, _need(data, "blockingIssueId"))
        task = "issue.blocked_by.add" if adding else "issue.blocked_by.remove"
        _call(ctx, task, {"issueId": issue.node_id, "blockedByIssueId": blocker.node_id})
        return _done(data, issue=issue, blockingIssue=blocker)

    return resolve


# ---------------------------------------------------------------- pull requests


def _ready(ready: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = _input(args)
        pull = _pull(ctx, _need(data, "pullRequestId"))
        _call(ctx, "pr.ready_for_review.set", {**_by_number(ctx, pull), "ready": ready})
        return _done(data, pullRequest=pull)

    return resolve


_EVENTS = {
    "APPROVE": "pr.review.submit_approve",
    "REQUEST_CHANGES": "pr.review.submit_request_changes",
    "COMMENT": "pr.review.submit_comment",
}


def _add_review(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    pull = _pull(ctx, _need(data, "pullRequestId"))
    event = str(data.get("event") or "")
    if event not in _EVENTS:
        raise GraphQLError(
            "pending reviews are not supported in the sandbox; pass event: APPROVE, "
            "REQUEST_CHANGES or COMMENT",
            type="UNPROCESSABLE",
        )
    body = data.get("body")
    _call(ctx, _EVENTS[event], {**_by_number(ctx, pull), **({"body": body} if body else {})})
    return _done(data, pullRequestReview=(pull, pull.reviews[-1]))


def _merge(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    pull = _pull(ctx, _need(data, "pullRequestId"))
    method = str(data.get("mergeMethod") or "MERGE").lower()
    _call(ctx, "pr.merge.execute", {**_by_number(ctx, pull), "method": method})
    return _done(data, pullRequest=pull)


def _update_branch(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    pull = _pull(ctx, _need(data, "pullRequestId"))
    _call(ctx, "pr.branch.update", _by_number(ctx, pull))
    return _done(data, pullRequest=pull)


def _request_reviews(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    pull = _pull(ctx, _need(data, "pullRequestId"))
    logins = _logins(ctx, data.get("userIds"))
    if logins:
        _call(ctx, "pr.reviewers.request", {**_by_number(ctx, pull), "reviewers": logins})
    return _done(data, pullRequest=pull)


def _update_pull(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    pull = _pull(ctx, _need(data, "pullRequestId"))
    ctx.mutated = True
    pull.title = str(data.get("title", pull.title))
    pull.body = str(data.get("body", pull.body))
    if data.get("state") in ("OPEN", "CLOSED") and pull.state != "MERGED":
        pull.state = data["state"]
    pull.updated_at = ctx.world.tick()
    return _done(data, pullRequest=pull)


# ---------------------------------------------------------------- projects


def _add_project_item(_: Any, args: A, ctx: C) -> A:
    data = _input(args)
    project = _typed(ctx, _need(data, "projectId"), "ProjectV2")
    content = find_node(ctx.world, str(_need(data, "contentId")))
    if content is None or content.typename != "Issue":
        raise GraphQLError(
            "the sandbox adds issues to projects; pass an issue's node id as contentId",
            type="UNPROCESSABLE",
        )
    url = issue_url(ctx.world, content.value.number)
    added = _call(
        ctx,
        "project_v2.item.add_issue",
        {"owner": project.owner, "projectNumber": project.number, "issueUrl": url},
    )
    item = next(i for i in project.items if i.id == added["itemId"])
    return _done(data, item=(project, item))


def _set_field(clear: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = _input(args)
        payload: A = {key: _need(data, key) for key in ("projectId", "itemId", "fieldId")}
        if clear:
            payload["clear"] = True
        else:
            value = data.get("value") or {}
            names = {
                "text": "valueText",
                "number": "valueNumber",
                "date": "valueDate",
                "singleSelectOptionId": "valueSingleSelectOptionId",
                "iterationId": "valueIterationId",
            }
            payload.update({names[k]: v for k, v in value.items() if k in names})
        _call(ctx, "project_v2.item.field.update", payload)
        project = ctx.world.project_by_node_id(str(payload["projectId"]))
        assert project is not None
        item = next(i for i in project.items if i.id == payload["itemId"])
        return _done(data, projectV2Item=(project, item))

    return resolve


_M: dict[str, tuple[str, Any]] = {}


def _register(field: str, resolver: Any, **payload: str) -> None:
    name = field[0].upper() + field[1:] + "Payload"
    _M[field] = (_payload(name, **payload), resolver)


_register("resolveReviewThread", _set_thread(True), thread="PullRequestReviewThread")
_register("unresolveReviewThread", _set_thread(False), thread="PullRequestReviewThread")
_register("addPullRequestReviewThreadReply", _thread_reply, comment="PullRequestReviewComment")
_register("addPullRequestReviewComment", _review_comment_reply, comment="PullRequestReviewComment")
_register(
    "addComment",
    _add_comment,
    commentEdge="IssueCommentEdge",
    subject="Node",
    timelineEdge="IssueCommentEdge",
)
_register("closeIssue", _issue_state(True), issue="Issue")
_register("reopenIssue", _issue_state(False), issue="Issue")
_register("updateIssue", _update_issue, issue="Issue")
_register("createIssue", _create_issue, issue="Issue")
_register("deleteIssue", _delete_issue, repository="Repository")
_register("addLabelsToLabelable", _labels_change(True), labelable="Labelable")
_register("removeLabelsFromLabelable", _labels_change(False), labelable="Labelable")
_register("addAssigneesToAssignable", _assignees_change(True), assignable="Assignable")
_register("removeAssigneesFromAssignable", _assignees_change(False), assignable="Assignable")
_register("addSubIssue", _sub_issue(True), issue="Issue", subIssue="Issue")
_register("removeSubIssue", _sub_issue(False), issue="Issue", subIssue="Issue")
_register("addBlockedBy", _blocked_by(True), issue="Issue", blockingIssue="Issue")
_register("removeBlockedBy", _blocked_by(False), issue="Issue", blockingIssue="Issue")
_register("markPullRequestReadyForReview", _ready(True), pullRequest="PullRequest")
_register("convertPullRequestToDraft", _ready(False), pullRequest="PullRequest")
_register("addPullRequestReview", _add_review, pullRequestReview="PullRequestReview")
_register("mergePullRequest", _merge, pullRequest="PullRequest")
_register("updatePullRequestBranch", _update_branch, pullRequest="PullRequest")
_register("requestReviews", _request_reviews, pullRequest="PullRequest")
_register("updatePullRequest", _update_pull, pullRequest="PullRequest")
_register("addProjectV2ItemById", _add_project_item, item="ProjectV2Item")
_register("updateProjectV2ItemFieldValue", _set_field(False), projectV2Item="ProjectV2Item")
_register("clearProjectV2ItemFieldValue", _set_field(True), projectV2Item="ProjectV2Item")
abstract(
    "Labelable",
    ("Issue", "PullRequest"),
    id=("ID", lambda v, a, c: None),
    labels=connection("Label", lambda v, a, c: []),
)
abstract(
    "Assignable",
    ("Issue", "PullRequest"),
    id=("ID", lambda v, a, c: None),
    assignees=connection("User", lambda v, a, c: []),
)
obj("Mutation", **_M)
