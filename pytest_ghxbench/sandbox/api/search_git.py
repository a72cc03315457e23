"""Code and commit search over the world's git repository, in GitHub's query syntax (parsed by
:func:`~.search.parse_query`), as the REST API's ``/search/code`` and ``/search/commits``
search: only the default branch.

Code: every term must be in a file's text (with ``in:path``, or in its path), as a whole word
or run of words (GitHub's code search ignores punctuation: ``snapshot_writer`` holds
``snapshot`` and ``writer``); qualifiers ``repo:``, ``user:``/``org:``, ``path:`` (a directory
and what is below it, ``/`` for the root, or a glob), ``filename:``, ``extension:``,
``language:``, ``size:`` (bytes), ``in:file``/``in:path``. Files over 384 KB and binary files
are not searched.

Commits: terms in the message; ``repo:``, ``user:``/``org:``, ``author:``/``committer:``
(logins), ``author-name:``, ``committer-name:``, ``author-email:``, ``committer-email:``,
``author-date:``/``committer-date:`` (ranges), ``merge:true|false``, ``hash:``, ``parent:``,
``tree:`` (full or abbreviated shas), ``is:public|private``.

Any other qualifier matches nothing, as on GitHub; a negated one (``-path:tests``) excludes.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from pytest_ghxbench.sandbox.api.linguist import language_of
from pytest_ghxbench.sandbox.api.search import in_range, parse_query
from pytest_ghxbench.sandbox.code import commit_login
from pytest_ghxbench.sandbox.git import CommitInfo, TreeEntry
from pytest_ghxbench.sandbox.state import World

__all__ = ["CodeHit", "NoTerms", "search_code", "search_commits"]

MAX_SEARCHED = 384 * 1024
_WORD = re.compile(r"[A-Za-z0-9]+")
Span = tuple[int, int]


class NoTerms(ValueError):
    """A code search with qualifiers only: GitHub wants at least one search term."""


@dataclass(frozen=True)
class CodeHit:
    entry: TreeEntry
    text: str
    in_text: list[Span]
    """Where the terms are in ``text`` (start, end), in order."""
    in_path: list[Span]


def _terms(words: list[str]) -> list[list[str]]:
    """Each free word or phrase as the words GitHub's index would hold."""
    found = [[w.lower() for w in _WORD.findall(word)] for word in words]
    return [t for t in found if t]


def find(text: str, terms: list[list[str]]) -> list[Span] | None:
    """Where each term of ``terms`` occurs in ``text`` (every occurrence), None when one of
    them does not occur at all."""
    tokens = [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]
    spans: list[Span] = []
    for term in terms:
        size = len(term)
        hits = [
            (tokens[i][1], tokens[i + size - 1][2])
            for i in range(len(tokens) - size + 1)
            if [t[0] for t in tokens[i : i + size]] == term
        ]
        if not hits:
            return None
        spans += hits
    return sorted(spans)


def _scope(world: World, name: str, value: str) -> bool | None:
    """``repo:``, ``user:``/``org:``/``owner:`` and ``is:``, which every kind shares; None for
    another qualifier."""
    repo = world.repository
    folded = value.casefold()
    if name == "repo":
        return folded == repo.full_name.casefold()
    if name in ("user", "org", "owner"):
        return folded == repo.owner.casefold()
    if name == "is":
        return folded == ("private" if repo.is_private else "public")
    return None


def _path_holds(path: str, value: str) -> bool:
    if any(c in value for c in "*?["):
        return fnmatch.fnmatch(path, value.lstrip("/"))
    folder = path.rpartition("/")[0]
    value = value.strip("/")
    if not value:  # path:/ is the root alone
        return not folder
    return folder == value or folder.startswith(f"{value}/") or path == value


def _file_qualifier(world: World, entry: TreeEntry, name: str, value: str) -> bool:
    scoped = _scope(world, name, value)
    if scoped is not None:
        return scoped
    file_name = entry.name.lower()
    folded = value.lower()
    if name == "path":
        return _path_holds(entry.path, value)
    if name == "filename":
        return folded in (file_name, file_name.rsplit(".", 1)[0]) or fnmatch.fnmatch(
            file_name, folded
        )
    if name == "extension":
        return "." in file_name and file_name.rsplit(".", 1)[1] == folded.lstrip(".")
    if name == "language":
        return (language_of(entry.path) or "").lower() == folded
    if name == "size":
        return in_range(value, entry.size or 0)
    return name in ("in", "fork", "sort")


def search_code(world: World, query: str) -> list[CodeHit]:
    """Files of the default branch that ``query`` finds, the most matches first."""
    qualifiers, words = parse_query(query)
    terms = _terms(words)
    where = {v.lower() for neg, n, v in qualifiers if n == "in" and not neg} or {"file"}
    if not terms and not any(n in ("filename", "extension", "path") for _, n, _ in qualifiers):
        raise NoTerms(query)
    git = world.git
    head = git.resolve(git.default_branch)
    hits: list[CodeHit] = []
    for entry in (git.tree(head, recursive=True) if head else None) or []:
        if entry.type != "blob" or entry.mode == "120000" or (entry.size or 0) > MAX_SEARCHED:
            continue
        if not all(
            _file_qualifier(world, entry, name, value) != negated
            for negated, name, value in qualifiers
        ):
            continue
        data = git.blob(entry.sha) or b""
        if b"\0" in data:
            continue
        text = data.decode("utf-8", "replace")
        in_text: list[Span] = []
        in_path: list[Span] = []
        for term in terms:
            here = find(text, [term]) if "file" in where else None
            there = find(entry.path, [term]) if "path" in where else None
            if here is None and there is None:
                break
            in_text += here or []
            in_path += there or []
        else:
            hits.append(CodeHit(entry, text, sorted(in_text), sorted(in_path)))
    hits.sort(key=lambda h: (-(len(h.in_text) + len(h.in_path)), h.entry.path))
    return hits


def _commit_qualifier(world: World, commit: CommitInfo, name: str, value: str) -> bool:
    scoped = _scope(world, name, value)
    if scoped is not None:
        return scoped
    folded = value.casefold()
    people = {"author": commit.author, "committer": commit.committer}
    kind, _, field = name.partition("-")
    if kind in people and field in ("", "name", "email", "date"):
        who = people[kind]
        if field == "date":
            return in_range(value, who.date)
        if field == "":
            login = commit_login(world, who) or ""
            return folded == (world.viewer if value == "@me" else login).casefold()
        return folded == str(getattr(who, field)).casefold()
    if name == "merge":
        return (len(commit.parents) > 1) == (folded == "true")
    if name == "hash":
        return len(folded) >= 7 and commit.sha.startswith(folded)
    if name == "parent":
        return len(folded) >= 7 and any(p.startswith(folded) for p in commit.parents)
    if name == "tree":
        return len(folded) >= 7 and commit.tree.startswith(folded)
    return name == "sort"


def search_commits(world: World, query: str) -> list[CommitInfo]:
    """Commits of the default branch that ``query`` finds, newest first."""
    qualifiers, words = parse_query(query)
    terms = _terms(words)
    git = world.git
    head = git.resolve(git.default_branch)
    found = []
    for commit in git.log(head) if head else []:
        if not all(
            _commit_qualifier(world, commit, name, value) != negated
            for negated, name, value in qualifiers
        ):
            continue
        if find(commit.message, terms) is not None:
            found.append(commit)
    return found
