"""GraphQL types of the sandbox's endpoint: node lookup, users and other actors, labels,
milestones, issue types, issues and comments. The query root, repositories and releases are in
:mod:`.repo`, pull requests in :mod:`.pr`. Field names and types follow
GitHub's schema."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers import code, pr, projects, refs
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.rest.links import issue_id, user_node_id
from pytest_ghxbench.sandbox.state import Comment, Issue, Label, PullRequest, World

__all__ = ["actor", "find_node", "issue_by_number", "issue_url", "label_node", "user_node"]

A = dict[str, Any]
C = Context


def issue_url(world: World, number: int) -> str:
    return f"{world.repository.url}/issues/{number}"


def actor(world: World, login: str | None) -> Typed | None:
    """An ``Actor`` value (``User``, ``Bot`` or ``Organization``) for a login."""
    if not login:
        return None
    user = next((u for u in world.users if u.login == login), None)
    return Typed(user.type if user is not None else "User", login)


def user_node(world: World, node: str) -> str | None:
    """The login whose user node id is ``node``."""
    logins = {u.login for u in world.users} | set(world.collaborators)
    return next((login for login in logins if user_node_id(login) == node), None)


def label_node(world: World, node: str) -> Label | None:
    return next((lab for lab in world.labels if lab.node_id == node), None)


def find_node(world: World, node: str) -> Typed | None:
    """Any object by its global node id."""
    if not isinstance(node, str):
        return None
    kind = node.split("_", 1)[0]
    finders: dict[str, Any] = {
        "I": lambda: world.issue_by_node_id(node) and Typed("Issue", world.issue_by_node_id(node)),
        "U": lambda: _user_typed(world, node),
        "LA": lambda: (lambda lab: lab and Typed("Label", lab))(label_node(world, node)),
        "MI": lambda: next(
            (Typed("Milestone", m) for m in world.milestones if m.node_id == node), None
        ),
        "IT": lambda: next(
            (Typed("IssueType", t) for t in world.issue_types if t.node_id == node), None
        ),
        "RE": lambda: next(
            (Typed("Release", r) for r in world.releases if r.node_id == node), None
        ),
        "R": lambda: Typed("Repository", world) if world.repository.node_id == node else None,
        "IC": lambda: _comment_typed(world, node),
        "REF": lambda: refs.find_ref_node(world, node),
        **dict.fromkeys(("C", "TR", "BL", "TAG"), lambda: code.find_git_node(world, node)),
    }
    finder = finders.get(kind)
    found = finder() if finder is not None else None
    return found or pr.find_pr_node(world, node) or _event_typed(world, node)


def _event_typed(world: World, node: str) -> Typed | None:
    from pytest_ghxbench.sandbox.api.graphql.resolvers.timeline import find_event_node

    return find_event_node(world, node)


def _user_typed(world: World, node: str) -> Typed | None:
    login = user_node(world, node)
    return actor(world, login) if login else None


def _comment_typed(world: World, node: str) -> Typed | None:
    items: list[Issue | PullRequest] = [*world.issues, *world.pull_requests]
    for item in items:
        for comment in item.comments:
            if comment.node_id == node:
                return Typed("IssueComment", (item, comment))
    return None


# ---------------------------------------------------------------- actors

_ACTORS = ("User", "Bot", "Organization", "Mannequin", "EnterpriseUserAccount")


def _user_name(world: World, login: str) -> str:
    return next((u.name for u in world.users if u.login == login), "")


def _actor_fields(kind: str) -> dict[str, tuple[str, Any]]:
    return {
        "id": ("ID", lambda login, a, c: user_node_id(login)),
        "login": ("String", lambda login, a, c: login),
        "url": ("URI", lambda login, a, c: f"https://github.com/{login}"),
        "resourcePath": ("URI", lambda login, a, c: f"/{login}"),
        "avatarUrl": ("URI", lambda login, a, c: f"https://avatars.githubusercontent.com/{login}"),
        "databaseId": ("Int", lambda login, a, c: 100_000 + sum(map(ord, login))),
    }


for _kind in ("User", "Bot", "Organization"):
    obj(_kind, **_actor_fields(_kind))
obj(
    "User",
    name=("String", lambda login, a, c: _user_name(c.world, login)),
    email=("String", lambda login, a, c: ""),
    company=("String", lambda login, a, c: None),
)
obj("Organization", name=("String", lambda login, a, c: _user_name(c.world, login)))
abstract(
    "Actor",
    _ACTORS,
    **{k: v for k, v in _actor_fields("Actor").items() if k not in ("id", "databaseId")},
)
abstract(
    "RepositoryOwner",
    ("User", "Organization"),
    **{k: _actor_fields("x")[k] for k in ("id", "login", "url", "avatarUrl", "resourcePath")},
)
abstract(
    "Assignee",
    ("User", "Bot", "Mannequin", "Organization"),
    **{k: _actor_fields("x")[k] for k in ("id", "login", "url")},
)


# ---------------------------------------------------------------- labels, milestones, types

obj(
    "Label",
    id=("ID", lambda lab, a, c: lab.node_id),
    name=("String", lambda lab, a, c: lab.name),
    color=("String", lambda lab, a, c: lab.color),
    description=("String", lambda lab, a, c: lab.description or None),
    isDefault=("Boolean", lambda lab, a, c: lab.is_default),
    url=("URI", lambda lab, a, c: f"{c.world.repository.url}/labels/{lab.name}"),
)
obj(
    "Milestone",
    id=("ID", lambda m, a, c: m.node_id),
    number=("Int", lambda m, a, c: m.number),
    title=("String", lambda m, a, c: m.title),
    description=("String", lambda m, a, c: m.description or None),
    state=("MilestoneState", lambda m, a, c: m.state),
    dueOn=("DateTime", lambda m, a, c: m.due_on),
    closed=("Boolean", lambda m, a, c: m.state == "CLOSED"),
    creator=("Actor", lambda m, a, c: actor(c.world, c.world.maintainer)),
    url=("URI", lambda m, a, c: f"{c.world.repository.url}/milestone/{m.number}"),
)
obj(
    "IssueType",
    id=("ID", lambda t, a, c: t.node_id),
    name=("String", lambda t, a, c: t.name),
    description=("String", lambda t, a, c: t.description or None),
    color=("IssueTypeColor", lambda t, a, c: t.color),
    isEnabled=("Boolean", lambda t, a, c: t.is_enabled),
)


def _labels_of(world: World, names: list[str]) -> list[Label]:
    return [lab for lab in (world.label(n) for n in names) if lab is not None]


# ---------------------------------------------------------------- issues and comments


def _comment_fields() -> dict[str, tuple[str, Any]]:
    def url(pair: tuple[Any, Comment], c: C) -> str:
        item, comment = pair
        kind = "pull" if hasattr(item, "head_ref") else "issues"
        return f"{c.world.repository.url}/{kind}/{item.number}#issuecomment-{comment.id}"

    return {
        "id": ("ID", lambda p, a, c: p[1].node_id),
        "databaseId": ("Int", lambda p, a, c: p[1].id),
        "fullDatabaseId": ("BigInt", lambda p, a, c: str(p[1].id)),
        "body": ("String", lambda p, a, c: p[1].body),
        "bodyText": ("String", lambda p, a, c: p[1].body),
        "author": ("Actor", lambda p, a, c: actor(c.world, p[1].author)),
        "createdAt": ("DateTime", lambda p, a, c: p[1].created_at),
        "updatedAt": ("DateTime", lambda p, a, c: p[1].updated_at or p[1].created_at),
        "url": ("URI", lambda p, a, c: url(p, c)),
        "isMinimized": ("Boolean", lambda p, a, c: False),
        "viewerDidAuthor": ("Boolean", lambda p, a, c: p[1].author == c.world.viewer),
        "authorAssociation": (
            "CommentAuthorAssociation",
            lambda p, a, c: "MEMBER" if p[1].author in c.world.collaborators else "NONE",
        ),
    }


obj("IssueComment", **_comment_fields())


def issue_by_number(world: World, number: Any) -> Issue:
    issue = world.issue(int(number))
    if issue is None:
        raise GraphQLError(
            f"Could not resolve to an Issue with the number of {number}.", type="NOT_FOUND"
        )
    return issue


def _relation_counts(world: World, issue: Issue) -> A:
    subs = world.sub_issues(issue.number)
    done = sum(s.state == "CLOSED" for s in subs)
    return {
        "total": len(subs),
        "completed": done,
        "percentCompleted": round(100 * done / len(subs)) if subs else 0,
    }


obj(
    "SubIssuesSummary",
    total=("Int", lambda s, a, c: s["total"]),
    completed=("Int", lambda s, a, c: s["completed"]),
    percentCompleted=("Int", lambda s, a, c: s["percentCompleted"]),
)
obj(
    "IssueDependenciesSummary",
    blockedBy=("Int", lambda s, a, c: s["blockedBy"]),
    totalBlockedBy=("Int", lambda s, a, c: s["totalBlockedBy"]),
    blocking=("Int", lambda s, a, c: s["blocking"]),
    totalBlocking=("Int", lambda s, a, c: s["totalBlocking"]),
)


def _blocking(world: World, issue: Issue) -> list[Issue]:
    return [i for i in world.issues if issue.number in i.blocked_by]


def _blocked_by(world: World, issue: Issue) -> list[Issue]:
    return [i for i in (world.issue(n) for n in issue.blocked_by) if i is not None]


def _dependencies(world: World, issue: Issue) -> A:
    by, blocking = _blocked_by(world, issue), _blocking(world, issue)
    return {
        "blockedBy": sum(i.state == "OPEN" for i in by),
        "totalBlockedBy": len(by),
        "blocking": sum(i.state == "OPEN" for i in blocking),
        "totalBlocking": len(blocking),
    }


obj(
    "Issue",
    id=("ID", lambda i, a, c: i.node_id),
    databaseId=("Int", lambda i, a, c: issue_id(i.number)),
    fullDatabaseId=("BigInt", lambda i, a, c: str(issue_id(i.number))),
    number=("Int", lambda i, a, c: i.number),
    title=("String", lambda i, a, c: i.title),
    body=("String", lambda i, a, c: i.body),
    bodyText=("String", lambda i, a, c: i.body),
    state=("IssueState", lambda i, a, c: i.state),
    stateReason=("IssueStateReason", lambda i, a, c: i.state_reason),
    closed=("Boolean", lambda i, a, c: i.state == "CLOSED"),
    locked=("Boolean", lambda i, a, c: i.locked),
    url=("URI", lambda i, a, c: issue_url(c.world, i.number)),
    resourcePath=("URI", lambda i, a, c: f"/{c.full_name}/issues/{i.number}"),
    author=("Actor", lambda i, a, c: actor(c.world, i.author)),
    createdAt=("DateTime", lambda i, a, c: i.created_at),
    updatedAt=("DateTime", lambda i, a, c: i.updated_at),
    closedAt=("DateTime", lambda i, a, c: i.closed_at),
    labels=connection("Label", lambda i, a, c: _labels_of(c.world, i.labels)),
    assignees=connection("User", lambda i, a, c: list(i.assignees)),
    milestone=(
        "Milestone",
        lambda i, a, c: c.world.milestone(i.milestone) if i.milestone else None,
    ),
    comments=connection("IssueComment", lambda i, a, c: [(i, x) for x in i.comments]),
    issueType=(
        "IssueType",
        lambda i, a, c: next((t for t in c.world.issue_types if t.name == i.issue_type), None),
    ),
    parent=("Issue", lambda i, a, c: c.world.issue(i.parent) if i.parent else None),
    subIssues=connection("Issue", lambda i, a, c: c.world.sub_issues(i.number)),
    subIssuesSummary=("SubIssuesSummary", lambda i, a, c: _relation_counts(c.world, i)),
    blockedBy=connection("Issue", lambda i, a, c: _blocked_by(c.world, i)),
    blocking=connection("Issue", lambda i, a, c: _blocking(c.world, i)),
    issueDependenciesSummary=(
        "IssueDependenciesSummary",
        lambda i, a, c: _dependencies(c.world, i),
    ),
    closedByPullRequestsReferences=connection(
        "PullRequest",
        lambda i, a, c: [
            p
            for p in c.world.linked_pull_requests(i.number)
            if a.get("includeClosedPrs") or p.state != "CLOSED"
        ],
    ),
    projectItems=connection(
        "ProjectV2Item",
        lambda i, a, c: projects.project_items_of(c.world, "Issue", i.number),
    ),
    repository=("Repository", lambda i, a, c: c.world),
    viewerCanUpdate=("Boolean", lambda i, a, c: True),
)
