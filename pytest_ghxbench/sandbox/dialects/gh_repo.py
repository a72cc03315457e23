"""``gh repo view`` and ``gh auth status``."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, export_json, ok, pick
from pytest_ghxbench.sandbox.dialects.gh_render import label_json, user_id
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import World

__all__ = ["AUTH_COMMANDS", "REPO_COMMANDS"]

REPO_FIELDS = (
    "archivedAt", "assignableUsers", "codeOfConduct", "contactLinks", "createdAt",
    "defaultBranchRef", "deleteBranchOnMerge", "description", "diskUsage", "forkCount",
    "fundingLinks", "hasDiscussionsEnabled", "hasIssuesEnabled", "hasProjectsEnabled",
    "hasWikiEnabled", "homepageUrl", "id", "isArchived", "isBlankIssuesEnabled", "isEmpty",
    "isFork", "isInOrganization", "isMirror", "isPrivate", "isSecurityPolicyEnabled",
    "isTemplate", "isUserConfigurationRepository", "issueTemplates", "issues", "labels",
    "languages", "latestRelease", "licenseInfo", "mentionableUsers", "mergeCommitAllowed",
    "milestones", "mirrorUrl", "name", "nameWithOwner", "openGraphImageUrl", "owner", "parent",
    "primaryLanguage", "projects", "projectsV2", "pullRequestTemplates", "pullRequests",
    "pushedAt", "rebaseMergeAllowed", "repositoryTopics", "securityPolicyUrl",
    "squashMergeAllowed", "sshUrl", "stargazerCount", "templateRepository", "updatedAt", "url",
    "usesCustomOpenGraphImage", "viewerCanAdminister", "viewerDefaultCommitEmail",
    "viewerDefaultMergeMethod", "viewerHasStarred", "viewerPermission",
    "viewerPossibleCommitEmails", "viewerSubscription", "visibility", "watchers",
)  # fmt: skip

_LICENSES = {
    "MIT": ("mit", "MIT License"),
    "Apache-2.0": ("apache-2.0", "Apache License 2.0"),
    "BSD-3-Clause": ("bsd-3-clause", 'BSD 3-Clause "New" or "Revised" License'),
    "GPL-3.0": ("gpl-3.0", "GNU General Public License v3.0"),
}


def _people(world: World) -> list[dict[str, Any]]:
    names = {u.login: u.name for u in world.users}
    return [
        {"id": user_id(login), "login": login, "name": names.get(login, "")}
        for login in world.collaborators
    ]


def _repo_getters(world: World) -> dict[str, Any]:
    repo = world.repository
    owner = next((u for u in world.users if u.login == repo.owner), None)
    published = [r for r in world.releases if not r.draft and not r.prerelease]
    latest = max(published, key=lambda r: r.published_at or "", default=None)
    license_key = _LICENSES.get(
        repo.license or "", ((repo.license or "").lower(), repo.license or "")
    )
    defaults: dict[str, Any] = {
        "archivedAt": None, "codeOfConduct": None, "contactLinks": [], "deleteBranchOnMerge": False,
        "diskUsage": 412, "fundingLinks": [], "hasDiscussionsEnabled": False,
        "hasProjectsEnabled": True, "hasWikiEnabled": False, "isBlankIssuesEnabled": True,
        "isEmpty": False, "isFork": False, "isMirror": False, "isSecurityPolicyEnabled": False,
        "isTemplate": False, "isUserConfigurationRepository": False, "issueTemplates": [],
        "mergeCommitAllowed": True, "mirrorUrl": "", "openGraphImageUrl": "", "parent": None,
        "projects": [], "pullRequestTemplates": [], "rebaseMergeAllowed": True,
        "securityPolicyUrl": "", "squashMergeAllowed": True, "templateRepository": None,
        "usesCustomOpenGraphImage": False, "viewerCanAdminister": False,
        "viewerDefaultCommitEmail": "", "viewerDefaultMergeMethod": "MERGE",
        "viewerHasStarred": False, "viewerPossibleCommitEmails": [],
        "viewerSubscription": "SUBSCRIBED",
    }  # fmt: skip
    getters: dict[str, Any] = {
        name: (lambda value=value: value) for name, value in defaults.items()
    }
    getters.update(
        {
            "assignableUsers": lambda: _people(world),
            "createdAt": lambda: repo.created_at,
            "defaultBranchRef": lambda: {"name": repo.default_branch},
            "description": lambda: repo.description,
            "forkCount": lambda: repo.fork_count,
            "hasIssuesEnabled": lambda: repo.has_issues_enabled,
            "homepageUrl": lambda: repo.homepage_url,
            "id": lambda: repo.node_id,
            "isArchived": lambda: repo.is_archived,
            "isInOrganization": lambda: owner is not None and owner.type == "Organization",
            "isPrivate": lambda: repo.is_private,
            "issues": lambda: {"totalCount": sum(i.state == "OPEN" for i in world.issues)},
            "labels": lambda: [label_json(world, lab.name) for lab in world.labels],
            "languages": lambda: (
                [{"size": 81234, "node": {"name": repo.primary_language}}]
                if repo.primary_language
                else []
            ),
            "latestRelease": lambda: (
                None
                if latest is None
                else {
                    "name": latest.name,
                    "tagName": latest.tag_name,
                    "url": f"{repo.url}/releases/tag/{latest.tag_name}",
                    "publishedAt": latest.published_at,
                }
            ),
            "licenseInfo": lambda: (
                None
                if not repo.license
                else {"key": license_key[0], "name": license_key[1], "nickname": ""}
            ),
            "mentionableUsers": lambda: _people(world),
            "milestones": lambda: [
                {
                    "number": m.number,
                    "title": m.title,
                    "description": m.description,
                    "dueOn": m.due_on,
                }
                for m in world.milestones
                if m.state == "OPEN"
            ],
            "name": lambda: repo.name,
            "nameWithOwner": lambda: repo.full_name,
            "owner": lambda: {"id": user_id(repo.owner), "login": repo.owner},
            "primaryLanguage": lambda: (
                {"name": repo.primary_language} if repo.primary_language else None
            ),
            "projectsV2": lambda: [
                {
                    "id": p.node_id,
                    "number": p.number,
                    "title": p.title,
                    "closed": p.closed,
                    "url": p.url,
                    "resourcePath": p.url.removeprefix("https://github.com"),
                }
                for p in world.projects
                if p.owner == repo.owner and not p.closed
            ],
            "pullRequests": lambda: {
                "totalCount": sum(p.state == "OPEN" for p in world.pull_requests)
            },
            "pushedAt": lambda: repo.pushed_at,
            "repositoryTopics": lambda: [{"name": topic} for topic in repo.topics],
            "sshUrl": lambda: f"git@github.com:{repo.full_name}.git",
            "stargazerCount": lambda: repo.stargazer_count,
            "updatedAt": lambda: repo.pushed_at,
            "url": lambda: repo.url,
            "viewerPermission": lambda: "WRITE" if world.viewer in world.collaborators else "READ",
            "visibility": lambda: repo.visibility,
            "watchers": lambda: {"totalCount": repo.watcher_count},
        }
    )
    return getters


def _repo_view(ctx: GhContext, parsed: Parsed) -> CliResult:
    if parsed.args:
        ctx.check_repo_name(parsed.args[0])
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to print the repository")
    world = ctx.world
    exported = export_json(REPO_VIEW, parsed, lambda fields: pick(fields, _repo_getters(world)))
    if exported is not None:
        return exported
    repo = world.repository
    return ok(f"name:\t{repo.full_name}\ndescription:\t{repo.description}\n--\n")


REPO_VIEW = Command(
    "repo view",
    "view [<repository>]",
    "View a repository",
    _repo_view,
    flags=(
        Flag("branch", "View a specific branch of the repository", short="b"),
        Flag("web", "Open a repository in the browser", short="w", kind="bool"),
    ),
    long="Display the description and the README of a GitHub repository.\n\nWith no argument, "
    "the repository for the current directory is displayed.",
    max_args=1,
    json_fields=REPO_FIELDS,
    repo_flag=False,
)
REPO_COMMANDS = (REPO_VIEW,)


def _auth_status(ctx: GhContext, parsed: Parsed) -> CliResult:
    text = (
        "github.com\n"
        f"  ✓ Logged in to github.com account {ctx.world.viewer} (GH_TOKEN)\n"
        "  - Active account: true\n"
        "  - Git operations protocol: https\n"
        "  - Token: gho_************************************\n"
        "  - Token scopes: 'gist', 'project', 'read:org', 'repo', 'workflow'\n"
    )
    return ok(text)


AUTH_STATUS = Command(
    "auth status",
    "status",
    "Display active account and authentication state on each known GitHub host",
    _auth_status,
    flags=(
        Flag("active", "Display the active account only", short="a", kind="bool"),
        Flag("hostname", "Check only a specific hostname's auth status", metavar="string"),
        Flag("show-token", "Display the auth token", short="t", kind="bool"),
    ),
    max_args=0,
    repo_flag=False,
)
AUTH_COMMANDS = (AUTH_STATUS,)
