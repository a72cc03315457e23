"""GraphQL types for the query root, repositories (and their refs, languages, licences and
topics) and releases."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.api.graphql.resolvers import lists, pr, projects
from pytest_ghxbench.sandbox.api.graphql.resolvers.context import Context
from pytest_ghxbench.sandbox.api.graphql.resolvers.defs import (
    GraphQLError,
    Page,
    Typed,
    abstract,
    connection,
    obj,
)
from pytest_ghxbench.sandbox.api.graphql.resolvers.types import actor, find_node, issue_by_number
from pytest_ghxbench.sandbox.api.rest.links import release_path
from pytest_ghxbench.sandbox.state import Label, Release, World

__all__: list[str] = []

A = dict[str, Any]
C = Context


# ---------------------------------------------------------------- releases


def _release_url(world: World, release: Release) -> str:
    return f"{world.repository.url}/{release_path(release)}"


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


def _sorted(items: list[Any], order: A | None, keys: dict[str, Any], default: str) -> list[Any]:
    """``items`` in the order ``orderBy`` asks (``keys``: its fields' sort keys)."""
    order = order or {}
    key = keys[str(order.get("field") or default)]
    return sorted(items, key=key, reverse=str(order.get("direction") or "ASC") == "DESC")


def _labels(world: World, args: A) -> list[Label]:
    query = str(args.get("query") or "").casefold()
    found = [lab for lab in world.labels if query in lab.name.casefold()]
    # The world keeps labels in the order they were made: that is CREATED_AT.
    made = {lab.name: index for index, lab in enumerate(world.labels)}
    keys = {"CREATED_AT": lambda lab: made[lab.name], "NAME": lambda lab: lab.name.casefold()}
    return _sorted(found, args.get("orderBy"), keys, "CREATED_AT")


def _releases(world: World, args: A) -> list[Release]:
    order = args.get("orderBy")
    if order is None:  # newest first
        return sorted(world.releases, key=lambda r: r.created_at, reverse=True)
    keys = {"CREATED_AT": lambda r: r.created_at, "NAME": lambda r: r.name or r.tag_name}
    return _sorted(list(world.releases), order, keys, "CREATED_AT")


def _projects_of(world: World, owner: str, args: A) -> list[Any]:
    """An owner's Projects (v2), filtered by ``query`` (in the title), in ``orderBy``."""
    query = str(args.get("query") or "").casefold()
    found = [p for p in world.projects if p.owner == owner and query in p.title.casefold()]
    keys = {
        "NUMBER": lambda p: p.number,
        "TITLE": lambda p: (p.title.casefold(), p.number),
        "CREATED_AT": lambda p: (p.created_at, p.number),
        "UPDATED_AT": lambda p: (p.updated_at, p.number),
    }
    return _sorted(found, args.get("orderBy"), keys, "NUMBER")


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
    "License",
    nickname=("String", lambda n, a, c: None),
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
    primaryLanguage=("Language", lambda w, a, c: w.repository.primary_language),
    licenseInfo=("License", lambda w, a, c: w.repository.license),
    repositoryTopics=connection("RepositoryTopic", lambda w, a, c: list(w.repository.topics)),
    issue=("Issue", lambda w, a, c: issue_by_number(w, a["number"])),
    pullRequest=("PullRequest", lambda w, a, c: pr.pull_by_number(w, a["number"])),
    issueOrPullRequest=("IssueOrPullRequest", lambda w, a, c: _issue_or_pull(w, a["number"])),
    issues=connection("Issue", lambda w, a, c: lists.repo_issues(w, a)),
    pullRequests=connection("PullRequest", lambda w, a, c: lists.repo_pulls(w, a)),
    labels=connection("Label", lambda w, a, c: _labels(w, a)),
    label=("Label", lambda w, a, c: w.label(str(a["name"]))),
    milestones=connection(
        "Milestone",
        lambda w, a, c: [m for m in w.milestones if m.state in _states(a, ("OPEN", "CLOSED"))],
    ),
    milestone=("Milestone", lambda w, a, c: w.milestone(int(a["number"]))),
    issueTypes=connection("IssueType", lambda w, a, c: [t for t in w.issue_types if t.is_enabled]),
    releases=connection("Release", lambda w, a, c: _releases(w, a)),
    release=(
        "Release",
        lambda w, a, c: next((r for r in w.releases if r.tag_name == a["tagName"]), None),
    ),
    latestRelease=("Release", lambda w, a, c: _latest_release(w)),
    projectsV2=connection("ProjectV2", lambda w, a, c: _projects_of(w, w.repository.owner, a)),
    projectV2=(
        "ProjectV2",
        lambda w, a, c: projects.project_by_number(w, w.repository.owner, a["number"]),
    ),
    viewerPermission=("RepositoryPermission", lambda w, a, c: "WRITE"),
)


def _classic_projects(args: A) -> list[Any]:
    """Projects (classic) are gone from GitHub: none to list, whichever ``states`` are asked
    for (so they are read, and make no difference)."""
    args.get("states")
    args.get("orderBy")
    return []


def _ssh_url(world: World, ctx: C) -> str:
    host = ctx.web.split("://", 1)[-1]
    return f"git@{host}:{world.repository.full_name}.git"


def _people(world: World, args: A) -> list[str]:
    query = str(args.get("query") or "").casefold()
    return [login for login in world.collaborators if query in login.casefold()]


def _subscription(world: World) -> str:
    found = world.repository.viewer_subscription
    if found is None:
        return "UNSUBSCRIBED"
    return "IGNORED" if found.ignored else "SUBSCRIBED"


def _viewer_email(world: World) -> str:
    return f"{world.viewer}@users.noreply.github.com"


def _no_items(total: int) -> Page:
    """A connection page of ``total`` items the sandbox counts but does not list."""
    return Page([], 0, total, False, False)


_FIXED = {
    # What the sandbox's repository is: no fork, mirror or template; every merge method, no
    # auto-merge, branches kept after merging; no wiki or discussions (as its REST API says).
    "isFork": False, "isMirror": False, "isTemplate": False, "isLocked": False,
    "isDisabled": False, "mergeCommitAllowed": True, "squashMergeAllowed": True,
    "rebaseMergeAllowed": True, "autoMergeAllowed": False, "allowUpdateBranch": False,
    "deleteBranchOnMerge": False, "forkingAllowed": True, "hasWikiEnabled": False,
    "hasProjectsEnabled": True, "hasDiscussionsEnabled": False,
    "usesCustomOpenGraphImage": False, "webCommitSignoffRequired": False,
    "viewerCanAdminister": False, "viewerHasStarred": False,
}  # fmt: skip
obj(
    "Repository",
    **{key: ("Boolean", (lambda v: lambda w, a, c: v)(value)) for key, value in _FIXED.items()},
    sshUrl=("GitSSHRemote", lambda w, a, c: _ssh_url(w, c)),
    resourcePath=("URI", lambda w, a, c: f"/{w.repository.full_name}"),
    parent=("Repository", lambda w, a, c: None),
    templateRepository=("Repository", lambda w, a, c: None),
    mirrorUrl=("URI", lambda w, a, c: None),
    archivedAt=(
        "DateTime",
        lambda w, a, c: w.repository.pushed_at if w.repository.is_archived else None,
    ),
    isInOrganization=(
        "Boolean",
        lambda w, a, c: any(
            u.login == w.repository.owner and u.type == "Organization" for u in w.users
        ),
    ),
    isUserConfigurationRepository=(
        "Boolean",
        lambda w, a, c: w.repository.name.casefold() == w.repository.owner.casefold(),
    ),
    openGraphImageUrl=(
        "URI",
        lambda w, a, c: f"https://opengraph.githubassets.com/1/{w.repository.full_name}",
    ),
    viewerDefaultMergeMethod=("PullRequestMergeMethod", lambda w, a, c: "MERGE"),
    viewerDefaultCommitEmail=("String", lambda w, a, c: _viewer_email(w)),
    viewerPossibleCommitEmails=("[String]", lambda w, a, c: [_viewer_email(w)]),
    viewerSubscription=("SubscriptionState", lambda w, a, c: _subscription(w)),
    watchers=("UserConnection", lambda w, a, c: _no_items(w.repository.watcher_count)),
    mentionableUsers=connection("User", lambda w, a, c: _people(w, a)),
    assignableUsers=connection("User", lambda w, a, c: _people(w, a)),
    codeOfConduct=("CodeOfConduct", lambda w, a, c: None),
    fundingLinks=("[FundingLink]", lambda w, a, c: []),
    projects=connection("Project", lambda w, a, c: _classic_projects(a)),
)
obj(
    "CodeOfConduct",
    key=("String", lambda d, a, c: d["key"]),
    name=("String", lambda d, a, c: d["name"]),
    url=("URI", lambda d, a, c: d.get("url")),
)
obj(
    "FundingLink",
    platform=("FundingPlatform", lambda d, a, c: d["platform"]),
    url=("URI", lambda d, a, c: d["url"]),
)
obj(
    "Project",
    id=("ID", lambda d, a, c: d["id"]),
    name=("String", lambda d, a, c: d["name"]),
    number=("Int", lambda d, a, c: d["number"]),
    body=("String", lambda d, a, c: d.get("body")),
    resourcePath=("URI", lambda d, a, c: d["resourcePath"]),
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
    "Commit", "Tree", "Blob", "Tag", "Ref",
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


def _owner_project_fields() -> dict[str, Any]:
    """The project fields that users and organizations both have (the value is the login)."""
    return {
        "projectV2": (
            "ProjectV2",
            lambda login, a, c: projects.project_by_number(c.world, login, a["number"]),
        ),
        "projectsV2": connection("ProjectV2", lambda login, a, c: _projects_of(c.world, login, a)),
    }


obj("User", **_owner_project_fields())
obj("Organization", **_owner_project_fields())
