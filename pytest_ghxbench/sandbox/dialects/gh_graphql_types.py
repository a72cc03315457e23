"""GraphQL types of the sandbox's endpoint: the query root, repositories, users, labels,
milestones, issue types, issues, comments and releases (pull requests, reviews, checks and
projects are in :mod:`.gh_graphql_pr`). Field names and types follow GitHub's schema."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects import gh_graphql_pr
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
from pytest_ghxbench.sandbox.dialects.gh_graphql import (
    GraphQLError,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.dialects.gh_render import issue_database_id, user_id
from pytest_ghxbench.sandbox.state import Comment, Issue, Label, PullRequest, Release, World

__all__ = ["actor", "find_node", "issue_url", "label_node", "user_node"]

A = dict[str, Any]
C = GhContext


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
    return next((login for login in logins if user_id(login) == node), None)


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
    }
    finder = finders.get(kind)
    found = finder() if finder is not None else None
    return found or gh_graphql_pr.find_pr_node(world, node)


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
        "id": ("ID", lambda login, a, c: user_id(login)),
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
abstract("Actor", _ACTORS, **{k: v for k, v in _actor_fields("Actor").items() if k != "databaseId"})
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


def _issue_by_number(world: World, number: Any) -> Issue:
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
    databaseId=("Int", lambda i, a, c: issue_database_id(i.number)),
    fullDatabaseId=("BigInt", lambda i, a, c: str(issue_database_id(i.number))),
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
        "PullRequest", lambda i, a, c: c.world.linked_pull_requests(i.number)
    ),
    projectItems=connection(
        "ProjectV2Item", lambda i, a, c: gh_graphql_pr.project_items_of(c.world, "Issue", i.number)
    ),
    repository=("Repository", lambda i, a, c: c.world),
    viewerCanUpdate=("Boolean", lambda i, a, c: True),
)


# ---------------------------------------------------------------- releases


def _release_url(world: World, release: Release) -> str:
    from pytest_ghxbench.sandbox.dialects.gh_release import release_url

    return release_url(world, release)


obj(
    "Release",
    id=("ID", lambda r, a, c: r.node_id),
    databaseId=("Int", lambda r, a, c: r.id),
    name=("String", lambda r, a, c: r.name or None),
    tagName=("String", lambda r, a, c: r.tag_name),
    description=("String", lambda r, a, c: r.body),
    isDraft=("Boolean", lambda r, a, c: r.draft),
    isPrerelease=("Boolean", lambda r, a, c: r.prerelease),
    isLatest=("Boolean", lambda r, a, c: r is _latest_release(c.world)),
    url=("URI", lambda r, a, c: _release_url(c.world, r)),
    createdAt=("DateTime", lambda r, a, c: r.created_at),
    publishedAt=("DateTime", lambda r, a, c: r.published_at),
    author=("User", lambda r, a, c: r.author or None),
)


def _latest_release(world: World) -> Release | None:
    published = [r for r in world.releases if not r.draft and not r.prerelease]
    return max(published, key=lambda r: r.published_at or "", default=None)


# ---------------------------------------------------------------- repository


def _states(args: A, default: tuple[str, ...]) -> set[str]:
    states = args.get("states")
    if states is None:
        return set(default)
    return {str(s) for s in (states if isinstance(states, list) else [states])}


def _order(items: list[Any], args: A, default_desc: bool = False) -> list[Any]:
    order = args.get("orderBy") or {}
    field = str(order.get("field", "CREATED_AT"))
    key = {"UPDATED_AT": "updated_at", "CREATED_AT": "created_at"}.get(field, "created_at")
    desc = str(order.get("direction", "DESC" if default_desc else "ASC")) == "DESC"
    return sorted(items, key=lambda x: (getattr(x, key, ""), getattr(x, "number", 0)), reverse=desc)


def _repo_issues(world: World, args: A) -> list[Issue]:
    states = _states(args, ("OPEN", "CLOSED"))
    labels = {str(n).casefold() for n in args.get("labels") or []}
    chosen = [
        i for i in world.issues if i.state in states and labels <= {n.casefold() for n in i.labels}
    ]
    filters = args.get("filterBy") or {}
    if filters.get("assignee"):
        chosen = [i for i in chosen if filters["assignee"] in i.assignees]
    return _order(chosen, args)


def _repo_field(world: World, owner: Any, name: Any) -> World:
    repo = world.repository
    if (str(owner).casefold(), str(name).casefold()) != (
        repo.owner.casefold(),
        repo.name.casefold(),
    ):
        raise GraphQLError(
            f"Could not resolve to a Repository with the name '{owner}/{name}'.", type="NOT_FOUND"
        )
    return world


obj(
    "Ref",
    name=("String", lambda r, a, c: r),
    prefix=("String", lambda r, a, c: "refs/heads/"),
    target=(
        "Commit",
        lambda r, a, c: next((b.sha for b in c.world.repository.branches if b.name == r), ""),
    ),
)
obj(
    "Language",
    name=("String", lambda n, a, c: n),
)
obj(
    "License",
    key=("String", lambda n, a, c: n.lower()),
    name=("String", lambda n, a, c: n),
    spdxId=("String", lambda n, a, c: n),
)
obj("Topic", name=("String", lambda n, a, c: n))
obj("RepositoryTopic", topic=("Topic", lambda n, a, c: n))

obj(
    "Repository",
    id=("ID", lambda w, a, c: w.repository.node_id),
    databaseId=("Int", lambda w, a, c: 700_000_001),
    name=("String", lambda w, a, c: w.repository.name),
    nameWithOwner=("String", lambda w, a, c: w.repository.full_name),
    owner=("RepositoryOwner", lambda w, a, c: actor(w, w.repository.owner)),
    description=("String", lambda w, a, c: w.repository.description or None),
    homepageUrl=("URI", lambda w, a, c: w.repository.homepage_url or None),
    url=("URI", lambda w, a, c: w.repository.url),
    isPrivate=("Boolean", lambda w, a, c: w.repository.is_private),
    isArchived=("Boolean", lambda w, a, c: w.repository.is_archived),
    visibility=("RepositoryVisibility", lambda w, a, c: w.repository.visibility),
    hasIssuesEnabled=("Boolean", lambda w, a, c: w.repository.has_issues_enabled),
    stargazerCount=("Int", lambda w, a, c: w.repository.stargazer_count),
    forkCount=("Int", lambda w, a, c: w.repository.fork_count),
    createdAt=("DateTime", lambda w, a, c: w.repository.created_at),
    pushedAt=("DateTime", lambda w, a, c: w.repository.pushed_at),
    updatedAt=("DateTime", lambda w, a, c: w.repository.pushed_at),
    defaultBranchRef=("Ref", lambda w, a, c: w.repository.default_branch),
    primaryLanguage=("Language", lambda w, a, c: w.repository.primary_language),
    licenseInfo=("License", lambda w, a, c: w.repository.license),
    repositoryTopics=connection("RepositoryTopic", lambda w, a, c: list(w.repository.topics)),
    issue=("Issue", lambda w, a, c: _issue_by_number(w, a["number"])),
    pullRequest=("PullRequest", lambda w, a, c: gh_graphql_pr.pull_by_number(w, a["number"])),
    issueOrPullRequest=("IssueOrPullRequest", lambda w, a, c: _issue_or_pull(w, a["number"])),
    issues=connection("Issue", lambda w, a, c: _repo_issues(w, a)),
    pullRequests=connection("PullRequest", lambda w, a, c: gh_graphql_pr.repo_pulls(w, a)),
    labels=connection(
        "Label",
        lambda w, a, c: [
            lab for lab in w.labels if str(a.get("query") or "").casefold() in lab.name.casefold()
        ],
    ),
    label=("Label", lambda w, a, c: w.label(str(a["name"]))),
    milestones=connection(
        "Milestone",
        lambda w, a, c: [m for m in w.milestones if m.state in _states(a, ("OPEN", "CLOSED"))],
    ),
    milestone=("Milestone", lambda w, a, c: w.milestone(int(a["number"]))),
    issueTypes=connection("IssueType", lambda w, a, c: [t for t in w.issue_types if t.is_enabled]),
    releases=connection(
        "Release", lambda w, a, c: sorted(w.releases, key=lambda r: r.created_at, reverse=True)
    ),
    release=(
        "Release",
        lambda w, a, c: next((r for r in w.releases if r.tag_name == a["tagName"]), None),
    ),
    latestRelease=("Release", lambda w, a, c: _latest_release(w)),
    assignableUsers=connection("User", lambda w, a, c: list(w.collaborators)),
    collaborators=connection("User", lambda w, a, c: list(w.collaborators)),
    projectsV2=connection(
        "ProjectV2", lambda w, a, c: [p for p in w.projects if p.owner == w.repository.owner]
    ),
    projectV2=(
        "ProjectV2",
        lambda w, a, c: gh_graphql_pr.project_by_number(w, w.repository.owner, a["number"]),
    ),
    viewerPermission=("RepositoryPermission", lambda w, a, c: "WRITE"),
)


def _issue_or_pull(world: World, number: Any) -> Typed:
    issue = world.issue(int(number))
    if issue is not None:
        return Typed("Issue", issue)
    pull = world.pull_request(int(number))
    if pull is not None:
        return Typed("PullRequest", pull)
    raise GraphQLError(
        f"Could not resolve to an issue or pull request with the number of {number}.",
        type="NOT_FOUND",
    )


abstract(
    "IssueOrPullRequest",
    ("Issue", "PullRequest"),
)
_NODE_TYPES = (
    "Issue", "PullRequest", "User", "Bot", "Organization", "Label", "Milestone", "IssueType",
    "IssueComment", "Release", "Repository", "PullRequestReviewThread",
    "PullRequestReviewComment", "PullRequestReview", "ProjectV2", "ProjectV2Item", "CheckRun",
)  # fmt: skip
abstract("Node", _NODE_TYPES, id=("ID", lambda v, a, c: None))


def _node(world: World, node: Any) -> Typed:
    found = find_node(world, str(node))
    if found is None:
        raise GraphQLError(
            f"Could not resolve to a node with the global id of '{node}'", type="NOT_FOUND"
        )
    return found


obj(
    "RateLimit",
    limit=("Int", lambda r, a, c: 5000),
    remaining=("Int", lambda r, a, c: 4999),
    used=("Int", lambda r, a, c: 1),
    cost=("Int", lambda r, a, c: 1),
    resetAt=("DateTime", lambda r, a, c: c.world.clock),
)
obj(
    "Query",
    repository=("Repository", lambda w, a, c: _repo_field(w, a.get("owner"), a.get("name"))),
    node=("Node", lambda w, a, c: _node(w, a["id"])),
    nodes=("[Node]", lambda w, a, c: [find_node(w, str(i)) for i in a.get("ids") or []]),
    viewer=("User", lambda w, a, c: w.viewer),
    user=("User", lambda w, a, c: _login(w, a["login"], "User")),
    organization=("Organization", lambda w, a, c: _login(w, a["login"], "Organization")),
    rateLimit=("RateLimit", lambda w, a, c: {}),
)


def _login(world: World, login: Any, kind: str) -> str:
    user = next((u for u in world.users if u.login.casefold() == str(login).casefold()), None)
    if user is None or (kind == "Organization") != (user.type == "Organization"):
        raise GraphQLError(
            f"Could not resolve to {'an' if kind == 'Organization' else 'a'} {kind} with the "
            f"login of '{login}'.",
            type="NOT_FOUND",
        )
    return user.login


obj(
    "User",
    projectV2=(
        "ProjectV2",
        lambda login, a, c: gh_graphql_pr.project_by_number(c.world, login, a["number"]),
    ),
    projectsV2=connection(
        "ProjectV2", lambda login, a, c: [p for p in c.world.projects if p.owner == login]
    ),
)
obj(
    "Organization",
    projectV2=(
        "ProjectV2",
        lambda login, a, c: gh_graphql_pr.project_by_number(c.world, login, a["number"]),
    ),
    projectsV2=connection(
        "ProjectV2", lambda login, a, c: [p for p in c.world.projects if p.owner == login]
    ),
)
