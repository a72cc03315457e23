"""Code and commit search over the world's git repository, in GitHub's query syntax (parsed by
:func:`~.search_syntax.parse_query`), as the REST API's ``/search/code`` and
``/search/commits`` search: only the default branch.

Code: every term must be in a file's text (with ``in:path``, or in its path), as a whole word
or run of words (GitHub's code search ignores punctuation: ``snapshot_writer`` holds
``snapshot`` and ``writer``); qualifiers ``repo:``, ``user:``/``org:``, ``path:`` (a directory
and what is below it, ``/`` for the root, or a glob), ``filename:``, ``extension:``,
``language:``, ``size:`` (bytes), ``fork:`` (the repository is no fork), ``in:file``/
``in:path``. Files over 384 KB and binary files are not searched. Best match: the most matches
first.

Commits: terms in the message; ``repo:``, ``user:``/``org:``, ``author:``/``committer:``
(logins), ``author-name:``, ``committer-name:``, ``author-email:``, ``committer-email:``,
``author-date:``/``committer-date:`` (ranges), ``merge:true|false``, ``hash:``, ``parent:``,
``tree:`` (full or abbreviated shas), ``is:public|private`` and ``sort:author-date`` or
``sort:committer-date`` (``-asc``/``-desc``). Best match: the newest first.

A negated qualifier (``-path:tests``) excludes; ``AND``/``OR``/``NOT`` combine terms. A
qualifier GitHub does not have is free text; one it has that the sandbox does not evaluate
(``sort:`` in code search) is recorded as an ``unevaluated_parameter`` gap.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from pytest_ghxbench.sandbox.api.linguist import language_of
from pytest_ghxbench.sandbox.api.search_syntax import (
    PASS,
    Check,
    Pass,
    Query,
    SearchRefused,
    Term,
    in_range,
    in_scope,
    parse_query,
)
from pytest_ghxbench.sandbox.code import commit_login
from pytest_ghxbench.sandbox.git import CommitInfo, TreeEntry
from pytest_ghxbench.sandbox.state import World

__all__ = ["CODE_QUALIFIERS", "COMMIT_QUALIFIERS", "CodeHit", "search_code", "search_commits"]

MAX_SEARCHED = 384 * 1024
_WORD = re.compile(r"[A-Za-z0-9]+")
Span = tuple[int, int]
_SCOPES = ("repo", "user", "org", "owner")
CODE_QUALIFIERS = frozenset(
    {*_SCOPES, "is", "path", "filename", "extension", "language", "size", "in", "fork", "sort"}
)
"""Every qualifier of GitHub's (REST) code search; any other is free text."""
COMMIT_QUALIFIERS = frozenset(
    {*_SCOPES, "is", "author", "committer", "author-name", "committer-name", "author-email",
     "committer-email", "author-date", "committer-date", "merge", "hash", "parent", "tree",
     "sort"}
)  # fmt: skip
"""Every qualifier of GitHub's commit search; any other is free text."""
COMMIT_SORTS = ("author-date", "committer-date")
NO_TERMS = "The search must contain at least one search term."


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


def _visibility(world: World, value: str) -> bool:
    """``is:public`` or ``is:private``, of the world's repository."""
    return value.casefold() == ("private" if world.repository.is_private else "public")


def _path_holds(path: str, value: str) -> bool:
    if any(c in value for c in "*?["):
        return fnmatch.fnmatch(path, value.lstrip("/"))
    folder = path.rpartition("/")[0]
    value = value.strip("/")
    if not value:  # path:/ is the root alone
        return not folder
    return folder == value or folder.startswith(f"{value}/") or path == value


class _File:
    """A file of the default branch, its text read when a term asks for it."""

    def __init__(self, world: World, entry: TreeEntry) -> None:
        self.world = world
        self.entry = entry
        self._text: str | None = None
        self.binary = False

    @property
    def text(self) -> str:
        if self._text is None:
            data = self.world.git.blob(self.entry.sha) or b""
            self.binary = b"\0" in data
            self._text = "" if self.binary else data.decode("utf-8", "replace")
        return self._text


def _file_qualifier(world: World, entry: TreeEntry, name: str, value: str) -> bool:
    file_name = entry.name.lower()
    folded = value.lower()
    if name == "is":
        return _visibility(world, value)
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
    return folded != "only"  # fork: the repository is no fork


def _file_check(world: World, term: Term) -> Check[_File] | Pass | None:
    name, value = term.name, term.value
    if name in _SCOPES or name == "in":
        return PASS  # the scope and where the terms are: evaluated apart
    if name == "sort":
        return None  # code search has one order, best match
    return lambda file: _file_qualifier(world, file.entry, name, value)


def _phrase(term: Term) -> list[list[str]]:
    return _terms([term.value])


def _where(query: Query) -> set[str]:
    ins = query.qualifiers("in")
    for term in ins:
        term.evaluated = True
    return {t.value.lower() for t in ins if not t.negated} or {"file"}


def search_code(world: World, text: str) -> list[CodeHit]:
    """Files of the default branch that the query ``text`` finds, the most matches first."""
    query = parse_query(text, CODE_QUALIFIERS)
    query.refusal()
    words = [w for w in query.words() if _phrase(w)]
    named = query.qualifiers("filename", "extension", "path")
    if not words and not named:
        raise SearchRefused(NO_TERMS)
    scoped = in_scope(world, query)
    where = _where(query)

    def holds(file: _File, phrase: list[list[str]]) -> bool:
        return not phrase or (
            ("file" in where and find(file.text, phrase) is not None)
            or ("path" in where and find(file.entry.path, phrase) is not None)
        )

    def word(term: Term) -> Check[_File]:
        return lambda file: holds(file, _phrase(term))

    check = query.compile(lambda term: _file_check(world, term), word)
    git = world.git
    head = git.resolve(git.default_branch)
    hits: list[CodeHit] = []
    for entry in (git.tree(head, recursive=True) if head and scoped else None) or []:
        if entry.type != "blob" or entry.mode == "120000" or (entry.size or 0) > MAX_SEARCHED:
            continue
        file = _File(world, entry)
        if not check(file):
            continue
        text = file.text  # read now if no term needed it
        if file.binary:
            continue
        phrases = [p for w in words if not w.negated for p in _phrase(w)]
        in_text = _spans(text, phrases) if "file" in where else []
        in_path = _spans(entry.path, phrases) if "path" in where else []
        hits.append(CodeHit(entry, text, in_text, in_path))
    hits.sort(key=lambda h: (-(len(h.in_text) + len(h.in_path)), h.entry.path))
    query.account("code")
    return hits


def _spans(text: str, phrases: list[list[str]]) -> list[Span]:
    """Where each of ``phrases`` that ``text`` holds occurs in it."""
    return sorted(span for p in phrases for span in find(text, [p]) or [])


def _commit_qualifier(world: World, commit: CommitInfo, name: str, value: str) -> bool:
    if name == "is":
        return _visibility(world, value)
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
    return len(folded) >= 7 and commit.tree.startswith(folded)  # tree:


def _commit_check(world: World, term: Term) -> Check[CommitInfo] | Pass:
    name, value = term.name, term.value
    if name in _SCOPES or name == "sort":
        return PASS  # the scope and the order: evaluated apart
    return lambda commit: _commit_qualifier(world, commit, name, value)


def search_commits(
    world: World, text: str, sort: str | None = None, order: str | None = None
) -> list[CommitInfo]:
    """Commits of the default branch that the query ``text`` finds: by its ``sort:``, else by
    ``sort`` and ``order`` (REST's parameters), else the newest first."""
    query = parse_query(text, COMMIT_QUALIFIERS)
    query.refusal()
    scoped = in_scope(world, query)

    def word(term: Term) -> Check[CommitInfo]:
        return lambda commit: find(commit.message, _phrase(term)) is not None

    check = query.compile(lambda term: _commit_check(world, term), word)
    git = world.git
    head = git.resolve(git.default_branch)
    found = [c for c in (git.log(head) if head and scoped else []) if check(c)]
    key, descending = query.sort(COMMIT_SORTS) or (sort, order != "asc")
    if key in COMMIT_SORTS:
        who = str(key).removesuffix("-date")
        found.sort(key=lambda c: str(getattr(c, who).date), reverse=descending)
    query.account("commits")
    return found
