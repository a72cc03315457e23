"""GitHub's search syntax, shared by every search of the sandbox.

:func:`parse_query` reads a query into a :class:`Query`: its terms (qualifiers and free words)
combined by ``AND`` (also implied between terms), ``OR``, ``NOT`` and parentheses. A qualifier
whose name the kind of search does not know is free text, as on GitHub (``bogus:thing`` looks
for the words ``bogus`` and ``thing``). A search compiles the query with :meth:`Query.compile`,
which marks each qualifier the search evaluates; the ones left unmarked (sort orders and
qualifiers it cannot evaluate) become ``unevaluated_parameter`` gaps at :meth:`Query.account`,
so a qualifier is never ignored without a record.

GitHub's refusals of a query are :class:`SearchRefused`: more than 256 characters of text, more
than five operators (:meth:`Query.refusal`), and ``repo:``/``user:``/``org:`` naming nothing
that exists (:func:`in_scope`). :func:`in_range` evaluates the ranges numbers and dates take.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from pytest_ghxbench.sandbox.gaps import UNEVALUATED_PARAMETER, record
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "PASS",
    "Check",
    "Pass",
    "Query",
    "SearchRefused",
    "Term",
    "in_range",
    "in_scope",
    "normalized",
    "parse_query",
    "text_has",
]

_TOKEN = re.compile(
    r'(?P<paren>[()])|(?P<neg>-?)(?:(?P<name>[\w.][\w.-]*):(?P<value>"[^"]*"|[^\s()]+)'
    r'|"(?P<phrase>[^"]*)"?|(?P<word>[^\s()"]+))'
)
_OPERATORS = ("AND", "OR", "NOT")
_QUOTE = '"'
_SCOPES = ("repo", "user", "org", "owner")
MAX_TEXT = 256
MAX_OPERATORS = 5
UNSEARCHABLE = (
    "The listed users and repositories cannot be searched either because the resources do "
    "not exist or you do not have permission to view them."
)

_T = TypeVar("_T")
Check = Callable[[_T], bool]


class SearchRefused(ValueError):
    """GitHub refuses the query (422 ``Validation Failed`` in REST, an error in GraphQL)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(eq=False)
class Term:
    """A qualifier (``name``, ``value``) or a free word or phrase (``name`` empty)."""

    name: str
    value: str
    negated: bool = False
    evaluated: bool = False

    @property
    def label(self) -> str:
        """How gaps name it: the qualifier, or ``is:queued`` where the value is the filter."""
        return f"{self.name}:{self.value.lower()}" if self.name in ("is", "has") else self.name


class Pass:
    """A qualifier that filters nothing here: evaluated elsewhere (``sort:``, ``in:``)."""


PASS = Pass()


@dataclass
class _Node:
    op: str  # "term", "and", "or", "not"
    term: Term | None = None
    children: list[_Node] = field(default_factory=list)


@dataclass
class Query:
    text: str
    root: _Node
    operators: int

    def terms(self) -> Iterator[Term]:
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.term is not None:
                yield node.term
            stack.extend(reversed(node.children))

    def qualifiers(self, *names: str) -> list[Term]:
        return [t for t in self.terms() if t.name and (not names or t.name in names)]

    def words(self) -> list[Term]:
        return [t for t in self.terms() if not t.name]

    def refusal(self) -> None:
        """GitHub's limits on a query's length and operators."""
        text = " ".join(t.value for t in self.words())
        if len(text) > MAX_TEXT:
            raise SearchRefused(f"The search is longer than {MAX_TEXT} characters.")
        if self.operators > MAX_OPERATORS:
            raise SearchRefused("More than five AND / OR / NOT operators were used.")

    def compile(
        self,
        qualifier: Callable[[Term], Check[_T] | Pass | None],
        word: Callable[[Term], Check[_T]],
    ) -> Check[_T]:
        """One check of the whole query: ``qualifier`` gives a qualifier's check (marking it
        evaluated), :data:`PASS` for one that filters nothing here, or None for one the
        sandbox cannot evaluate (it then matches nothing and stays unmarked)."""

        def build(node: _Node) -> Check[_T]:
            if node.op == "and":
                parts = [build(child) for child in node.children]
                return lambda item: all(part(item) for part in parts)
            if node.op == "or":
                parts = [build(child) for child in node.children]
                return lambda item: any(part(item) for part in parts)
            if node.op == "not":
                inner = build(node.children[0])
                return lambda item: not inner(item)
            term = node.term
            assert term is not None
            check = qualifier(term) if term.name else word(term)
            if isinstance(check, Pass):
                return lambda item: True
            if check is None:
                found: Check[_T] = lambda item: False  # noqa: E731
            else:
                term.evaluated = True
                found = check
            negated = term.negated
            return lambda item: found(item) != negated

        return build(self.root)

    def sort(self, known: Collection[str]) -> tuple[str, bool] | None:
        """The ``sort:`` qualifier's key and whether it is descending, when the key is one of
        ``known`` (the qualifier is then evaluated); None without one (or with another)."""
        for term in reversed(self.qualifiers("sort")):
            value = term.value.lower()
            key, _, direction = value.rpartition("-")
            if direction not in ("asc", "desc"):
                key, direction = value, "desc"
            if key in known and not term.negated:
                term.evaluated = True
                return key, direction == "desc"
        return None

    def account(self, kind: str) -> None:
        """Record each qualifier the search did not evaluate (``kind``: ``issues``...)."""
        for term in self.qualifiers():
            if not term.evaluated:
                record(UNEVALUATED_PARAMETER, f"search {kind}: qualifier {term.label}")


class _Parser:
    def __init__(self, tokens: list[tuple[str, Term | None]]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else ""

    def expression(self) -> _Node:
        options = [self.conjunction()]
        while self.peek() == "OR":
            self.at += 1
            options.append(self.conjunction())
        options = [o for o in options if o.op != "and" or o.children]
        if len(options) <= 1:
            return options[0] if options else _Node("and")
        return _Node("or", children=options)

    def conjunction(self) -> _Node:
        parts: list[_Node] = []
        while self.peek() not in ("", "OR", ")"):
            if self.peek() == "AND":
                self.at += 1
                continue
            node = self.unary()
            if node is not None:
                parts.append(node)
        return parts[0] if len(parts) == 1 else _Node("and", children=parts)

    def unary(self) -> _Node | None:
        kind, term = self.tokens[self.at]
        self.at += 1
        if kind == "NOT":
            if self.peek() in ("", "OR", ")", "AND"):
                return None
            inner = self.unary()
            return _Node("not", children=[inner]) if inner is not None else None
        if kind == "(":
            inner = self.expression()
            if self.peek() == ")":
                self.at += 1
            return inner if inner.op != "and" or inner.children else None
        return _Node("term", term)


def parse_query(text: str, known: Callable[[str], bool] | Collection[str]) -> Query:
    """The query ``text`` of a search whose qualifiers are ``known`` (names, or a test)."""
    knows = known if callable(known) else known.__contains__
    tokens: list[tuple[str, Term | None]] = []
    operators = 0
    for match in _TOKEN.finditer(text):
        paren, negated = match["paren"], bool(match["neg"])
        name, value, phrase, word = match["name"], match["value"], match["phrase"], match["word"]
        if paren:
            tokens.append((paren, None))
        elif name and knows(name.lower()):
            tokens.append(("term", Term(name.lower(), value.strip(_QUOTE), negated)))
        elif name:  # a qualifier GitHub does not have: words to look for
            words = f"{name} {value.strip(_QUOTE)}"
            tokens.append(("term", Term("", words, negated)))
        elif phrase is not None:
            tokens.append(("term", Term("", phrase, negated)))
        elif word in _OPERATORS and not negated:
            operators += 1
            tokens.append((word, None))
        elif word:
            tokens.append(("term", Term("", word, negated)))
    parser = _Parser(tokens)
    root = parser.expression()
    while parser.at < len(tokens):  # a stray ")": what follows it still counts
        parser.at += 1
        rest = parser.expression()
        root = _Node("and", children=[root, rest])
    return Query(text, root, operators)


def normalized(text: str) -> str:
    """``text`` as search compares it: case-folded, punctuation between words as one space
    (``snapshot_writer`` holds ``snapshot writer``)."""
    return " ".join(re.findall(r"[^\W_]+", text.casefold()))


def text_has(haystack: str, word: str) -> bool:
    """Whether the (normalized) ``haystack`` holds ``word``; punctuation alone is found."""
    wanted = normalized(word)
    return not wanted or wanted in haystack


def in_scope(world: World, query: Query) -> bool:
    """Whether the world's repository is among those the query's ``repo:``, ``user:``,
    ``org:`` and ``owner:`` qualifiers name (several name several: any of them); each of them
    is evaluated here. Refused as GitHub refuses it when none of those named exists."""
    repo = world.repository
    wanted = [t for t in query.qualifiers(*_SCOPES) if not t.negated]
    for term in query.qualifiers(*_SCOPES):
        term.evaluated = True
    accounts = {u.login.casefold() for u in world.users} | {repo.owner.casefold()}

    def names(term: Term) -> str:
        return (world.viewer if term.value == "@me" else term.value).casefold()

    def exists(term: Term) -> bool:
        if term.name == "repo":
            return names(term) == repo.full_name.casefold()
        return names(term) in accounts

    def holds(term: Term) -> bool:
        if term.name == "repo":
            return names(term) == repo.full_name.casefold()
        return names(term) == repo.owner.casefold()

    if wanted and not any(exists(t) for t in wanted):
        raise SearchRefused(UNSEARCHABLE)
    excluded = any(holds(t) for t in query.qualifiers(*_SCOPES) if t.negated)
    return not excluded and (not wanted or any(holds(t) for t in wanted))


def in_range(expression: str, actual: str | int) -> bool:
    """Whether ``actual`` satisfies ``>=x``, ``<x``, ``a..b``, ``a..*`` or ``x``; dates compare
    as text (``2026-02-01`` < ``2026-02-01T10:00:00Z`` < ``2026-02-02``)."""

    def cast(value: str) -> str | int:
        return int(value) if isinstance(actual, int) else value

    try:
        return _holds(expression, actual, cast)
    except ValueError:  # not a number: GitHub finds nothing by it
        return False


def _holds(expression: str, actual: str | int, cast: Callable[[str], str | int]) -> bool:
    if ".." in expression:
        low, high = expression.split("..", 1)
        return (low == "*" or actual >= cast(low)) and (  # type: ignore[operator]
            high == "*" or _at_most(actual, cast(high))
        )
    for op in (">=", "<=", ">", "<"):
        if expression.startswith(op):
            bound = cast(expression[len(op) :])
            if op == ">=":
                return actual >= bound  # type: ignore[operator]
            if op == "<=":
                return _at_most(actual, bound)
            if op == ">":
                return actual > bound and not _same_day(actual, bound)  # type: ignore[operator]
            return actual < bound  # type: ignore[operator]
    bound = cast(expression)
    return actual == bound or _same_day(actual, bound)


def _same_day(actual: str | int, bound: str | int) -> bool:
    return isinstance(actual, str) and isinstance(bound, str) and actual.startswith(bound)


def _at_most(actual: str | int, bound: str | int) -> bool:
    return actual <= bound or _same_day(actual, bound)  # type: ignore[operator]
