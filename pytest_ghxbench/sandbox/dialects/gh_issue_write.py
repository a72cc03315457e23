"""``gh issue`` writes: ``create``, ``edit``, ``close``, ``reopen``, ``comment`` and
``delete``, all through the sandbox's ``issue.*`` capabilities."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_args import (
    Command,
    Flag,
    GhError,
    Handler,
    Parsed,
    flag_usage_block,
)
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, ok
from pytest_ghxbench.sandbox.dialects.gh_inputs import (
    BODY_FILE,
    COMMENT_FLAGS,
    edit_last_comment,
    labels_to_add,
    logins,
    milestone_number,
    read_body,
)
from pytest_ghxbench.sandbox.dialects.gh_issue import SELECTOR, find_issue, issue_ref, issue_url
from pytest_ghxbench.sandbox.dialects.result import CliResult

__all__ = ["ISSUE_WRITE_COMMANDS"]


def _create(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    if parsed.on("web") or parsed.on("editor"):
        raise GhError("the sandbox has no browser or editor; pass --title and --body")
    body = read_body(ctx, parsed)
    if not parsed.has("title") or body is None:
        raise GhError(
            "must provide `--title` and `--body` when not running interactively",
            usage=flag_usage_block(ISSUE_CREATE),
        )
    if not parsed.text("title").strip():
        raise GhError("title can't be blank")
    if parsed.items("project"):
        raise GhError("--project is not supported in the sandbox")
    world = ctx.world
    payload: dict[str, Any] = {
        **ctx.repo_input(),
        "title": parsed.text("title"),
        "body": body,
        "labels": labels_to_add(world, parsed.items("label")),
        "assignees": logins(ctx, parsed.items("assignee")),
    }
    if parsed.text("milestone"):
        payload["milestoneNumber"] = milestone_number(world, parsed.text("milestone"))
    data = ctx.call("issue.create", payload)
    return ok(f"{data['url']}\n", context=ctx)


ISSUE_CREATE = Command(
    "issue create",
    "create",
    "Create a new issue",
    _create,
    flags=(
        Flag(
            "assignee",
            'Assign people by their login. Use "@me" to self-assign.',
            short="a",
            kind="strings",
            metavar="login",
        ),
        Flag("body", "Supply a body. Will prompt for one otherwise.", short="b"),
        BODY_FILE,
        Flag(
            "editor",
            "Skip prompts and open the text editor to write the title and body in",
            short="e",
            kind="bool",
        ),
        Flag("label", "Add labels by name", short="l", kind="strings", metavar="name"),
        Flag("milestone", "Add the issue to a milestone by name", short="m", metavar="name"),
        Flag(
            "project",
            "Add the issue to projects by title",
            short="p",
            kind="strings",
            metavar="title",
        ),
        Flag("title", "Supply a title. Will prompt for one otherwise.", short="t"),
        Flag("web", "Open the browser to create an issue", short="w", kind="bool"),
    ),
    long="Create an issue on GitHub.",
    max_args=0,
)

_EDIT_FLAGS = (
    "title",
    "body",
    "body-file",
    "add-assignee",
    "remove-assignee",
    "add-label",
    "remove-label",
    "milestone",
    "remove-milestone",
    "add-project",
    "remove-project",
)


def _edit(ctx: GhContext, parsed: Parsed) -> CliResult:
    if not any(parsed.has(name) for name in _EDIT_FLAGS):
        raise GhError(
            "field to edit flag required when not running interactively",
            usage=flag_usage_block(ISSUE_EDIT),
        )
    if parsed.items("add-project") or parsed.items("remove-project"):
        raise GhError("--add-project and --remove-project are not supported in the sandbox")
    issues = [find_issue(ctx, parsed, selector) for selector in parsed.args]
    world = ctx.world
    add_labels = labels_to_add(world, parsed.items("add-label"))
    milestone = (
        milestone_number(world, parsed.text("milestone")) if parsed.text("milestone") else None
    )
    body = read_body(ctx, parsed)
    urls = []
    for issue in issues:
        node = issue.node_id
        if parsed.has("title") or body is not None:
            change: dict[str, Any] = {"issueId": node}
            if parsed.has("title"):
                change["title"] = parsed.text("title")
            if body is not None:
                change["body"] = body
            ctx.call("issue.update", change)
        if add_labels or parsed.items("remove-label"):
            removed = {n.casefold() for n in parsed.items("remove-label")}
            kept = [n for n in dict.fromkeys([*issue.labels, *add_labels])]
            labels = [n for n in kept if n.casefold() not in removed]
            ctx.call("issue.labels.update", {"issueId": node, "labels": labels})
        added = logins(ctx, parsed.items("add-assignee"))
        dropped = set(logins(ctx, parsed.items("remove-assignee")))
        if added or dropped:
            people = [a for a in dict.fromkeys([*issue.assignees, *added]) if a not in dropped]
            ctx.call("issue.assignees.update", {"issueId": node, "assignees": people})
        if milestone is not None or parsed.on("remove-milestone"):
            ctx.call("issue.milestone.set", {"issueId": node, "milestoneNumber": milestone})
        urls.append(issue_url(ctx, issue))
    return ok("".join(url + "\n" for url in urls), context=ctx)


def _strings(name: str, help_text: str) -> Flag:
    return Flag(name, help_text, kind="strings", metavar="name" if "label" in name else "login")


ISSUE_EDIT = Command(
    "issue edit",
    "edit {<numbers> | <urls>}",
    "Edit issues",
    _edit,
    flags=(
        _strings(
            "add-assignee", 'Add assigned users by their login. Use "@me" to assign yourself.'
        ),
        _strings("add-label", "Add labels by name"),
        Flag("add-project", "Add the issue to projects by title", kind="strings", metavar="title"),
        Flag("body", "Set the new body.", short="b"),
        BODY_FILE,
        Flag(
            "milestone",
            "Edit the milestone the issue belongs to by name",
            short="m",
            metavar="name",
        ),
        _strings(
            "remove-assignee",
            'Remove assigned users by their login. Use "@me" to unassign yourself.',
        ),
        _strings("remove-label", "Remove labels by name"),
        Flag("remove-milestone", "Remove the milestone association from the issue", kind="bool"),
        Flag(
            "remove-project",
            "Remove the issue from projects by title",
            kind="strings",
            metavar="title",
        ),
        Flag("title", "Set the new title.", short="t"),
    ),
    long="Edit one or more issues within the same repository.",
    min_args=1,
    arg_error="issue number or url required",
)


def _one_issue_command(
    verb: str, summary: str, handler: Handler, flags: tuple[Flag, ...], long: str = ""
) -> Command:
    """An ``issue <verb>`` command acting on exactly one issue given by number or URL."""
    return Command(
        f"issue {verb}",
        f"{verb} {SELECTOR}",
        summary,
        handler,
        flags=flags,
        long=long,
        max_args=1,
        min_args=1,
        arg_error="issue number or url required",
    )


def _close(ctx: GhContext, parsed: Parsed) -> CliResult:
    issue = find_issue(ctx, parsed)
    if issue.state == "CLOSED":
        return ok(stderr=f"! Issue {issue_ref(ctx, issue)} is already closed\n")
    if parsed.text("comment"):
        ctx.call(
            "issue.comments.create", {"issueId": issue.node_id, "body": parsed.text("comment")}
        )
    reason = parsed.text("reason").replace(" ", "_") or "completed"
    if parsed.text("duplicate-of"):
        reason = "duplicate"
    ctx.call("issue.close", {"issueId": issue.node_id, "reason": reason})
    return ok(stderr=f"✓ Closed issue {issue_ref(ctx, issue)}\n", context=ctx)


ISSUE_CLOSE = _one_issue_command(
    "close",
    "Close issue",
    _close,
    (
        Flag("comment", "Leave a closing comment", short="c"),
        Flag(
            "duplicate-of", "Mark as duplicate of another issue by number or URL", metavar="number"
        ),
        Flag(
            "reason",
            "Reason for closing",
            short="r",
            kind="enum",
            choices=("completed", "not planned", "duplicate"),
        ),
    ),
)


def _reopen(ctx: GhContext, parsed: Parsed) -> CliResult:
    issue = find_issue(ctx, parsed)
    if issue.state == "OPEN":
        return ok(stderr=f"! Issue {issue_ref(ctx, issue)} is already open\n")
    if parsed.text("comment"):
        ctx.call(
            "issue.comments.create", {"issueId": issue.node_id, "body": parsed.text("comment")}
        )
    ctx.call("issue.reopen", {"issueId": issue.node_id})
    return ok(stderr=f"✓ Reopened issue {issue_ref(ctx, issue)}\n", context=ctx)


ISSUE_REOPEN = _one_issue_command(
    "reopen", "Reopen issue", _reopen, (Flag("comment", "Add a reopening comment", short="c"),)
)


def _comment(ctx: GhContext, parsed: Parsed) -> CliResult:
    if parsed.on("web") or parsed.on("editor"):
        raise GhError("the sandbox has no browser or editor; pass the text with --body")
    body = read_body(ctx, parsed)
    if body is None:
        raise GhError(
            "--body or --body-file required when not running interactively",
            usage=flag_usage_block(ISSUE_COMMENT),
        )
    if not body.strip():
        raise GhError("Body cannot be blank")
    number = ctx.number_arg(parsed.args[0])
    if number is not None and ctx.world.pull_request(number) is not None:
        # gh comments on a pull request's conversation through the issues API as well.
        from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh

        return run_gh(ctx.world, ["pr", "comment", str(number), "--body", body], ctx.stdin)
    issue = find_issue(ctx, parsed)
    if parsed.on("edit-last"):
        edited = edit_last_comment(ctx, issue.comments, body)
        return ok(f"{issue_url(ctx, issue)}#issuecomment-{edited.id}\n", context=ctx)
    data = ctx.call("issue.comments.create", {"issueId": issue.node_id, "body": body})
    return ok(f"{data['url']}\n", context=ctx)


ISSUE_COMMENT = _one_issue_command(
    "comment",
    "Add a comment to an issue",
    _comment,
    COMMENT_FLAGS,
    long="Add a comment to a GitHub issue.",
)


def _delete(ctx: GhContext, parsed: Parsed) -> CliResult:
    issue = find_issue(ctx, parsed)
    if not parsed.on("yes"):
        raise GhError(
            "--yes required when not running interactively", usage=flag_usage_block(ISSUE_DELETE)
        )
    ctx.call("issue.delete", {"issueId": issue.node_id})
    return ok(stderr=f"✓ Deleted issue {issue_ref(ctx, issue)}.\n", context=ctx)


ISSUE_DELETE = _one_issue_command(
    "delete",
    "Delete issue",
    _delete,
    (Flag("yes", "Confirm deletion without prompting", kind="bool"),),
)


ISSUE_WRITE_COMMANDS = (
    ISSUE_CLOSE,
    ISSUE_COMMENT,
    ISSUE_CREATE,
    ISSUE_DELETE,
    ISSUE_EDIT,
    ISSUE_REOPEN,
)
