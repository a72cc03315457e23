"""A world's code, as GitHub derives it from the git repository: people behind commits, what a
pull request changes (files, diff, commits), whether it can merge, and keeping pull requests in
step with their branches whenever refs move (:func:`sync_pulls`).

Every writer of refs (a push, the contents and git data APIs, merging, updating a branch)
calls :func:`sync_pulls` afterwards, so an open pull request's head is always its branch's tip.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

from pytest_ghxbench.sandbox.git import CommitInfo, FileChange, GitError, Person
from pytest_ghxbench.sandbox.git.commands import format_patch
from pytest_ghxbench.sandbox.git.diff import changed_files, diff_text
from pytest_ghxbench.sandbox.state import PullRequest, World

__all__ = [
    "GITHUB",
    "branch_sha",
    "commit_authors",
    "commit_login",
    "headline_and_body",
    "person",
    "pull_commits",
    "pull_diff",
    "pull_files",
    "pull_patch",
    "pull_range",
    "refs_changed",
    "sync_pulls",
]

GITHUB = ("GitHub", "noreply@github.com")
"""The committer of what GitHub writes on a user's behalf (merges, web edits)."""

_lock = threading.Lock()
_MERGEABLE: OrderedDict[tuple[str, str], bool] = OrderedDict()


def person(world: World, login: str, date: str | None = None) -> Person:
    """``login`` as a commit author at ``date`` (default: now on the world's clock)."""
    name = next((u.name for u in world.users if u.login == login), "") or login
    return Person.of_login(login, name, date or world.clock)


def github_committer(date: str) -> Person:
    return Person(GITHUB[0], GITHUB[1], date)


def commit_login(world: World, who: Person) -> str | None:
    """The world's user an author or committer is (by their noreply email), if any."""
    login = who.login
    if login is not None and any(u.login == login for u in world.users):
        return login
    return None


_CO_AUTHOR = re.compile(r"^co-authored-by:\s*(.+?)\s*<([^>]+)>\s*$", re.IGNORECASE | re.MULTILINE)


def commit_authors(commit: CommitInfo) -> list[Person]:
    """A commit's authors as GitHub lists them: its author, then each ``Co-authored-by:``
    trailer's person (once per email), dated as the commit was authored."""
    found = [commit.author]
    emails = {commit.author.email.casefold()}
    for name, email in _CO_AUTHOR.findall(commit.message):
        if email.casefold() not in emails:
            emails.add(email.casefold())
            found.append(Person(name, email, commit.author.date))
    return found


HEADLINE = 72
"""GitHub shows a commit's first line up to this many characters; a longer one is cut with an
ellipsis and the rest, after another, leads the body."""


def headline_and_body(commit: CommitInfo) -> tuple[str, str]:
    """``messageHeadline`` and ``messageBody`` as GitHub splits a commit's message."""
    title, body = commit.title, commit.body
    if len(title) <= HEADLINE:
        return title, body
    rest = "\u2026" + title[HEADLINE - 1 :]
    return title[: HEADLINE - 1] + "\u2026", f"{rest}\n\n{body}" if body else rest


def branch_sha(world: World, name: str) -> str | None:
    return world.git.ref(f"refs/heads/{name}")


def pull_range(world: World, pull: PullRequest) -> tuple[str | None, str] | None:
    """``(merge base, head)``: what the pull request changes is ``head`` since the merge base
    (None: the two share no history). None when its commits are gone."""
    git = world.git
    head = pull.head_sha
    if not head or git.commit(head) is None:
        return None
    base = pull.base_sha if pull.base_sha and git.commit(pull.base_sha) else None
    if pull.state == "OPEN" or base is None:
        base = branch_sha(world, pull.base_ref) or base
    if base is None:
        return None, head
    return git.merge_base(base, head), head


def pull_files(world: World, pull: PullRequest) -> list[FileChange]:
    """The files the pull request changes, as ``GET /pulls/{n}/files`` lists them."""
    span = pull_range(world, pull)
    return changed_files(world.git, *span) if span else []


def pull_diff(world: World, pull: PullRequest) -> str:
    span = pull_range(world, pull)
    return diff_text(world.git, *span) if span else ""


def pull_patch(world: World, pull: PullRequest) -> str:
    """The pull request's commits as ``git format-patch`` mails (``.patch``)."""
    span = pull_range(world, pull)
    return format_patch(world.git, *span) if span else ""


def pull_commits(world: World, pull: PullRequest) -> list[CommitInfo]:
    """The pull request's commits, oldest first."""
    span = pull_range(world, pull)
    if span is None:
        return []
    base, head = span
    return list(reversed(world.git.log(head, hide=(base,) if base else ())))


def refs_changed(world: World) -> None:
    """What follows any move of refs: pull requests in step, workflows from the default
    branch's workflow files, the push time."""
    from pytest_ghxbench.sandbox.workflow_files import sync_workflows

    world.repository.pushed_at = world.clock
    _draft_untagged_releases(world)
    sync_workflows(world)  # first: a workflow file pushed to the default branch runs at once
    sync_pulls(world)


def _draft_untagged_releases(world: World) -> None:
    """As on GitHub, a published release whose tag was deleted (by the API or a push) turns
    back into a draft."""
    for release in world.releases:
        if not release.draft and world.git.ref(f"refs/tags/{release.tag_name}") is None:
            release.draft, release.published_at = True, None


def _can_merge(world: World, base: str, head: str) -> bool:
    key = (base, head)
    with _lock:
        known = _MERGEABLE.get(key)
    if known is None:
        try:
            known = world.git.merged_tree(base, head) is not None
        except GitError:
            known = False
        with _lock:
            _MERGEABLE[key] = known
            while len(_MERGEABLE) > 512:
                _MERGEABLE.popitem(last=False)
    return known


def _merged_by_push(world: World, pull: PullRequest, base: str) -> None:
    """Mark ``pull`` merged when its base branch, moved to ``base``, now holds its head (and
    held it not before)."""
    from pytest_ghxbench.sandbox import history

    git, head, before = world.git, pull.head_sha, pull.base_sha
    if not head or base == before or git.commit(head) is None:
        return
    if not git.is_ancestor(head, base):
        return
    if before and git.commit(before) is not None and git.is_ancestor(head, before):
        return
    now = world.tick()
    pull.state, pull.merged_at, pull.closed_at, pull.updated_at = "MERGED", now, now, now
    pull.merged_by, pull.merge_commit_sha = world.viewer, head
    pull.mergeable, pull.merge_state_status = "UNKNOWN", "UNKNOWN"
    history.merged(world, pull, head)
    if pull.base_ref != world.repository.default_branch:
        return
    for number in pull.closing_issues:
        issue = world.issue(number)
        if issue is not None and issue.state == "OPEN":
            issue.state, issue.state_reason = "CLOSED", "COMPLETED"
            issue.closed_at = issue.updated_at = now
            history.closed_by_merge(world, issue, pull, head)


def sync_pulls(world: World, *, seeding: bool = False) -> None:
    """Bring every pull request in step with the repository's refs (after refs moved):

    - an open pull request's head is its head branch's tip (a new head updates it); one whose
      head branch is gone is closed, as GitHub closes it;
    - a head branch deleted (or restored at the pull request's head) is in its history;
    - its base is its base branch's tip, and git decides whether the two merge cleanly;
    - one whose head the base branch now holds (its commits pushed onto the base) is merged,
      in its head commit, as GitHub marks it (:func:`_merged_by_push`);
    - ``refs/pull/<n>/head`` points at every pull request's head, as on GitHub.

    ``seeding``: filling in a seed's pull requests, which is not a change (no clock tick).
    """
    from pytest_ghxbench.sandbox import history
    from pytest_ghxbench.sandbox.operations.prs import merge_state
    from pytest_ghxbench.sandbox.workflow_triggers import note_ref_moves

    git = world.git
    if not seeding:
        note_ref_moves(world)  # the workflow runs a push starts
    refs = git.refs()
    for pull in world.pull_requests:
        head = refs.get(f"refs/heads/{pull.head_ref}")
        if not seeding and (pull.state != "OPEN" or head is None):
            history.head_ref_synced(world, pull, head)
        if pull.state == "OPEN":
            if head is None and not seeding:
                with history.tracked(world, pull):
                    now = world.tick()
                    pull.state, pull.closed_at, pull.updated_at = "CLOSED", now, now
            elif head is not None and head != pull.head_sha:
                pull.head_sha = head
                if not seeding:
                    pull.updated_at = world.tick()
            base = refs.get(f"refs/heads/{pull.base_ref}")
            if base is not None and pull.state == "OPEN" and not seeding:
                _merged_by_push(world, pull, base)
            if base is not None and pull.state == "OPEN":
                pull.base_sha = base
                fits = _can_merge(world, base, pull.head_sha)
                pull.mergeable = "MERGEABLE" if fits else "CONFLICTING"
                pull.merge_state_status = merge_state(world, pull)
        stale = pull.head_sha and refs.get(f"refs/pull/{pull.number}/head") != pull.head_sha
        if stale and git.commit(pull.head_sha) is not None:
            git.set_ref(f"refs/pull/{pull.number}/head", pull.head_sha)
