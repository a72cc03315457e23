"""GitHub's search syntax, shared by every search of the sandbox: a query's qualifiers and free
words (:func:`parse_query`), and the ranges numbers and dates take (:func:`in_range`)."""

from __future__ import annotations

import re

__all__ = ["in_range", "parse_query"]

_TOKEN = re.compile(r'(-?)([\w-]+):("[^"]*"|\S+)|"([^"]*)"|(\S+)')


def parse_query(text: str) -> tuple[list[tuple[bool, str, str]], list[str]]:
    """``([(negated, qualifier, value)], [free words])`` of a search query."""
    qualifiers: list[tuple[bool, str, str]] = []
    words: list[str] = []
    for match in _TOKEN.finditer(text):
        negated, name, value, phrase, word = match.groups()
        if name:
            qualifiers.append((bool(negated), name.lower(), value.strip('"')))
        elif phrase is not None:
            words.append(phrase)
        elif word.strip("()") and word.upper() not in ("AND", "OR", "NOT"):
            words.append(word.strip("()"))
    return qualifiers, words


def in_range(expression: str, actual: str | int) -> bool:
    """Whether ``actual`` satisfies ``>=x``, ``<x``, ``a..b``, ``a..*`` or ``x``; dates compare
    as text (``2026-02-01`` < ``2026-02-01T10:00:00Z`` < ``2026-02-02``)."""

    def cast(value: str) -> str | int:
        return int(value) if isinstance(actual, int) else value

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
