"""``gh pr`` reads: ``view``, ``list``, ``diff`` and ``checks`` (writes are in
:mod:`.gh_pr_write`)."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.capabilities.actions import check_url
from pytest_ghxbench.sandbox.dialects.gh_args import (
    EXIT_ERROR,
    EXIT_PENDING,
    Command,
    Flag,
    GhError,
    Parsed,
)
from pytest_ghxbench.sandbox.dialects.gh_context import (
    GhContext,
    duration,
    export_json,
    list_result,
    ok,
    pick,
    table,
)
from pytest_ghxbench.sandbox.dialects.gh_inputs import resolve_me
from pytest_ghxbench.sandbox.dialects.gh_render import (
    PR_FIELDS,
    check_bucket,
    check_state,
    checks_of,
    latest_reviews,
    pr_getters,
    workflow_name_of_check,
)
from pytest_ghxbench.sandbox.dialects.gh_search import matches
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import PullRequest

__all__ = ["PR_READ_COMMANDS", "find_pull_request"]

SELECTOR = "[<number> | <url> | <branch>]"
WEB = Flag("web", "Open the pull request in the browser", short="w", kind="bool")


def find_pull_request(ctx: GhContext, parsed: Parsed) -> PullRequest:
    """The pull request named by the first argument (number, ``#n``, URL or head branch)."""
    ctx.check_repo(parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to print the pull request")
    if not parsed.args:
        if parsed.has("repo"):
            raise GhError("argument required when using the --repo flag")
        branch = ctx.world.repository.default_branch
        raise GhError(f'no pull requests found for branch "{branch}"')
    selector = parsed.args[0]
    number = ctx.number_arg(selector)
    if number is None:
        found = [p for p in ctx.world.pull_requests if p.head_ref == selector]
        found.sort(key=lambda p: (p.state != "OPEN", -p.number))
        if not found:
            raise GhError(f'no pull requests found for branch "{selector}"')
        return found[0]
    pull = ctx.world.pull_request(number)
    if pull is None:
        raise GhError(
            f"GraphQL: Could not resolve to a PullRequest with the number of {number}. "
            "(repository.pullRequest)"
        )
    return pull


def state_with_draft(pull: PullRequest) -> str:
    return "DRAFT" if pull.is_draft and pull.state == "OPEN" else pull.state


def _reviewer_summary(pull: PullRequest) -> str:
    states: dict[str, str] = {}
    for review in latest_reviews(pull):
        if review.author != pull.author:
            states[review.author] = review.state
    for login in pull.requested_reviewers:
        states[login] = "REQUESTED"
    shown = {
        "REQUESTED": "Requested",
        "APPROVED": "Approved",
        "CHANGES_REQUESTED": "Changes requested",
    }
    ordered = sorted(states.items(), key=lambda kv: (kv[1] == "REQUESTED", kv[0]))
    return ", ".join(f"{login} ({shown.get(state, 'Commented')})" for login, state in ordered)


def raw_comments(ctx: GhContext, pull: PullRequest) -> str:
    """``gh pr view --comments`` on a pipe: comments and reviews, oldest first."""
    entries: list[tuple[str, str, str, str]] = [
        (c.created_at, c.author, "none", c.body) for c in pull.comments
    ]
    for review in pull.reviews:
        if review.body:
            status = review.state.lower().replace("_", " ")
            entries.append((review.submitted_at, review.author, status, review.body))
    out = []
    for _, login, status, body in sorted(entries):
        association = "member" if login in ctx.world.collaborators else "none"
        out.append(
            f"author:\t{login}\nassociation:\t{association}\nedited:\tfalse\n"
            f"status:\t{status}\n--\n{body}\n--\n"
        )
    return "".join(out)


def _view(ctx: GhContext, parsed: Parsed) -> CliResult:
    pull = find_pull_request(ctx, parsed)
    exported = export_json(
        PR_VIEW, parsed, lambda fields: pick(fields, pr_getters(ctx.world, pull))
    )
    if exported is not None:
        return exported
    if parsed.on("comments"):
        return ok(raw_comments(ctx, pull))
    world = ctx.world
    milestone = world.milestone(pull.milestone) if pull.milestone else None
    labels = ", ".join(sorted(pull.labels, key=str.lower))
    lines = [
        ("title", pull.title),
        ("state", state_with_draft(pull)),
        ("author", pull.author),
        ("labels", labels),
        ("assignees", ", ".join(pull.assignees)),
        ("reviewers", _reviewer_summary(pull)),
        ("projects", ""),
        ("milestone", milestone.title if milestone else ""),
        ("number", str(pull.number)),
        ("url", f"{world.repository.url}/pull/{pull.number}"),
        ("additions", str(sum(f.additions for f in pull.files))),
        ("deletions", str(sum(f.deletions for f in pull.files))),
        ("auto-merge", "disabled"),
    ]
    text = "".join(f"{key}:\t{value}\n" for key, value in lines)
    return ok(text + "--\n" + pull.body.rstrip("\n") + "\n")


PR_VIEW = Command(
    "pr view",
    f"view {SELECTOR}",
    "View a pull request",
    _view,
    flags=(Flag("comments", "View pull request comments", short="c", kind="bool"), WEB),
    long="Display the title, body, and other information about a pull request.\n\n"
    "Without an argument, the pull request that belongs to the current branch\nis displayed.",
    max_args=1,
    json_fields=PR_FIELDS,
)


def _list(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to list pull requests")
    limit = parsed.number("limit")
    if limit < 1:
        raise GhError(f"invalid value for --limit: {limit}")
    state = parsed.text("state")
    if parsed.text("search") and not parsed.has("state"):
        state = "all"  # the query's own is:/state: qualifiers decide, as in gh
    wanted_labels = {name.casefold() for name in parsed.items("label")}
    chosen = []
    for pull in sorted(ctx.world.pull_requests, key=lambda p: -p.number):
        if state == "open" and pull.state != "OPEN":
            continue
        if state == "closed" and pull.state == "OPEN":
            continue
        if state == "merged" and pull.state != "MERGED":
            continue
        if not wanted_labels <= {name.casefold() for name in pull.labels}:
            continue
        if (
            parsed.text("assignee")
            and resolve_me(ctx, parsed.text("assignee")) not in pull.assignees
        ):
            continue
        if parsed.text("author") and pull.author != resolve_me(ctx, parsed.text("author")):
            continue
        if parsed.text("base") and pull.base_ref != parsed.text("base"):
            continue
        if parsed.text("head") and pull.head_ref != parsed.text("head"):
            continue
        if parsed.on("draft") and not pull.is_draft:
            continue
        if parsed.text("search") and not matches(ctx.world, pull, parsed.text("search")):
            continue
        chosen.append(pull)
    chosen = chosen[:limit]
    return list_result(
        PR_LIST,
        parsed,
        chosen,
        lambda p: pr_getters(ctx.world, p),
        lambda p: [p.number, p.title, p.head_ref, state_with_draft(p), p.created_at],
        empty=f"no pull requests match your search in {ctx.full_name}\n",
    )


PR_LIST = Command(
    "pr list",
    "list",
    "List pull requests in a repository",
    _list,
    flags=(
        Flag("app", "Filter by GitHub App author"),
        Flag("assignee", "Filter by assignee", short="a"),
        Flag("author", "Filter by author", short="A"),
        Flag("base", "Filter by base branch", short="B"),
        Flag("draft", "Filter by draft state", short="d", kind="bool"),
        Flag("head", "Filter by head branch", short="H"),
        Flag("label", "Filter by label", short="l", kind="strings"),
        Flag("limit", "Maximum number of items to fetch", short="L", kind="int", default=30),
        Flag("search", "Search pull requests with query", short="S", metavar="query"),
        Flag(
            "state",
            "Filter by state",
            short="s",
            kind="enum",
            choices=("open", "closed", "merged", "all"),
            default="open",
        ),
        Flag("web", "List pull requests in the web browser", short="w", kind="bool"),
    ),
    long="List pull requests in a GitHub repository. By default, this only lists open PRs.",
    max_args=0,
    json_fields=PR_FIELDS,
)


def _diff(ctx: GhContext, parsed: Parsed) -> CliResult:
    pull = find_pull_request(ctx, parsed)
    if parsed.on("name-only"):
        return ok("".join(f"{f.path}\n" for f in pull.files))
    chunks = []
    for change in pull.files:
        old = change.previous_path or change.path
        header = [f"diff --git a/{old} b/{change.path}"]
        short = pull.head_sha[:7] or "0000000"
        if change.status == "added":
            header += ["new file mode 100644", f"index 0000000..{short}", "--- /dev/null"]
        elif change.status == "removed":
            header += ["deleted file mode 100644", f"index {short}..0000000", f"--- a/{old}"]
        else:
            if change.previous_path:
                header += [f"rename from {old}", f"rename to {change.path}"]
            header += [f"index {pull.base_sha[:7] or '0000000'}..{short} 100644", f"--- a/{old}"]
        header.append("+++ /dev/null" if change.status == "removed" else f"+++ b/{change.path}")
        patch = (
            change.patch if change.patch.endswith("\n") or not change.patch else change.patch + "\n"
        )
        chunks.append("\n".join(header) + "\n" + patch)
    return ok("".join(chunks))


PR_DIFF = Command(
    "pr diff",
    f"diff {SELECTOR}",
    "View changes in a pull request",
    _diff,
    flags=(
        Flag(
            "color",
            "Use color in diff output",
            kind="enum",
            choices=("always", "never", "auto"),
            default="auto",
        ),
        Flag("name-only", "Display only names of changed files", kind="bool"),
        Flag("patch", "Display diff in patch format", kind="bool"),
        WEB,
    ),
    long="View changes in a pull request.\n\nWithout an argument, the pull request that belongs "
    "to the current branch\nis selected.",
    max_args=1,
)

CHECK_FIELDS = (
    "bucket",
    "completedAt",
    "description",
    "event",
    "link",
    "name",
    "startedAt",
    "state",
    "workflow",
)


def _check_rows(ctx: GhContext, pull: PullRequest) -> list[dict[str, Any]]:
    rows = []
    for check in checks_of(ctx.world, pull):
        state = check_state(check)
        job = ctx.world.job(check.job_id) if check.job_id is not None else None
        run = ctx.world.workflow_run(job.run_id) if job is not None else None
        rows.append(
            {
                "bucket": check_bucket(state),
                "completedAt": check.completed_at or "0001-01-01T00:00:00Z",
                "description": check.output_title,
                "event": run.event if run is not None else "",
                "link": check_url(ctx.world, check),
                "name": check.name,
                "startedAt": check.started_at or "0001-01-01T00:00:00Z",
                "state": state,
                "workflow": workflow_name_of_check(ctx.world, check),
                "_elapsed": duration(check.started_at, check.completed_at),
            }
        )
    order = {"fail": 0, "pending": 1}
    rows.sort(key=lambda r: (order.get(r["bucket"], 2), r["name"], r["link"]))
    return rows


def _checks(ctx: GhContext, parsed: Parsed) -> CliResult:
    if parsed.on("watch"):
        raise GhError("--watch is not supported in the sandbox; checks do not change by waiting")
    pull = find_pull_request(ctx, parsed)
    rows = _check_rows(ctx, pull)
    if parsed.on("required"):
        raise GhError(f"no required checks reported on the '{pull.head_ref}' branch")
    if not rows:
        raise GhError(f"no checks reported on the '{pull.head_ref}' branch")
    exported = export_json(
        PR_CHECKS,
        parsed,
        lambda fields: [{k: r[k] for k in fields} for r in rows],
    )
    if exported is not None:
        return exported
    text = table(
        [
            [
                r["name"],
                "fail" if r["bucket"] == "cancel" else r["bucket"],
                r["_elapsed"] if r["_elapsed"] != "0s" else "0",
                r["link"],
                r["description"],
            ]
            for r in rows
        ]
    )
    buckets = [r["bucket"] for r in rows]
    if "fail" in buckets:
        return CliResult(EXIT_ERROR, text, "", False)
    if "pending" in buckets:
        return CliResult(EXIT_PENDING, text, "", False)
    return ok(text)


PR_CHECKS = Command(
    "pr checks",
    f"checks {SELECTOR}",
    "Show CI status for a single pull request",
    _checks,
    flags=(
        Flag("fail-fast", "Exit watch mode on first check failure", kind="bool"),
        Flag(
            "interval",
            "Refresh interval in seconds when using `--watch` flag",
            short="i",
            kind="int",
            default=10,
        ),
        Flag("required", "Only show checks that are required", kind="bool"),
        Flag("watch", "Watch checks until they finish", kind="bool"),
        Flag("web", "Open the web browser to show details about checks", short="w", kind="bool"),
    ),
    long="Show CI status for a single pull request.\n\nWithout an argument, the pull request "
    "that belongs to the current branch\nis selected.\n\nWhen the `--json` flag is used, it "
    "includes a `bucket` field, which categorizes\nthe `state` field into `pass`, `fail`, "
    "`pending`, `skipping`, or `cancel`.\n\nAdditional exit codes:\n    8: Checks pending",
    max_args=1,
    json_fields=CHECK_FIELDS,
)

PR_READ_COMMANDS = (PR_CHECKS, PR_DIFF, PR_LIST, PR_VIEW)
