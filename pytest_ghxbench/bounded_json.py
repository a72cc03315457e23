"""Reading JSON that someone else wrote (rows, manifests, shim input, ``--jq`` data) with limits.

The standard library follows a document as deep as the interpreter's stack allows (a line nested
5,000 deep ends in a ``RecursionError``), turns a 5,000-digit integer into a ``ValueError`` from
deep inside ``int()``, and accepts ``NaN``/``Infinity``, which are not JSON. :func:`loads` bounds
all three and says where the document broke them, as a :class:`json.JSONDecodeError` (a
``ValueError``), so every caller keeps the one ``except`` it already has for bad JSON.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 100
"""Deepest nesting of arrays and objects accepted (a row is 4 deep, a GraphQL reply ~15)."""
MAX_NUMBER_CHARS = 40
"""Longest number accepted, in characters (token counts and costs need under 20)."""

# Strings first, so brackets inside them are skipped; then any bracket.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class BoundedJSONError(json.JSONDecodeError):
    """A document that is JSON but beyond a limit, or not standard JSON (``NaN``)."""


def _depth_error(text: str, max_depth: int) -> BoundedJSONError | None:
    if len(text) <= 2 * max_depth:  # a document this short cannot be too deep
        return None
    depth = 0
    for match in _TOKENS.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > max_depth:
                return BoundedJSONError(
                    f"nested deeper than {max_depth} levels", text, match.start()
                )
        elif char in "]}":
            depth -= 1
    return None


def loads(
    text: str | bytes,
    *,
    max_depth: int = MAX_DEPTH,
    max_number_chars: int = MAX_NUMBER_CHARS,
) -> Any:
    """:func:`json.loads` within limits: nesting at most ``max_depth``, numbers of at most
    ``max_number_chars`` characters, finite numbers only and no ``NaN``/``Infinity``.

    Raises :class:`json.JSONDecodeError` (``msg``, ``lineno``, ``colno`` set) for bad JSON and
    :class:`BoundedJSONError`, its subclass, for a limit; ``UnicodeDecodeError`` for bytes that
    are not UTF-8.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")

    def number(kind: str, convert: Any) -> Any:
        def parse(literal: str) -> Any:
            if len(literal) > max_number_chars:
                raise _NumberTooLong(literal)
            value = convert(literal)
            if kind == "float" and not math.isfinite(value):
                raise _NotFinite(literal)
            return value

        return parse

    def constant(literal: str) -> Any:
        raise _NotFinite(literal)

    try:
        value = json.loads(
            text,
            parse_int=number("int", int),
            parse_float=number("float", float),
            parse_constant=constant,
        )
    except (json.JSONDecodeError, _NumberTooLong, _NotFinite, RecursionError) as exc:
        # a document too deep is refused as such, whatever else is wrong with it
        depth = _depth_error(text, max_depth)
        if depth is not None:
            raise depth from None
        if isinstance(exc, _NumberTooLong):
            raise BoundedJSONError(
                f"number longer than {max_number_chars} characters", text, _find(text, exc.literal)
            ) from None
        if isinstance(exc, _NotFinite):
            raise BoundedJSONError(
                f"{exc.literal[:20]} is not a finite JSON number", text, _find(text, exc.literal)
            ) from None
        if isinstance(exc, RecursionError):  # under max_depth but past a nearly full stack
            raise BoundedJSONError("nested too deep to read", text, 0) from None
        raise
    # Measured on the parsed value (containers only), which is much cheaper than scanning the
    # text; the scan runs only to say where a document too deep breaks the limit.
    if _too_deep(value, max_depth):
        raise _depth_error(text, max_depth) or BoundedJSONError(
            f"nested deeper than {max_depth} levels", text, 0
        )
    return value


def _too_deep(value: Any, max_depth: int) -> bool:
    if not isinstance(value, (dict, list)):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def _find(text: str, literal: str) -> int:
    position = text.find(literal)
    return max(position, 0)


class _NumberTooLong(Exception):
    def __init__(self, literal: str) -> None:
        super().__init__(literal[:20])
        self.literal = literal


class _NotFinite(Exception):
    def __init__(self, literal: str) -> None:
        super().__init__(literal)
        self.literal = literal


def describe(error: json.JSONDecodeError) -> str:
    """One line for an error from :func:`loads`: ``<msg> at line L column C``."""
    return f"{error.msg} at line {error.lineno} column {error.colno}"
