"""Scenario tags as markers, and ``-m`` expressions that name no known marker.

pytest evaluates ``-m`` against each item's markers and says nothing about a name no item (and
no registration) has: ``-m mutaton`` silently deselects everything. In a benchmark session an
unknown name is a warning that lists the scenario tags, and a usage error under
``--strict-markers`` (or pytest 9's ``strict``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest

# pytest's mark-expression identifiers; a marker's keyword arguments, `name(key=value, ...)`,
# are not names (a parenthesized group holds no `=`)
_IDENT = re.compile(r"(?:[\w:+\-.\[\]\\/])+")
_ARGUMENTS = re.compile(r"\([^()]*=[^()]*\)")
_OPERATORS = {"and", "or", "not"}


def expression_names(expression: str) -> list[str]:
    """Marker names an ``-m`` expression refers to, in order, without repeats."""
    bare = _ARGUMENTS.sub(" ", expression)
    names = [name for name in _IDENT.findall(bare) if name not in _OPERATORS]
    return list(dict.fromkeys(names))


def registered_markers(config: pytest.Config) -> set[str]:
    names: set[str] = set()
    for line in config.getini("markers"):
        name = line.split(":", 1)[0].split("(", 1)[0].strip()
        if name:
            names.add(name)
    return names


def strict_markers(config: pytest.Config) -> bool:
    if getattr(config.option, "strict_markers", False):
        return True
    for name in ("strict_markers", "strict"):
        try:
            value = config.getini(name)
        except ValueError:  # pytest 8 has no `strict` ini
            continue
        if value is not None:
            return bool(value)
    return False


def check_mark_expression(config: pytest.Config, tags: Iterable[str]) -> None:
    """Warn about (or, strict, reject) ``-m`` names that are no registered marker."""
    expression = str(getattr(config.option, "markexpr", "") or "")
    if not expression.strip():
        return
    known = registered_markers(config)
    unknown = [name for name in expression_names(expression) if name not in known]
    if not unknown:
        return
    listed = ", ".join(sorted(tags)) or "none"
    message = (
        f"ghxbench: -m {expression!r} names unknown marker(s) "
        f"{', '.join(map(repr, unknown))}; scenario tags: {listed} "
        "(`pytest --markers` lists every marker)"
    )
    if strict_markers(config):
        raise pytest.UsageError(message)
    config.issue_config_time_warning(pytest.PytestUnknownMarkWarning(message), stacklevel=2)
