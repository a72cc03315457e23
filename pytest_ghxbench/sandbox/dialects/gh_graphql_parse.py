"""A GraphQL document parser for the sandbox's ``gh api graphql`` endpoint.

It reads executable documents: queries and mutations (named or anonymous, with variable
definitions), fields with aliases and arguments, nested selections, inline fragments
(``... on Issue { }``), named fragments and ``@include`` / ``@skip`` directives. Values are
literals (strings, block strings, numbers, booleans, null, enums, lists, objects) or
``$variables``. Errors carry GitHub's ``locations`` (line and column).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Document",
    "EnumValue",
    "Field",
    "FragmentSpread",
    "GraphQLSyntaxError",
    "InlineFragment",
    "Operation",
    "Selection",
    "Variable",
    "parse_document",
]


class GraphQLSyntaxError(Exception):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Variable:
    name: str


@dataclass(frozen=True)
class EnumValue:
    name: str


@dataclass
class Field:
    name: str
    alias: str | None
    arguments: dict[str, Any]
    selections: list[Selection]
    directives: list[tuple[str, dict[str, Any]]]
    line: int
    column: int

    @property
    def key(self) -> str:
        return self.alias or self.name


@dataclass
class InlineFragment:
    type_condition: str | None
    selections: list[Selection]
    directives: list[tuple[str, dict[str, Any]]]


@dataclass
class FragmentSpread:
    name: str
    directives: list[tuple[str, dict[str, Any]]]
    line: int
    column: int


Selection = Field | InlineFragment | FragmentSpread


@dataclass
class Operation:
    kind: str
    name: str | None
    variables: dict[str, tuple[str, Any]]
    """Variable name → (type text, default value or ``None``)."""
    selections: list[Selection]


@dataclass
class Document:
    operations: list[Operation]
    fragments: dict[str, InlineFragment] = field(default_factory=dict)


_TOKEN = re.compile(
    r'(?P<block>"""(?:\\"""|[^"]|"(?!""))*""")'
    r'|(?P<string>"(?:\\.|[^"\\\n])*")'
    r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[_A-Za-z][_0-9A-Za-z]*)"
    r"|(?P<punct>\.\.\.|[!$&()\[\]{}:=@|])"
)
_TOKEN_NAMES = {
    "{": "LCURLY",
    "}": "RCURLY",
    "(": "LPAREN",
    ")": "RPAREN",
    "[": "LBRACKET",
    "]": "RBRACKET",
    ":": "COLON",
    "=": "EQUALS",
    "@": "DIR_SIGN",
    "$": "VAR_SIGN",
    "!": "BANG",
    "...": "ELLIPSIS",
    "|": "PIPE",
    "&": "AMP",
}
_IGNORED = re.compile(r"(?:[\s,\ufeff]+|#[^\n]*)+")


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while True:
            skip = _IGNORED.match(text, position)
            if skip:
                position = skip.end()
            if position >= len(text):
                break
            match = _TOKEN.match(text, position)
            if match is None or match.lastgroup is None:
                line, column = self.where(position)
                raise GraphQLSyntaxError(
                    f'Parse error on "{text[position]}" (error) at [{line}, {column}]',
                    line,
                    column,
                )
            self.tokens.append((match.lastgroup, match.group(), position))
            position = match.end()
        self.tokens.append(("eof", "", len(text)))
        self.index = 0

    def where(self, offset: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, offset) + 1
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return line, column

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.index]

    def take(self) -> tuple[str, str, int]:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def fail(self, token: tuple[str, str, int]) -> GraphQLSyntaxError:
        line, column = self.where(token[2])
        if token[0] == "eof":
            return GraphQLSyntaxError("Unexpected end of document", line, column)
        kind = _TOKEN_NAMES.get(token[1]) or {
            "name": "IDENTIFIER",
            "string": "STRING",
            "block": "STRING",
            "number": "FLOAT" if "." in token[1] else "INT",
        }.get(token[0], "UNKNOWN_CHAR")
        return GraphQLSyntaxError(
            f'Parse error on "{token[1]}" ({kind}) at [{line}, {column}]', line, column
        )

    def expect(self, value: str) -> tuple[str, str, int]:
        token = self.take()
        if token[1] != value or token[0] in ("string", "block"):
            raise self.fail(token)
        return token

    def accept(self, value: str) -> bool:
        token = self.peek()
        if token[1] == value and token[0] in ("punct", "name"):
            self.index += 1
            return True
        return False

    def name(self) -> tuple[str, int]:
        token = self.take()
        if token[0] != "name":
            raise self.fail(token)
        return token[1], token[2]


def parse_document(text: str) -> Document:
    """Parse a GraphQL executable document; raises :class:`GraphQLSyntaxError`."""
    lexer = _Lexer(text)
    document = Document(operations=[])
    while lexer.peek()[0] != "eof":
        token = lexer.peek()
        if token[1] == "{":
            document.operations.append(Operation("query", None, {}, _selection_set(lexer)))
        elif token[1] in ("query", "mutation", "subscription"):
            document.operations.append(_operation(lexer))
        elif token[1] == "fragment":
            lexer.take()
            name, _ = lexer.name()
            lexer.expect("on")
            condition, _ = lexer.name()
            directives = _directives(lexer)
            document.fragments[name] = InlineFragment(condition, _selection_set(lexer), directives)
        else:
            raise lexer.fail(token)
    if not document.operations:
        raise GraphQLSyntaxError("Unexpected end of document", 1, 1)
    return document


def _operation(lexer: _Lexer) -> Operation:
    kind = lexer.take()[1]
    name = lexer.name()[0] if lexer.peek()[0] == "name" else None
    variables: dict[str, tuple[str, Any]] = {}
    if lexer.accept("("):
        while not lexer.accept(")"):
            lexer.expect("$")
            var, _ = lexer.name()
            lexer.expect(":")
            type_text = _type(lexer)
            default = _value(lexer, const=True) if lexer.accept("=") else None
            _directives(lexer)
            variables[var] = (type_text, default)
    _directives(lexer)
    return Operation(kind, name, variables, _selection_set(lexer))


def _type(lexer: _Lexer) -> str:
    if lexer.accept("["):
        inner = _type(lexer)
        lexer.expect("]")
        text = f"[{inner}]"
    else:
        text = lexer.name()[0]
    if lexer.accept("!"):
        text += "!"
    return text


def _directives(lexer: _Lexer) -> list[tuple[str, dict[str, Any]]]:
    found = []
    while lexer.accept("@"):
        name, _ = lexer.name()
        found.append((name, _arguments(lexer)))
    return found


def _arguments(lexer: _Lexer) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if lexer.accept("("):
        while not lexer.accept(")"):
            name, _ = lexer.name()
            lexer.expect(":")
            args[name] = _value(lexer, const=False)
    return args


def _selection_set(lexer: _Lexer) -> list[Selection]:
    lexer.expect("{")
    selections: list[Selection] = []
    while not lexer.accept("}"):
        token = lexer.peek()
        if token[1] == "...":
            lexer.take()
            if lexer.peek()[1] == "on":
                lexer.take()
                condition, _ = lexer.name()
                directives = _directives(lexer)
                selections.append(InlineFragment(condition, _selection_set(lexer), directives))
            elif lexer.peek()[1] in ("{", "@"):
                directives = _directives(lexer)
                selections.append(InlineFragment(None, _selection_set(lexer), directives))
            else:
                name, offset = lexer.name()
                line, column = lexer.where(offset)
                selections.append(FragmentSpread(name, _directives(lexer), line, column))
            continue
        name, offset = lexer.name()
        alias = None
        if lexer.accept(":"):
            alias = name
            name, _ = lexer.name()
        arguments = _arguments(lexer)
        directives = _directives(lexer)
        children = _selection_set(lexer) if lexer.peek()[1] == "{" else []
        line, column = lexer.where(offset)
        selections.append(Field(name, alias, arguments, children, directives, line, column))
    return selections


def _value(lexer: _Lexer, *, const: bool) -> Any:
    kind, text, offset = lexer.take()
    if kind == "punct" and text == "$" and not const:
        return Variable(lexer.name()[0])
    if kind == "string":
        return json.loads(text)
    if kind == "block":
        return _block_string(text[3:-3])
    if kind == "number":
        return float(text) if any(c in text for c in ".eE") else int(text)
    if kind == "name":
        if text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        return EnumValue(text)
    if text == "[":
        items = []
        while not lexer.accept("]"):
            items.append(_value(lexer, const=const))
        return items
    if text == "{":
        values: dict[str, Any] = {}
        while not lexer.accept("}"):
            key, _ = lexer.name()
            lexer.expect(":")
            values[key] = _value(lexer, const=const)
        return values
    raise lexer.fail((kind, text, offset))


def _block_string(raw: str) -> str:
    lines = raw.replace('\\"""', '"""').splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    common = min(indents, default=0)
    lines = [lines[0], *(line[common:] for line in lines[1:])] if lines else []
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)
