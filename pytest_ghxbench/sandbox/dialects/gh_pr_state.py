"""``gh pr`` state changes: ``ready``, ``merge``, ``update-branch``, ``close`` and ``reopen``.

Draft state, branch updates and merges go through the ``pr.*`` capabilities; close and reopen
edit the world directly (no capability covers them).
"""

from __future__ import annotations

from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, ok
from pytest_ghxbench.sandbox.dialects.gh_inputs import BODY_FILE
from pytest_ghxbench.sandbox.dialects.gh_pr import SELECTOR, find_pull_request
from pytest_ghxbench.sandbox.dialects.gh_pr_write import (
    add_conversation_comment,
    pr_input,
    pr_ref,
    usage_error,
)
from pytest_ghxbench.sandbox.dialects.result import CliResult

__all__ = ["PR_STATE_COMMANDS"]


def _ready(ctx: GhContext, parsed: Parsed) -> CliResult:
    pull = find_pull_request(ctx, parsed)
    undo = parsed.on("undo")
    if pull.state != "OPEN":
        raise GhError(
            f"Pull request {pr_ref(ctx, pull)} is closed. Only draft pull requests can be "
            'marked as "ready for review"'
        )
    if undo and pull.is_draft:
        return ok(stderr=f'! Pull request {pr_ref(ctx, pull)} is already "in draft"\n')
    if not undo and not pull.is_draft:
        return ok(stderr=f'! Pull request {pr_ref(ctx, pull)} is already "ready for review"\n')
    ctx.call("pr.ready_for_review.set", {**pr_input(ctx, pull), "ready": not undo})
    message = 'converted to "draft"' if undo else 'marked as "ready for review"'
    return ok(stderr=f"✓ Pull request {pr_ref(ctx, pull)} is {message}\n", context=ctx)


PR_READY = Command(
    "pr ready",
    f"ready {SELECTOR}",
    "Mark a pull request as ready for review",
    _ready,
    flags=(Flag("undo", 'Convert a pull request to "draft"', kind="bool"),),
    long="Mark a pull request as ready for review.\n\nWithout an argument, the pull request that "
    "belongs to the current branch\nis marked as ready.\n\nIf supported by your plan, convert to "
    "draft with `--undo`",
    max_args=1,
)

_METHODS = {"merge": "Merged", "squash": "Squashed and merged", "rebase": "Rebased and merged"}


def _merge(ctx: GhContext, parsed: Parsed) -> CliResult:
    methods = [m for m in _METHODS if parsed.on(m)]
    if parsed.on("auto") or parsed.on("disable-auto"):
        raise GhError("auto-merge is not available in the sandbox; merge directly")
    if len(methods) > 1:
        raise usage_error(PR_MERGE, "only one of --merge, --rebase, or --squash can be enabled")
    if not methods:
        raise usage_error(
            PR_MERGE, "--merge, --rebase, or --squash required when not running interactively"
        )
    pull = find_pull_request(ctx, parsed)
    if pull.state == "MERGED":
        raise GhError(f"Pull request {pr_ref(ctx, pull)} was already merged")
    if pull.state == "CLOSED":
        raise GhError(f"Pull request {pr_ref(ctx, pull)} is closed")
    if pull.is_draft:
        raise GhError(f"Pull request {pr_ref(ctx, pull)} is still a draft")
    match = parsed.text("match-head-commit")
    if match and match != pull.head_sha:
        raise GhError(
            "GraphQL: Head branch was modified. Review and try the merge again. (mergePullRequest)"
        )
    delete = parsed.on("delete-branch")
    data = ctx.call(
        "pr.merge.execute", {**pr_input(ctx, pull), "method": methods[0], "deleteBranch": delete}
    )
    lines = [f"✓ {_METHODS[methods[0]]} pull request {pr_ref(ctx, pull)} ({pull.title})"]
    if delete and data.get("branchDeleted", True):
        lines.append(f"✓ Deleted remote branch {pull.head_ref}")
    return ok(stderr="".join(line + "\n" for line in lines), context=ctx)


PR_MERGE = Command(
    "pr merge",
    f"merge {SELECTOR}",
    "Merge a pull request",
    _merge,
    flags=(
        Flag(
            "admin",
            "Use administrator privileges to merge a pull request that does not meet requirements",
            kind="bool",
        ),
        Flag("author-email", "Email text for merge commit author", short="A", metavar="text"),
        Flag("auto", "Automatically merge only after necessary requirements are met", kind="bool"),
        Flag("body", "Body text for the merge commit", short="b", metavar="text"),
        BODY_FILE,
        Flag(
            "delete-branch",
            "Delete the local and remote branch after merge",
            short="d",
            kind="bool",
        ),
        Flag("disable-auto", "Disable auto-merge for this pull request", kind="bool"),
        Flag(
            "match-head-commit",
            "Commit SHA that the pull request head must match to allow merge",
            metavar="SHA",
        ),
        Flag("merge", "Merge the commits with the base branch", short="m", kind="bool"),
        Flag("rebase", "Rebase the commits onto the base branch", short="r", kind="bool"),
        Flag(
            "squash",
            "Squash the commits into one commit and merge it into the base branch",
            short="s",
            kind="bool",
        ),
        Flag("subject", "Subject text for the merge commit", short="t", metavar="text"),
    ),
    long="Merge a pull request on GitHub.\n\nWithout an argument, the pull request that belongs "
    "to the current branch\nis selected.",
    max_args=1,
)


def _update_branch(ctx: GhContext, parsed: Parsed) -> CliResult:
    pull = find_pull_request(ctx, parsed)
    data = ctx.call("pr.branch.update", pr_input(ctx, pull))
    message = "✓ PR branch updated" if data.get("updated") else "✓ PR branch already up-to-date"
    return ok(stderr=message + "\n", context=ctx)


PR_UPDATE_BRANCH = Command(
    "pr update-branch",
    f"update-branch {SELECTOR}",
    "Update a pull request branch",
    _update_branch,
    flags=(
        Flag("rebase", "Update PR branch by rebasing on top of latest base branch", kind="bool"),
    ),
    long="Update a pull request branch with latest changes of the base branch.",
    max_args=1,
)


def _close(ctx: GhContext, parsed: Parsed) -> CliResult:
    pull = find_pull_request(ctx, parsed)
    if pull.state != "OPEN":
        verb = "merged" if pull.state == "MERGED" else "closed"
        return ok(stderr=f"! Pull request {pr_ref(ctx, pull)} ({pull.title}) is already {verb}\n")
    ctx.mutated = True
    if parsed.text("comment"):
        add_conversation_comment(ctx.world, pull, parsed.text("comment"))
    now = ctx.world.tick()
    pull.state, pull.closed_at, pull.updated_at = "CLOSED", now, now
    return ok(stderr=f"✓ Closed pull request {pr_ref(ctx, pull)} ({pull.title})\n", context=ctx)


def _reopen(ctx: GhContext, parsed: Parsed) -> CliResult:
    pull = find_pull_request(ctx, parsed)
    if pull.state == "MERGED":
        raise GhError(
            f"Pull request {pr_ref(ctx, pull)} ({pull.title}) can't be reopened because it was "
            "already merged"
        )
    if pull.state == "OPEN":
        return ok(stderr=f"! Pull request {pr_ref(ctx, pull)} ({pull.title}) is already open\n")
    ctx.mutated = True
    pull.state, pull.closed_at, pull.updated_at = "OPEN", None, ctx.world.tick()
    return ok(stderr=f"✓ Reopened pull request {pr_ref(ctx, pull)} ({pull.title})\n", context=ctx)


PR_CLOSE = Command(
    "pr close",
    "close {<number> | <url> | <branch>}",
    "Close a pull request",
    _close,
    flags=(
        Flag("comment", "Leave a closing comment", short="c"),
        Flag(
            "delete-branch",
            "Delete the local and remote branch after close",
            short="d",
            kind="bool",
        ),
    ),
    max_args=1,
)
PR_REOPEN = Command(
    "pr reopen",
    "reopen {<number> | <url> | <branch>}",
    "Reopen a pull request",
    _reopen,
    flags=(Flag("comment", "Add a reopening comment", short="c"),),
    max_args=1,
)


PR_STATE_COMMANDS = (PR_CLOSE, PR_MERGE, PR_READY, PR_REOPEN, PR_UPDATE_BRANCH)
