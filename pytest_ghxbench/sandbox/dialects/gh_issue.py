"""``gh issue`` reads: ``view`` and ``list`` (writes are in :mod:`.gh_issue_write`)."""

from __future__ import annotations

from pytest_ghxbench.sandbox.dialects.gh_args import (
    Command,
    Flag,
    GhError,
    Parsed,
)
from pytest_ghxbench.sandbox.dialects.gh_context import (
    GhContext,
    export_json,
    list_result,
    ok,
    pick,
)
from pytest_ghxbench.sandbox.dialects.gh_inputs import resolve_me
from pytest_ghxbench.sandbox.dialects.gh_render import ISSUE_FIELDS, issue_getters
from pytest_ghxbench.sandbox.dialects.gh_search import matches
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Issue

__all__ = ["ISSUE_READ_COMMANDS", "SELECTOR", "find_issue", "issue_ref", "issue_url"]

SELECTOR = "{<number> | <url>}"


def find_issue(ctx: GhContext, parsed: Parsed, selector: str | None = None) -> Issue:
    """The issue named by ``selector`` (default: the first argument)."""
    ctx.check_repo(parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to print the issue")
    text = selector if selector is not None else parsed.args[0]
    number = ctx.number_arg(text)
    if number is None:
        raise GhError(f'invalid issue format: "{text}"')
    issue = ctx.world.issue(number)
    if issue is None:
        raise GhError(
            f"GraphQL: Could not resolve to an issue or pull request with the number of "
            f"{number}. (repository.issue)"
        )
    return issue


def issue_ref(ctx: GhContext, issue: Issue) -> str:
    return f"{ctx.full_name}#{issue.number} ({issue.title})"


def issue_url(ctx: GhContext, issue: Issue) -> str:
    return f"{ctx.world.repository.url}/issues/{issue.number}"


def _view(ctx: GhContext, parsed: Parsed) -> CliResult:
    issue = find_issue(ctx, parsed)
    exported = export_json(
        ISSUE_VIEW, parsed, lambda fields: pick(fields, issue_getters(ctx.world, issue))
    )
    if exported is not None:
        return exported
    if parsed.on("comments"):
        return ok(
            "".join(
                f"author:\t{c.author}\nassociation:\t"
                f"{'member' if c.author in ctx.world.collaborators else 'none'}\n"
                f"edited:\t{str(c.updated_at is not None).lower()}\nstatus:\tnone\n--\n"
                f"{c.body}\n--\n"
                for c in issue.comments
            )
        )
    milestone = ctx.world.milestone(issue.milestone) if issue.milestone else None
    lines = [
        ("title", issue.title),
        ("state", issue.state),
        ("author", issue.author),
        ("labels", ", ".join(sorted(issue.labels, key=str.lower))),
        ("comments", str(len(issue.comments))),
        ("assignees", ", ".join(issue.assignees)),
        ("projects", _projects(ctx, issue)),
        ("milestone", milestone.title if milestone else ""),
        ("number", str(issue.number)),
    ]
    text = "".join(f"{key}:\t{value}\n" for key, value in lines)
    return ok(text + "--\n" + issue.body.rstrip("\n") + "\n")


def _projects(ctx: GhContext, issue: Issue) -> str:
    titles = [
        p.title
        for p in ctx.world.projects
        if any(i.content_type == "Issue" and i.content_number == issue.number for i in p.items)
    ]
    return ", ".join(titles)


WEB = Flag("web", "Open an issue in the browser", short="w", kind="bool")
ISSUE_VIEW = Command(
    "issue view",
    f"view {SELECTOR}",
    "View an issue",
    _view,
    flags=(Flag("comments", "View issue comments", short="c", kind="bool"), WEB),
    long="Display the title, body, and other information about an issue.",
    max_args=1,
    min_args=1,
    json_fields=ISSUE_FIELDS,
    arg_error="issue number or url required",
)


def _list(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to list issues")
    limit = parsed.number("limit")
    if limit < 1:
        raise GhError(f"invalid limit: {limit}")
    state = parsed.text("state").upper()
    if parsed.text("search") and not parsed.has("state"):
        state = "ALL"  # the query's own is:/state: qualifiers decide, as in gh
    wanted = {name.casefold() for name in parsed.items("label")}
    milestone = parsed.text("milestone")
    chosen = []
    for issue in sorted(ctx.world.issues, key=lambda i: -i.number):
        if state != "ALL" and issue.state != state:
            continue
        if not wanted <= {name.casefold() for name in issue.labels}:
            continue
        assignee = resolve_me(ctx, parsed.text("assignee")) if parsed.text("assignee") else ""
        if assignee and assignee not in issue.assignees:
            continue
        author = resolve_me(ctx, parsed.text("author")) if parsed.text("author") else ""
        if author and issue.author != author:
            continue
        if milestone and not _in_milestone(ctx, issue, milestone):
            continue
        if parsed.text("search") and not matches(ctx.world, issue, parsed.text("search")):
            continue
        chosen.append(issue)
    chosen = chosen[:limit]
    return list_result(
        ISSUE_LIST,
        parsed,
        chosen,
        lambda i: issue_getters(ctx.world, i),
        lambda i: [
            i.number,
            i.state,
            i.title,
            ", ".join(sorted(i.labels, key=str.lower)),
            i.updated_at,
        ],
        empty=f"no issues match your search in {ctx.full_name}\n",
    )


def _in_milestone(ctx: GhContext, issue: Issue, wanted: str) -> bool:
    milestone = ctx.world.milestone(issue.milestone) if issue.milestone else None
    return milestone is not None and wanted in (milestone.title, str(milestone.number))


ISSUE_LIST = Command(
    "issue list",
    "list",
    "List issues in a repository",
    _list,
    flags=(
        Flag("app", "Filter by GitHub App author"),
        Flag("assignee", "Filter by assignee", short="a"),
        Flag("author", "Filter by author", short="A"),
        Flag("label", "Filter by label", short="l", kind="strings"),
        Flag("limit", "Maximum number of issues to fetch", short="L", kind="int", default=30),
        Flag("mention", "Filter by mention"),
        Flag("milestone", "Filter by milestone number or title", short="m", metavar="number"),
        Flag("search", "Search issues with query", short="S", metavar="query"),
        Flag(
            "state",
            "Filter by state",
            short="s",
            kind="enum",
            choices=("open", "closed", "all"),
            default="open",
        ),
        Flag("web", "List issues in the web browser", short="w", kind="bool"),
    ),
    long="List issues in a GitHub repository. By default, this only lists open issues.",
    max_args=0,
    json_fields=ISSUE_FIELDS,
)


ISSUE_READ_COMMANDS = (ISSUE_LIST, ISSUE_VIEW)
