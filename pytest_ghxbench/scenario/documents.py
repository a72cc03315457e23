"""Reading scenario-format documents (YAML or JSON) with line numbers for every field.

Both parsers return the data together with a map from field path (as formatted by
:func:`format_field`) to the 1-based line where that field's key (or list item) starts, so
validation errors can point at the line to fix.

Both are bounded: YAML aliases, nesting deeper than
:data:`~pytest_ghxbench.scenario.bounded_yaml.MAX_YAML_DEPTH` and overlong integers are refused
(:mod:`pytest_ghxbench.scenario.bounded_yaml`); JSON goes through
:func:`pytest_ghxbench.bounded_json.loads`.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from pytest_ghxbench import bounded_json
from pytest_ghxbench.scenario.bounded_yaml import BoundedSafeLoader, YAMLRefused

__all__ = [
    "ScenarioError",
    "format_field",
    "read_document",
    "show_value",
]

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
_UTF8_BOM = b"\xef\xbb\xbf"


class ScenarioError(Exception):
    """A problem in a scenario file (or sets file), located as precisely as known.

    ``problems`` lists every problem found in the same file, this one first; ``str()`` shows
    them all, one per line. :meth:`split` gives one error per problem.
    """

    def __init__(
        self,
        path: Path,
        message: str,
        field: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.message = message
        self.field = field
        self.line = line
        self.column = column
        self.problems: list[ScenarioError] = [self]
        super().__init__(self.location_line())

    def location_line(self) -> str:
        """This problem alone: ``path:line[:column]: field: message``."""
        where = str(self.path)
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        parts = [where]
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)

    def split(self) -> list[ScenarioError]:
        """One single-problem error per problem in :attr:`problems`."""
        return [ScenarioError(p.path, p.message, p.field, p.line, p.column) for p in self.problems]

    @classmethod
    def combine(cls, problems: Sequence[ScenarioError]) -> ScenarioError:
        """The first problem, carrying all of them."""
        first = problems[0]
        first.problems = list(problems)
        return first

    def __str__(self) -> str:
        return "\n".join(p.location_line() for p in self.problems)

    def __reduce__(self) -> tuple[Any, ...]:
        # Keeps errors picklable (xdist, multiprocessing) despite the custom __init__.
        arguments = (self.path, self.message, self.field, self.line, self.column)
        return (_rebuild_error, (arguments, self.problems[1:]))


def _rebuild_error(
    arguments: tuple[Path, str, str | None, int | None, int | None],
    others: list[ScenarioError],
) -> ScenarioError:
    error = ScenarioError(*arguments)
    error.problems.extend(others)
    return error


def format_field(loc: Sequence[str | int]) -> str:
    """Dotted field path: ``("checkpoints", 0, "condition")`` -> ``checkpoints[0].condition``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def show_value(value: Any, limit: int = 80) -> str:
    """A short readable rendering of a value from a file: strings quoted, the rest as JSON."""
    if isinstance(value, str):
        text = repr(value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_document(path: Path) -> tuple[Any, dict[str, int]]:
    """Parse a YAML or JSON file (chosen by suffix) into data and a field-path -> line map.

    Raises :class:`ScenarioError` for an unreadable file, bytes that are not UTF-8, syntax
    errors (with line and column) and duplicate mapping keys.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ScenarioError(path, f"cannot read file: {exc.strerror or exc}") from exc
    text = _decode(path, raw)
    if path.suffix.lower() in JSON_SUFFIXES:
        return _parse_json(path, text)
    return _parse_yaml(path, text)


def _decode(path: Path, raw: bytes) -> str:
    offset_base = 0
    if raw.startswith(_UTF8_BOM):
        raw = raw[len(_UTF8_BOM) :]
        offset_base = len(_UTF8_BOM)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start]
        line = raw[: exc.start].count(b"\n") + 1
        offset = exc.start + offset_base
        raise ScenarioError(
            path, f"not UTF-8 (invalid byte 0x{bad:02x} at offset {offset}, line {line})"
        ) from None


# --- YAML -------------------------------------------------------------------------------


class _StrictSafeLoader(BoundedSafeLoader):
    """Safe loader that rejects duplicate keys, aliases and deep nesting, and keeps dates as
    plain strings (as JSON would)."""

    yaml_kind = "scenario files"

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                continue  # unhashable keys get PyYAML's own error below
            if key in seen:
                raise _DuplicateKey(key, seen[key], key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _construct_timestamp_as_text(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    return loader.construct_scalar(node)  # type: ignore[arg-type]


_StrictSafeLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp_as_text)


class _DuplicateKey(Exception):
    def __init__(self, key: Any, first_line: int, mark: yaml.Mark) -> None:
        super().__init__(key)
        self.key = key
        self.first_line = first_line
        self.mark = mark


def _parse_yaml(path: Path, text: str) -> tuple[Any, dict[str, int]]:
    loader = _StrictSafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _DuplicateKey as dup:
        raise ScenarioError(
            path,
            f"duplicate key {dup.key!r} (first defined on line {dup.first_line})",
            line=dup.mark.line + 1,
            column=dup.mark.column + 1,
        ) from None
    except YAMLRefused as refused:
        mark = refused.problem_mark
        raise ScenarioError(
            path,
            refused.problem or "YAML not accepted",
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        if exc.context:
            started = exc.context_mark
            since = f" that started on line {started.line + 1}" if started is not None else ""
            problem = f"{problem} ({exc.context}{since})"
        raise ScenarioError(
            path,
            f"YAML syntax error: {problem}",
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise ScenarioError(path, f"YAML syntax error: {exc}") from None
    finally:
        loader.dispose()
    lines: dict[str, int] = {}
    if node is not None:
        _yaml_lines(node, (), lines)
    return data, lines


def _yaml_lines(node: yaml.Node, loc: tuple[str | int, ...], lines: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            child = (*loc, str(key_node.value))
            lines.setdefault(format_field(child), key_node.start_mark.line + 1)
            _yaml_lines(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*loc, index)
            lines.setdefault(format_field(child), item.start_mark.line + 1)
            _yaml_lines(item, child, lines)


# --- JSON -------------------------------------------------------------------------------

# Not in the typeshed stubs, but a stable part of the json module since Python 2.
_scan_string: Callable[[str, int], tuple[str, int]] = getattr(json.decoder, "scanstring")  # noqa: B009
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?\d[0-9.eE+-]*|true|false|null")


def _parse_json(path: Path, text: str) -> tuple[Any, dict[str, int]]:
    try:
        data = bounded_json.loads(text)
    except json.JSONDecodeError as exc:
        label = (
            "JSON refused"
            if isinstance(exc, bounded_json.BoundedJSONError)
            else "JSON syntax error"
        )
        raise ScenarioError(
            path, f"{label}: {exc.msg}", line=exc.lineno, column=exc.colno
        ) from None
    scanner = _JsonPositions(text)
    scanner.value(0, ())
    if scanner.duplicate is not None:
        key, first_line, line = scanner.duplicate
        raise ScenarioError(
            path, f"duplicate key {key!r} (first defined on line {first_line})", line=line
        )
    return data, scanner.lines


class _JsonPositions:
    """Walks already-validated JSON text, recording the line of every key and list item."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [i for i, char in enumerate(text) if char == "\n"]
        self.lines: dict[str, int] = {}
        self.duplicate: tuple[str, int, int] | None = None

    def line_of(self, pos: int) -> int:
        return bisect_right(self.newlines, pos - 1) + 1

    def skip(self, pos: int) -> int:
        match = _WHITESPACE.match(self.text, pos)
        return match.end() if match else pos

    def value(self, pos: int, loc: tuple[str | int, ...]) -> int:
        pos = self.skip(pos)
        char = self.text[pos]
        if char == "{":
            return self._object(pos + 1, loc)
        if char == "[":
            return self._array(pos + 1, loc)
        if char == '"':
            return int(_scan_string(self.text, pos + 1)[1])
        match = _SCALAR.match(self.text, pos)
        return match.end() if match else pos + 1

    def _object(self, pos: int, loc: tuple[str | int, ...]) -> int:
        seen: dict[str, int] = {}
        pos = self.skip(pos)
        if self.text[pos] == "}":
            return pos + 1
        while True:
            pos = self.skip(pos)
            key_line = self.line_of(pos)
            key, pos = _scan_string(self.text, pos + 1)
            if key in seen and self.duplicate is None:
                self.duplicate = (key, seen[key], key_line)
            seen.setdefault(key, key_line)
            child = (*loc, key)
            self.lines.setdefault(format_field(child), key_line)
            pos = self.skip(pos) + 1  # the colon
            pos = self.skip(self.value(pos, child))
            if self.text[pos] == ",":
                pos += 1
                continue
            return pos + 1

    def _array(self, pos: int, loc: tuple[str | int, ...]) -> int:
        pos = self.skip(pos)
        if self.text[pos] == "]":
            return pos + 1
        index = 0
        while True:
            pos = self.skip(pos)
            child = (*loc, index)
            self.lines.setdefault(format_field(child), self.line_of(pos))
            pos = self.skip(self.value(pos, child))
            index += 1
            if self.text[pos] == ",":
                pos += 1
                continue
            return pos + 1
