"""Finding the agent's answer envelope in its free-text final answer (SPEC §5, step 3).

Agents wrap their JSON answer in prose, markdown fences, or echo other JSON first. The rule is
deliberately simple and predictable: the envelope is the **first** position in the text where a
complete JSON object (as :func:`json.loads` understands it) starts. Concretely:

- prose before and after the object is ignored, and so are markdown fences around it;
- braces and escaped quotes inside JSON strings do not confuse the search;
- a stray ``{`` that starts no valid object (``"use {name} here"``, an unclosed brace, a
  truncated object) is skipped and the search goes on after it, so an object *nested* in a
  truncated one can be found; when two objects follow each other, the first one wins;
- an object nested deeper than Python's JSON decoder allows (about a thousand levels), or
  holding a number too long to convert, is skipped as a whole, with everything inside it.

The search is linear in the length of the text: candidate starts are located with a regular
expression (a ``{`` followed by ``}`` or by a string and ``:``), so floods of braces or of prose
cost no Python-level work per character, and when nested candidates all fail at the same place
(a deeply nested truncated object) they are recognised together instead of being re-parsed one
by one.

:data:`MAX_ANSWER_CHARS` bounds what the judge looks at: answers longer than that are judged on
their first ``MAX_ANSWER_CHARS`` characters only (an envelope starting later is not found).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_ANSWER_CHARS", "excerpt", "excerpt_json", "extract_first_json_object"]

MAX_ANSWER_CHARS = 1_000_000
"""Answers longer than this are judged on their first ``MAX_ANSWER_CHARS`` characters."""

_JSON_WS = "[ \t\n\r]*"
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
# Where a JSON object can start: "{" then "}" or a key string followed by ":".
_OBJECT_START = re.compile(r"\{" + _JSON_WS + r"(?:\}|" + _STRING + _JSON_WS + ":)", re.S)
# Structural tokens of a JSON text: a brace, or a whole string (possibly cut off at the end of
# the scanned range) so that braces inside strings are never counted.
_TOKEN = re.compile(r"[{}]|" + r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.S)
_DECODER = json.JSONDecoder()
# Decoding starts on a window of this many characters; see _decode_object_at.
_FIRST_WINDOW = 1024
# A syntax error this close to the end of a window may be an artefact of the cut (e.g. a
# literal or number cut in two); the longest such artefact is "-Infinity" or a \uXXXX escape.
_CUT_MARGIN = 16
# How many candidates may fail at the same error position before the objects that are still
# open there are computed in one scan and skipped (they would all fail there too).
_REPARSES_BEFORE_SKIP = 3


def extract_first_json_object(text: str) -> Any | None:
    """The first JSON object in ``text`` (as a Python ``dict``), or ``None`` if there is none.

    See the module docstring for what "first" means and how stray braces, fences and truncated
    objects are treated. Anything that is not a ``str`` gives ``None``.
    """
    if not isinstance(text, str):
        return None
    # No object can start at or after the last "}": stop searching there.
    search_end = text.rfind("}") + 1
    pos = 0
    known_failing: set[int] = set()
    failures_at: dict[int, int] = {}
    while (match := _OBJECT_START.search(text, pos, search_end)) is not None:
        start = match.start()
        pos = start + 1
        if start in known_failing:
            continue
        parsed, error_pos = _decode_object_at(text, start)
        if parsed is not None:
            return parsed
        if error_pos is None:  # undecodable as a whole (too deep, too long a number)
            pos = _balanced_end(text, start, search_end)
            continue
        # Every object still open where this parse failed fails at the same position when
        # parsed on its own; after a few such re-parses, find them all in one scan.
        count = failures_at.get(error_pos, 0) + 1
        failures_at[error_pos] = count
        if count >= _REPARSES_BEFORE_SKIP:
            known_failing.update(_objects_open_at(text, start, error_pos))
        if len(failures_at) > 64:
            failures_at = {at: n for at, n in failures_at.items() if at > start}
    return None


def _decode_object_at(text: str, start: int) -> tuple[dict[str, Any] | None, int | None]:
    """Decode the JSON object starting at ``start``.

    Returns ``(object, None)`` on success, ``(None, position)`` for a syntax error at that
    absolute position, and ``(None, None)`` when the object cannot be decoded although it may be
    well-formed (nested too deep, a number too long to convert).

    The decoder is given a growing window of the text rather than the whole of it: a
    ``JSONDecodeError`` counts the lines before its position, which would cost time proportional
    to the offset for every failed candidate. The window grows while the error may have been
    caused by cutting the text (an unterminated string, or an error close to the cut).
    """
    remaining = len(text) - start
    window = _FIRST_WINDOW
    while True:
        whole = window >= remaining
        doc = text[start:] if whole else text[start : start + window]
        try:
            value, _end = _DECODER.raw_decode(doc)
        except json.JSONDecodeError as error:
            cut_short = error.pos >= len(doc) - _CUT_MARGIN or error.msg.startswith(
                "Unterminated string"
            )
            if whole or not cut_short:
                return None, start + error.pos
        except (RecursionError, ValueError):
            return None, None
        else:
            return (value if isinstance(value, dict) else None), None
        window *= 4


def _objects_open_at(text: str, start: int, stop: int) -> list[int]:
    """Positions of the ``{`` in ``text[start:stop]`` whose objects are not closed by ``stop``.

    ``text[start:stop]`` must be a valid JSON prefix beginning with ``{`` (it is: a parse from
    ``start`` got that far), so string tokens can be skipped exactly.
    """
    open_braces: list[int] = []
    for token in _TOKEN.finditer(text, start, stop):
        char = text[token.start()]
        if char == "{":
            open_braces.append(token.start())
        elif char == "}" and open_braces:
            open_braces.pop()
    return open_braces


def _balanced_end(text: str, start: int, stop: int) -> int:
    """The index just past the ``}`` matching the ``{`` at ``start`` (or ``stop``)."""
    depth = 0
    for token in _TOKEN.finditer(text, start, stop):
        char = text[token.start()]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return token.end()
    return stop


_CONTROL_ESCAPES = {
    **{code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))},
    ord("\n"): "\\n",
    ord("\r"): "\\r",
    ord("\t"): "\\t",
}


def excerpt(text: str | None, limit: int = 400) -> str:
    """A one-line printable excerpt of ``text`` for failure messages.

    Control characters (newlines included) are shown escaped (``\\n``); text longer than
    ``limit`` characters is cut and ends with ``…`` and how much was left out. ``None`` gives
    ``<none>``; an empty text gives ``<empty>``.
    """
    if text is None:
        return "<none>"
    if not isinstance(text, str):
        text = str(text)
    if not text:
        return "<empty>"
    shown = text[: max(limit, 0)].translate(_CONTROL_ESCAPES)
    if len(text) > limit:
        return f"{shown}… (+{len(text) - limit} more chars)"
    return shown


def excerpt_json(value: Any, limit: int = 200) -> str:
    """A value of an answer rendered as JSON for a failure message, cut like :func:`excerpt`."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # e.g. a circular structure
        text = repr(value)
    return excerpt(text, limit)
