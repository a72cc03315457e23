"""Syntax errors as GitHub's GraphQL API words them.

GitHub parses queries with graphql-ruby (2.2 and later: ``Expected NAME, actual: RCURLY ("}")
at [1, 10]``, ``Unexpected end of document``), whose messages name its lexer's tokens.
:func:`ruby_parse_error` walks a document as graphql-ruby's parser does, for executable
definitions, and answers its first error. It runs only on documents graphql-core refused, so
the two parsers must agree that the document is wrong; where graphql-ruby would accept what
graphql-core refused, or the error lies in a type-system definition, it answers None and the
caller keeps graphql-core's words."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ruby_inspect", "ruby_parse_error"]

_PUNCTUATION = {
    "{": "LCURLY", "}": "RCURLY", "(": "LPAREN", ")": "RPAREN", "[": "LBRACKET",
    "]": "RBRACKET", ":": "COLON", "$": "VAR_SIGN", "@": "DIR_SIGN", "=": "EQUALS",
    "!": "BANG", "|": "PIPE", "&": "AMP",
}  # fmt: skip
_KEYWORDS = frozenset(
    ("on", "fragment", "true", "false", "null", "query", "mutation", "subscription", "schema",
     "scalar", "type", "extend", "implements", "interface", "union", "enum", "input",
     "directive", "repeatable")
)  # fmt: skip
_IGNORED = re.compile(r"[, \r\n\t]+")
_COMMENT = re.compile(r"#[^\n]*")
_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+[eE][+-]?[0-9]+|\.[0-9]+|[eE][+-]?[0-9]+)?")
_MALFORMED_NUMBER = re.compile(r"-\s?[a-z0-9]*", re.IGNORECASE)
_QUOTED = re.compile(
    r'"(?:\\"|[^"\\\n\r]|\\u(?:[0-9A-Za-z]{4}|\{[0-9A-Za-z]{4,}\})|\\[\\/bfnrt])*"'
)
_BLOCK = re.compile(r'"""(?:[^"\\]|(?<!")"{1,2}(?!")|\\"{0,3}(?!")|\\|"{1,2}(?!"))*(?:"")?"""')
_SDL = frozenset(
    ("EXTEND", "SCHEMA", "SCALAR", "TYPE", "INTERFACE", "UNION", "ENUM", "INPUT", "DIRECTIVE")
)
_VALUE_WORDS = frozenset(k.upper() for k in _KEYWORDS) | {"IDENTIFIER", "INT", "FLOAT", "STRING"}
_NAME_TOKENS = frozenset(k.upper() for k in _KEYWORDS) | {"IDENTIFIER"}
_ESCAPES = {
    '"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f",
    "\b": "\\b", "\a": "\\a", "\v": "\\v", "\x1b": "\\e",
}  # fmt: skip


def ruby_inspect(text: str) -> str:
    """``text`` as Ruby's ``String#inspect`` shows it (quoted, escaped)."""
    out = []
    for index, char in enumerate(text):
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char == "#" and text[index + 1 : index + 2] in ("{", "$", "@"):
            out.append("\\#")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


class _Failed(Exception):
    def __init__(self, message: str, where: tuple[int, int] | None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


class _Unsure(Exception):
    """The document holds what this walk does not follow (type-system definitions)."""


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0  # where scanning resumes
        self.start = 0  # where the current token starts (the last one, at the end)
        self.kind: str | None = None  # None at the end of the document
        self.end = 0

    def where(self) -> tuple[int, int]:
        line = self.text.count("\n", 0, self.start) + 1
        return line, self.start - (self.text.rfind("\n", 0, self.start) + 1) + 1

    def fail(self, message: str) -> _Failed:
        return _Failed(message, self.where())

    def advance(self) -> str | None:
        text = self.text
        while True:
            found = _IGNORED.match(text, self.at) or _COMMENT.match(text, self.at)
            if found is None:
                break
            self.at = found.end()
        if self.at >= len(text):
            self.kind = None
            return None
        self.start = start = self.at
        self.kind, self.end = self._token(text, start)
        self.at = self.end
        return self.kind

    def _token(self, text: str, start: int) -> tuple[str, int]:
        char = text[start]
        if char in _PUNCTUATION:
            return _PUNCTUATION[char], start + 1
        if char == "_" or (char.isascii() and char.isalpha()):
            found = _NAME.match(text, start)
            assert found is not None
            word = found.group()
            return (word.upper() if word in _KEYWORDS else "IDENTIFIER"), found.end()
        if char == "-" or (char.isascii() and char.isdigit()):
            number = _NUMBER.match(text, start)
            if number is None:
                bad = _MALFORMED_NUMBER.match(text, start)
                shown = f": {ruby_inspect(bad.group())}" if bad else ""
                raise self.fail(f"Expected type 'number', but it was malformed{shown}.")
            return ("FLOAT" if number.group(1) else "INT"), number.end()
        if char == ".":
            if text[start : start + 3] != "...":
                shown = ruby_inspect(text[start : start + 3])
                raise self.fail(f"Expected `...`, actual: {shown}")
            return "ELLIPSIS", start + 3
        if char == '"':
            found = _BLOCK.match(text, start) or _QUOTED.match(text, start)
            if found is None:
                raise self.fail("Expected string or block string, but it was malformed")
            return "STRING", found.end()
        return "UNKNOWN_CHAR", start + 1

    def shown(self) -> str:
        """What graphql-ruby shows of the current token (``debug_token_value``)."""
        if self.kind is None:
            return ruby_inspect(self.text[-1:])
        raw = self.text[self.start : self.end]
        if self.kind == "STRING":
            raw = _string_value(raw)
        elif self.kind == "UNKNOWN_CHAR" and not raw.isascii():
            return f'"\\x{raw.encode()[0]:02X}"'
        return ruby_inspect(raw)


def _string_value(raw: str) -> str:
    if raw.startswith('"""'):
        return raw[3:-3]
    try:
        value = json.loads(raw)
    except ValueError:
        return raw[1:-1]
    return value if isinstance(value, str) else raw[1:-1]


class _Parser:
    def __init__(self, text: str) -> None:
        self.lexer = _Lexer(text)

    @property
    def kind(self) -> str | None:
        return self.lexer.kind

    def advance(self) -> None:
        self.lexer.advance()

    def expect(self, kind: str) -> None:
        if self.kind != kind:
            if self.kind is None:
                raise self._failed(f"Expected {kind}, not end of file")
            raise self._failed(f"Expected {kind}, actual: {self.kind} ({self.lexer.shown()})")
        self.advance()

    def expect_one_of(self, kinds: tuple[str, ...]) -> None:
        actual = self.kind or "NOTHING"
        raise self._failed(
            f"Expected one of {', '.join(kinds)}, actual: {actual} ({self.lexer.shown()})"
        )

    def _failed(self, message: str) -> _Failed:
        line, column = self.lexer.where()
        return _Failed(f"{message} at [{line}, {column}]", (line, column))

    def document(self) -> None:
        if self.lexer.advance() is None:
            raise _Failed("Unexpected end of document", None)
        while self.kind is not None:
            self.definition()

    def definition(self) -> None:
        kind = self.kind
        if kind == "FRAGMENT":
            self.advance()
            if self.kind != "ON":
                self.name()
            self.expect("ON")
            self.name()
            self.directives()
            self.selection_set()
        elif kind in ("QUERY", "MUTATION", "SUBSCRIPTION", "LCURLY"):
            if kind != "LCURLY":
                self.advance()
            if self.kind not in ("LPAREN", "LCURLY", "DIR_SIGN"):
                self.name()
            if self.kind == "LPAREN":
                self.variable_definitions()
            self.directives()
            self.selection_set()
        else:
            if self.kind == "STRING":
                self.advance()
            if self.kind in _SDL:
                raise _Unsure()
            self.expect_one_of(("SCHEMA", "SCALAR", "TYPE", "ENUM", "INPUT", "UNION", "INTERFACE"))

    def variable_definitions(self) -> None:
        self.advance()
        while self.kind != "RPAREN":
            self.expect("VAR_SIGN")
            name = self.lexer.text[self.lexer.start : self.lexer.end]
            self.name()
            self.expect("COLON")
            if not self.type():
                raise self._failed(f"Missing type definition for variable: ${name}")
            if self.kind == "EQUALS":
                self.advance()
                self.value()
            self.directives()
        self.expect("RPAREN")

    def type(self) -> bool:
        if self.kind == "IDENTIFIER":
            self.advance()
        elif self.kind == "LBRACKET":
            self.advance()
            self.type()
            self.expect("RBRACKET")
        else:
            return False
        if self.kind == "BANG":
            self.advance()
        return True

    def selection_set(self) -> None:
        self.expect("LCURLY")
        while self.kind != "RCURLY":
            if self.kind == "ELLIPSIS":
                self.advance()
                if self.kind in ("ON", "DIR_SIGN", "LCURLY"):
                    if self.kind == "ON":
                        self.advance()
                        self.name()
                    self.directives()
                    self.selection_set()
                else:
                    self.name()
                    self.directives()
                continue
            self.name()
            if self.kind == "COLON":
                self.advance()
                self.name()
            self.arguments()
            self.directives()
            if self.kind == "LCURLY":
                self.selection_set()
        self.expect("RCURLY")

    def name(self) -> None:
        if self.kind in _NAME_TOKENS:
            self.advance()
        else:
            self.expect("NAME")

    def directives(self) -> None:
        while self.kind == "DIR_SIGN":
            self.advance()
            self.name()
            self.arguments()

    def arguments(self) -> None:
        if self.kind != "LPAREN":
            return
        self.advance()
        count = 0
        while self.kind != "RPAREN":
            self.name()
            self.expect("COLON")
            self.value()
            count += 1
        if not count:
            self.expect("ARGUMENT_NAME")
        self.expect("RPAREN")

    def value(self) -> None:
        kind = self.kind
        if kind in _VALUE_WORDS:
            self.advance()
        elif kind in ("LBRACKET", "LCURLY"):
            closing = "RBRACKET" if kind == "LBRACKET" else "RCURLY"
            self.advance()
            while self.kind != closing:
                if closing == "RCURLY":
                    self.name()
                    self.expect("COLON")
                self.value()
            self.expect(closing)
        elif kind == "VAR_SIGN":
            self.advance()
            self.name()
        else:
            self.expect("VALUE")


def ruby_parse_error(text: str) -> dict[str, Any] | None:
    """graphql-ruby's parse error for ``text`` (``{"message", "locations"}``), or None when
    it would parse it or the walk cannot tell."""
    try:
        _Parser(text).document()
    except _Failed as failed:
        where = failed.where
        locations = [] if where is None else [{"line": where[0], "column": where[1]}]
        return {"message": failed.message, "locations": locations}
    except _Unsure:
        return None
    return None
