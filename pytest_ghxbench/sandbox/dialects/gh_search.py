"""GitHub search syntax for ``--search`` / ``-S`` and ``gh search issues|prs``.

Supported qualifiers: ``is:`` (open, closed, merged, draft, issue, pr), ``state:``, ``label:``
(repeatable; ``-label:`` excludes), ``author:``, ``assignee:``, ``mentions:``, ``milestone:``,
``head:``, ``base:``, ``review-requested:``, ``reviewed-by:``, ``no:`` (label, assignee,
milestone), ``repo:`` and ``sort:`` (ignored: results stay newest first). ``@me`` is the viewer.
Other words, and quoted phrases, must all appear in the title or body (case-insensitive).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, export_json, ok, pick, table
from pytest_ghxbench.sandbox.dialects.gh_render import (
    assignee_json,
    author,
    label_json,
)
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Issue, PullRequest, World

__all__ = ["SEARCH_COMMANDS", "matches"]

Item = Issue | PullRequest


def _terms(query: str) -> list[str]:
    try:
        return shlex.split(query)
    except ValueError:
        return query.split()


def _who(world: World, login: str) -> str:
    return world.viewer if login == "@me" else login


def _qualifier(world: World, item: Item, key: str, value: str) -> bool | None:
    """Whether ``item`` passes ``key:value``; ``None`` when the key is not a qualifier."""
    is_pull = isinstance(item, PullRequest)
    value_folded = value.casefold()
    if key in ("is", "state"):
        checks = {
            "open": item.state == "OPEN",
            "closed": item.state != "OPEN",
            "merged": item.state == "MERGED",
            "unmerged": is_pull and item.state == "CLOSED",
            "draft": isinstance(item, PullRequest) and item.is_draft,
            "issue": not is_pull,
            "pr": is_pull,
        }
        return checks.get(value_folded, False)
    if key == "label":
        return value_folded in {n.casefold() for n in item.labels}
    if key == "author":
        return item.author == _who(world, value)
    if key == "assignee":
        return _who(world, value) in item.assignees
    if key == "mentions":
        return f"@{_who(world, value)}" in item.body
    if key == "milestone":
        milestone = world.milestone(item.milestone) if item.milestone else None
        return milestone is not None and value in (milestone.title, str(milestone.number))
    if key == "no":
        empty = {
            "label": not item.labels,
            "assignee": not item.assignees,
            "milestone": not item.milestone,
        }
        return empty.get(value_folded, False)
    if key in ("head", "base", "review-requested", "reviewed-by"):
        if not isinstance(item, PullRequest):
            return False
        if key == "head":
            return item.head_ref == value
        if key == "base":
            return item.base_ref == value
        if key == "review-requested":
            return _who(world, value) in item.requested_reviewers
        return any(r.author == _who(world, value) for r in item.reviews)
    if key == "repo":
        return value_folded == world.repository.full_name.casefold()
    if key in ("sort", "in", "archived"):
        return True
    return None


def matches(world: World, item: Item, query: str) -> bool:
    """Whether ``item`` is found by the GitHub search ``query``."""
    text = f"{item.title}\n{item.body}".casefold()
    for term in _terms(query):
        negate = term.startswith("-") and ":" in term
        word = term[1:] if negate else term
        key, colon, value = word.partition(":")
        result = _qualifier(world, item, key.casefold(), value.strip('"')) if colon else None
        if result is None:
            result = re.search(rf"(?<!\w){re.escape(word.casefold())}(?!\w)", text) is not None
        if result == negate:
            return False
    return True


_SEARCH_FIELDS = (
    "assignees",
    "author",
    "authorAssociation",
    "body",
    "closedAt",
    "commentsCount",
    "createdAt",
    "id",
    "isLocked",
    "isPullRequest",
    "labels",
    "number",
    "repository",
    "state",
    "title",
    "updatedAt",
    "url",
)


def _getters(world: World, item: Item) -> dict[str, Any]:
    is_pull = isinstance(item, PullRequest)
    kind = "pull" if is_pull else "issues"
    repo = world.repository
    return {
        "assignees": lambda: [assignee_json(world, a) for a in item.assignees],
        "author": lambda: author(world, item.author),
        "authorAssociation": lambda: "MEMBER" if item.author in world.collaborators else "NONE",
        "body": lambda: item.body,
        "closedAt": lambda: item.closed_at,
        "commentsCount": lambda: len(item.comments),
        "createdAt": lambda: item.created_at,
        "id": lambda: item.node_id,
        "isDraft": lambda: isinstance(item, PullRequest) and item.is_draft,
        "isLocked": lambda: False,
        "isPullRequest": lambda: is_pull,
        "labels": lambda: [label_json(world, n) for n in item.labels],
        "number": lambda: item.number,
        "repository": lambda: {"name": repo.name, "nameWithOwner": repo.full_name},
        "state": lambda: (
            "open" if item.state == "OPEN" else "merged" if item.state == "MERGED" else "closed"
        ),
        "title": lambda: item.title,
        "updatedAt": lambda: item.updated_at,
        "url": lambda: f"{repo.url}/{kind}/{item.number}",
    }


def _search(kind: str) -> Any:
    def handler(ctx: GhContext, parsed: Parsed) -> CliResult:
        world = ctx.world
        for repo in parsed.items("repo"):
            if repo.casefold() != world.repository.full_name.casefold():
                return ok(stderr="no issues matched your search\n")
        query = " ".join(parsed.args)
        for flag in ("author", "assignee", "label", "state"):
            for value in parsed.items(flag) if flag == "label" else [parsed.text(flag)]:
                if value:
                    query += f" {flag}:{value}"
        items: list[Item] = [*world.pull_requests] if kind == "prs" else [*world.issues]
        if kind == "issues" and parsed.on("include-prs"):
            items += world.pull_requests
        found = [i for i in sorted(items, key=lambda i: -i.number) if matches(world, i, query)]
        found = found[: parsed.number("limit")]
        command = SEARCH_PRS if kind == "prs" else SEARCH_ISSUES
        exported = export_json(
            command, parsed, lambda fields: [pick(fields, _getters(world, i)) for i in found]
        )
        if exported is not None:
            return exported
        if not found:
            noun = "pull requests" if kind == "prs" else "issues"
            return ok(stderr=f"no {noun} matched your search\n")
        rows = [
            [
                world.repository.full_name,
                i.number,
                "open" if i.state == "OPEN" else "closed",
                i.title,
                ", ".join(i.labels),
                i.updated_at,
            ]
            for i in found
        ]
        return ok(table(rows))

    return handler


def _flags(kind: str) -> tuple[Flag, ...]:
    flags = [
        Flag("assignee", "Filter by assignee"),
        Flag("author", "Filter by author"),
        Flag("label", "Filter on label", kind="strings"),
        Flag("limit", "Maximum number of results to fetch", short="L", kind="int", default=30),
        Flag("repo", "Filter on repository", short="R", kind="strings"),
        Flag("state", "Filter based on state", kind="enum", choices=("open", "closed")),
    ]
    if kind == "issues":
        flags.append(Flag("include-prs", "Include pull requests in results", kind="bool"))
    return tuple(flags)


SEARCH_ISSUES = Command(
    "search issues",
    "issues [<query>]",
    "Search for issues",
    _search("issues"),
    flags=_flags("issues"),
    json_fields=_SEARCH_FIELDS,
    repo_flag=False,
)
SEARCH_PRS = Command(
    "search prs",
    "prs [<query>]",
    "Search for pull requests",
    _search("prs"),
    flags=_flags("prs"),
    json_fields=tuple(sorted((*_SEARCH_FIELDS, "isDraft"))),
    repo_flag=False,
)
SEARCH_COMMANDS = (SEARCH_ISSUES, SEARCH_PRS)
