"""GraphQL mutations on pull requests (review threads, draft state, merge, branch, reviewers;
reviews are :mod:`.review_writes`'s) and on Projects v2 items, through the sandbox
capabilities."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox import history
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import GraphQLError
from pytest_ghxbench.sandbox.api.graphql.resolvers.mutations import (
    by_number,
    call_capability,
    done,
    input_of,
    label_names,
    logins_of,
    milestone_number,
    need,
    pull_of,
    register,
    typed_node,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.types import find_node, issue_url
from pytest_ghxbench.sandbox.errors import GitHubError
from pytest_ghxbench.sandbox.operations.prs import require_base, require_state, touch
from pytest_ghxbench.sandbox.state import PullRequest

__all__: list[str] = []

A = dict[str, Any]
C = Context


# ---------------------------------------------------------------- review threads


def _set_thread(resolved: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        node = need(data, "threadId")
        call_capability(
            ctx, "resolveReviewThread" if resolved else "unresolveReviewThread", {"threadId": node}
        )
        found = ctx.world.review_thread(str(node))
        return done(data, thread=found)

    return resolve


def _thread_reply(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    node = need(data, "pullRequestReviewThreadId")
    call_capability(
        ctx, "addPullRequestReviewThreadReply", {"threadId": node, "body": data.get("body", "")}
    )
    found = ctx.world.review_thread(str(node))
    assert found is not None
    return done(data, comment=(found[0], found[1].comments[-1]))


def _review_comment_reply(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    parent = typed_node(ctx, need(data, "inReplyTo"), "PullRequestReviewComment")
    pull, note = parent
    thread = next(t for t in pull.review_threads if note in t.comments)
    call_capability(
        ctx,
        "addPullRequestReviewThreadReply",
        {"threadId": thread.node_id, "body": data.get("body", "")},
    )
    return done(data, comment=(pull, thread.comments[-1]))


# ---------------------------------------------------------------- pull requests


def _ready(ready: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        pull = pull_of(ctx, need(data, "pullRequestId"))
        call_capability(
            ctx,
            "markPullRequestReadyForReview|convertPullRequestToDraft",
            {**by_number(ctx, pull), "ready": ready},
        )
        return done(data, pullRequest=pull)

    return resolve


def _merge(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    pull = pull_of(ctx, need(data, "pullRequestId"))
    method = str(data.get("mergeMethod") or "MERGE").lower()
    given = {"commitTitle": data.get("commitHeadline"), "commitBody": data.get("commitBody")}
    message = {key: str(value) for key, value in given.items() if value}
    call_capability(ctx, "mergePullRequest", {**by_number(ctx, pull), "method": method, **message})
    return done(data, pullRequest=pull)


def _update_branch(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    pull = pull_of(ctx, need(data, "pullRequestId"))
    call_capability(ctx, "updatePullRequestBranch", by_number(ctx, pull))
    return done(data, pullRequest=pull)


def _request_reviews(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    pull = pull_of(ctx, need(data, "pullRequestId"))
    logins = logins_of(ctx, data.get("userIds"))
    if logins:
        call_capability(ctx, "requestReviews", {**by_number(ctx, pull), "reviewers": logins})
    return done(data, pullRequest=pull)


def _request_reviews_by_login(_: Any, args: A, ctx: C) -> A:
    """``requestReviewsByLogin``: with ``union`` the logins are added to the requested
    reviewers, without it (gh's way: the whole list) they become exactly those. Additions go
    through ``pr.reviewers.request``; the sandbox has no teams to request."""
    data = input_of(args)
    pull = pull_of(ctx, need(data, "pullRequestId"))
    if data.get("teamSlugs"):
        slug = data["teamSlugs"][0]
        raise GraphQLError(f"Could not resolve to a Team with the slug '{slug}'.", type="NOT_FOUND")
    bots = [str(b).removesuffix("[bot]") for b in data.get("botLogins") or []]
    logins = list(dict.fromkeys([*map(str, data.get("userLogins") or []), *bots]))
    added = [login for login in logins if login not in pull.requested_reviewers]
    if added:
        call_capability(ctx, "requestReviews", {**by_number(ctx, pull), "reviewers": added})
    kept = [r for r in pull.requested_reviewers if data.get("union") or r in logins]
    if kept != pull.requested_reviewers:
        ctx.mutated = True
        with history.tracked(ctx.world, pull):
            pull.requested_reviewers = kept
            touch(ctx.world, pull)
    return done(data, pullRequest=pull)


def _set_assignees(ctx: C, pull: PullRequest, ids: Any) -> None:
    """Assign exactly the users ``ids`` names (in that order after those who stay)."""
    wanted = logins_of(ctx, ids or [])
    add = [login for login in wanted if login not in pull.assignees]
    remove = [login for login in pull.assignees if login not in wanted]
    if add or remove:
        payload = {**by_number(ctx, pull), "add": add, "remove": remove}
        call_capability(ctx, "updatePullRequest(assigneeIds:)", payload)
    else:
        ctx.mutated = True
        touch(ctx.world, pull)


def _update_pull(_: Any, args: A, ctx: C) -> A:
    """``updatePullRequest``: what gh sends after ``createPullRequest`` for ``--label``,
    ``--milestone`` and ``--assignee``, and for ``gh pr edit``."""
    data = input_of(args)
    pull = pull_of(ctx, need(data, "pullRequestId"))
    if "assigneeIds" in data:
        _set_assignees(ctx, pull, data["assigneeIds"])
        if not data.keys() & {"title", "body", "state", "labelIds", "milestoneId", "baseRefName"}:
            return done(data, pullRequest=pull)
    world = ctx.world
    labels = label_names(ctx, data["labelIds"]) if data.get("labelIds") is not None else None
    milestone = milestone_number(ctx, data["milestoneId"]) if "milestoneId" in data else None
    base, state = data.get("baseRefName"), data.get("state")
    try:  # GitHub changes nothing when one of them is refused
        if state in ("OPEN", "CLOSED"):
            require_state(world, pull, str(state))
        if base is not None and state != "OPEN":
            require_base(world, pull, str(base))
    except GitHubError as exc:
        raise GraphQLError(exc.graphql_message, type=exc.graphql_type) from None
    ctx.mutated = True
    with history.tracked(world, pull):
        pull.title = str(data.get("title", pull.title))
        pull.body = str(data.get("body", pull.body))
        if labels is not None:
            pull.labels = labels
        if "milestoneId" in data:
            pull.milestone = milestone
        pull.updated_at = world.tick()
    if state in ("OPEN", "CLOSED"):
        name = "reopenPullRequest" if state == "OPEN" else "closePullRequest"
        call_capability(ctx, name, by_number(ctx, pull))
    if base is not None:
        payload = {**by_number(ctx, pull), "baseRefName": str(base)}
        call_capability(ctx, "updatePullRequest(baseRefName:)", payload)
    return done(data, pullRequest=pull)


# ---------------------------------------------------------------- projects


def _add_project_item(_: Any, args: A, ctx: C) -> A:
    data = input_of(args)
    project = typed_node(ctx, need(data, "projectId"), "ProjectV2")
    content = find_node(ctx.world, str(need(data, "contentId")))
    if content is None or content.typename != "Issue":
        raise GraphQLError(
            "the sandbox adds issues to projects; pass an issue's node id as contentId",
            type="UNPROCESSABLE",
        )
    url = issue_url(ctx.world, content.value.number)
    added = call_capability(
        ctx,
        "addProjectV2ItemById",
        {"owner": project.owner, "projectNumber": project.number, "issueUrl": url},
    )
    item = next(i for i in project.items if i.id == added["itemId"])
    return done(data, item=(project, item))


def _set_field(clear: bool) -> Any:
    def resolve(_: Any, args: A, ctx: C) -> A:
        data = input_of(args)
        payload: A = {key: need(data, key) for key in ("projectId", "itemId", "fieldId")}
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
        call_capability(ctx, "updateProjectV2ItemFieldValue", payload)
        project = ctx.world.project_by_node_id(str(payload["projectId"]))
        assert project is not None
        item = next(i for i in project.items if i.id == payload["itemId"])
        return done(data, projectV2Item=(project, item))

    return resolve


register("resolveReviewThread", _set_thread(True), thread="PullRequestReviewThread")
register("unresolveReviewThread", _set_thread(False), thread="PullRequestReviewThread")
register("addPullRequestReviewThreadReply", _thread_reply, comment="PullRequestReviewComment")
register("addPullRequestReviewComment", _review_comment_reply, comment="PullRequestReviewComment")
register("markPullRequestReadyForReview", _ready(True), pullRequest="PullRequest")
register("convertPullRequestToDraft", _ready(False), pullRequest="PullRequest")
register("mergePullRequest", _merge, pullRequest="PullRequest")
register("updatePullRequestBranch", _update_branch, pullRequest="PullRequest")
register("requestReviews", _request_reviews, pullRequest="PullRequest")
register("requestReviewsByLogin", _request_reviews_by_login, pullRequest="PullRequest")
register("updatePullRequest", _update_pull, pullRequest="PullRequest")
register("addProjectV2ItemById", _add_project_item, item="ProjectV2Item")
register("updateProjectV2ItemFieldValue", _set_field(False), projectV2Item="ProjectV2Item")
register("clearProjectV2ItemFieldValue", _set_field(True), projectV2Item="ProjectV2Item")
