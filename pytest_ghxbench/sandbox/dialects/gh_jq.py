"""A small jq for ``gh --jq`` / ``gh api --jq`` in the sandbox.

It covers what agents write in one-liners: paths (``.a.b``, ``.[0]``, ``.[]``, ``.[1:3]``,
``."key"``, ``?``), pipes and commas, literals, string interpolation (``"\\(.x)"``), array and
object construction (``{number, title: .t}``), arithmetic, comparisons, ``and``/``or``/``not``,
``//``, ``if ... then ... elif ... else ... end``, ``@csv``/``@tsv``/``@json``/``@text``/
``@base64``, and the common built-ins (``select``, ``map``, ``length``, ``keys``, ``has``,
``sort_by``, ``group_by``, ``unique``, ``join``, ``test``, ``contains``, ``first``, ...).
Anything else is a :class:`JqError` naming the construct. As in gh, string results print raw
and other values as compact JSON, one per line.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_jq_eval import JqError, evaluate_node

__all__ = ["JqError", "evaluate", "run_jq"]


_TOKEN = re.compile(
    r"""\s*(?:
    (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<str>")
  | (?P<field>\.[A-Za-z_][A-Za-z0-9_]*)
  | (?P<fmt>@[a-z0-9]+)
  | (?P<var>\$[A-Za-z_][A-Za-z0-9_]*)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.|//|==|!=|<=|>=|\?//|[.\[\](){}|,:;<>+\-*/%?])
    )""",
    re.VERBOSE,
)

Node = tuple[Any, ...]


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.peeked: tuple[str, str] | None = None

    # -- tokens
    def _next_token(self) -> tuple[str, str]:
        if self.pos >= len(self.text) or not self.text[self.pos :].strip():
            self.pos = len(self.text)
            return ("eof", "")
        match = _TOKEN.match(self.text, self.pos)
        if match is None or match.lastgroup is None:
            snippet = self.text[self.pos :].strip()[:10]
            raise JqError(f"unexpected token {snippet!r}")
        self.pos = match.end()
        kind = match.lastgroup
        if kind == "str":
            return ("str", self._string_body())
        return (kind, match.group(kind))

    def _string_body(self) -> str:
        # Returns the raw body (escapes kept) for _string_node to split on interpolations.
        start, depth, index = self.pos, 0, self.pos
        while index < len(self.text):
            char = self.text[index]
            if char == "\\" and index + 1 < len(self.text):
                if self.text[index + 1] == "(":
                    depth += 1
                    index += 2
                    continue
                index += 2
                continue
            if depth and char == "(":
                depth += 1
            elif depth and char == ")":
                depth -= 1
            elif char == '"' and not depth:
                self.pos = index + 1
                return self.text[start:index]
            index += 1
        raise JqError("unterminated string literal")

    def peek(self) -> tuple[str, str]:
        if self.peeked is None:
            self.peeked = self._next_token()
        return self.peeked

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.peeked = None
        return token

    def accept(self, value: str) -> bool:
        kind, text = self.peek()
        if kind in ("op", "name") and text == value:
            self.take()
            return True
        return False

    def expect(self, value: str) -> None:
        if not self.accept(value):
            raise JqError(f"expected {value!r} but found {self.peek()[1] or 'end of input'!r}")

    # -- grammar
    def parse(self) -> Node:
        node = self.pipe()
        if self.peek()[0] != "eof":
            raise JqError(f"unexpected {self.peek()[1]!r}")
        return node

    def pipe(self) -> Node:
        left = self.comma()
        if self.accept("as"):
            kind, name = self.take()
            if kind != "var":
                raise JqError("expected a $variable after 'as'")
            self.expect("|")
            return ("bind", left, name, self.pipe())
        if self.accept("|"):
            return ("pipe", left, self.pipe())
        return left

    def comma(self) -> Node:
        node = self.alternative()
        while self.accept(","):
            node = ("comma", node, self.alternative())
        return node

    def alternative(self) -> Node:
        left = self.logic_or()
        if self.accept("//"):
            return ("alt", left, self.alternative())
        return left

    def logic_or(self) -> Node:
        node = self.logic_and()
        while self.accept("or"):
            node = ("or", node, self.logic_and())
        return node

    def logic_and(self) -> Node:
        node = self.compare()
        while self.accept("and"):
            node = ("and", node, self.compare())
        return node

    def compare(self) -> Node:
        left = self.additive()
        kind, text = self.peek()
        if kind == "op" and text in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            return ("binop", text, left, self.additive())
        return left

    def additive(self) -> Node:
        node = self.multiplicative()
        while self.peek() in (("op", "+"), ("op", "-")):
            node = ("binop", self.take()[1], node, self.multiplicative())
        return node

    def multiplicative(self) -> Node:
        node = self.postfix()
        while self.peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            node = ("binop", self.take()[1], node, self.postfix())
        return node

    def postfix(self) -> Node:
        node = self.term()
        while True:
            kind, text = self.peek()
            if kind == "field":
                self.take()
                node = ("pipe", node, ("index", ("literal", text[1:])))
            elif (kind, text) == ("op", "."):
                self.take()
                follow = self.peek()
                if follow[0] == "str":
                    self.take()
                    node = ("pipe", node, ("index", _string_node(follow[1])))
                elif follow == ("op", "["):
                    node = ("pipe", node, self.bracket(("identity",)))
                else:
                    raise JqError("expected a field name after '.'")
            elif (kind, text) == ("op", "["):
                node = self.bracket(node)
            elif (kind, text) == ("op", "?"):
                self.take()
                node = ("try", node)
            else:
                return node

    def bracket(self, subject: Node) -> Node:
        self.expect("[")
        if self.accept("]"):
            return ("pipe", subject, ("iterate",))
        start = None if self.peek() == ("op", ":") else self.pipe()
        if self.accept(":"):
            end = None if self.peek() == ("op", "]") else self.pipe()
            self.expect("]")
            return ("pipe", subject, ("slice", start, end))
        self.expect("]")
        assert start is not None
        return ("pipe", subject, ("index", start))

    def term(self) -> Node:
        kind, text = self.take()
        if kind == "num":
            return ("literal", float(text) if "." in text or "e" in text.lower() else int(text))
        if kind == "str":
            return _string_node(text)
        if kind == "field":
            return ("index", ("literal", text[1:]))
        if kind == "var":
            return ("var", text)
        if kind == "fmt":
            return ("format", text)
        if kind == "op":
            return self._op_term(text)
        if kind == "name":
            return self._name_term(text)
        raise JqError("unexpected end of expression")

    def _op_term(self, text: str) -> Node:
        if text == ".":
            follow = self.peek()
            if follow[0] == "str":
                self.take()
                return ("index", _string_node(follow[1]))
            if follow == ("op", "["):
                return self.bracket(("identity",))
            return ("identity",)
        if text == "..":
            return ("recurse",)
        if text == "(":
            node = self.pipe()
            self.expect(")")
            return node
        if text == "[":
            if self.accept("]"):
                return ("array", None)
            node = self.pipe()
            self.expect("]")
            return ("array", node)
        if text == "{":
            return self._object()
        if text == "-":
            return ("binop", "-", ("literal", 0), self.postfix())
        raise JqError(f"unexpected {text!r}")

    def _name_term(self, text: str) -> Node:
        if text in ("true", "false", "null"):
            return ("literal", {"true": True, "false": False, "null": None}[text])
        if text == "if":
            return self._if()
        args: list[Node] = []
        if self.accept("("):
            args.append(self.pipe())
            while self.accept(";"):
                args.append(self.pipe())
            self.expect(")")
        return ("call", text, args)

    def _if(self) -> Node:
        condition = self.pipe()
        self.expect("then")
        then = self.pipe()
        if self.accept("elif"):
            return ("if", condition, then, self._if())
        other: Node = ("identity",)
        if self.accept("else"):
            other = self.pipe()
        self.expect("end")
        return ("if", condition, then, other)

    def _object(self) -> Node:
        entries: list[tuple[Node, Node]] = []
        while not self.accept("}"):
            kind, text = self.take()
            if kind in ("name", "str") or kind == "var":
                key: Node = _string_node(text) if kind == "str" else ("literal", text.lstrip("$"))
                default: Node = ("var", text) if kind == "var" else ("index", key)
            elif (kind, text) == ("op", "("):
                key = self.pipe()
                self.expect(")")
                default = ("identity",)
            else:
                raise JqError(f"unexpected {text!r} in object construction")
            value = self.alternative() if self.accept(":") else default
            entries.append((key, value))
            if not self.accept(","):
                self.expect("}")
                break
        return ("object", entries)


def _string_node(raw: str) -> Node:
    """A string literal; ``\\(expr)`` interpolations become a ``format`` of parts."""
    parts: list[Any] = []
    text, index = "", 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and raw[index + 1 : index + 2] == "(":
            depth, end = 1, index + 2
            while depth:
                if end >= len(raw):
                    raise JqError("unterminated interpolation")
                depth += {"(": 1, ")": -1}.get(raw[end], 0)
                end += 1
            if text:
                parts.append(text)
                text = ""
            parts.append(_Parser(raw[index + 2 : end - 1]).parse())
            index = end
            continue
        if char == "\\":
            text += (
                json.loads(f'"{raw[index : index + 2]}"')
                if raw[index + 1] != "u"
                else json.loads(f'"{raw[index : index + 6]}"')
            )
            index += 6 if raw[index + 1] == "u" else 2
            continue
        text += char
        index += 1
    if all(isinstance(p, str) for p in parts):
        return ("literal", "".join(parts) + text)
    if text:
        parts.append(text)
    return ("interp", parts)


def evaluate(expression: str, value: Any) -> list[Any]:
    """Every output of ``expression`` applied to ``value``."""
    return evaluate_node(_Parser(expression).parse(), value, {})


def run_jq(expression: str, value: Any) -> str:
    """What ``gh --jq expression`` prints: strings raw, other values as compact JSON with
    sorted keys."""
    lines = []
    for out in evaluate(expression, value):
        if isinstance(out, str):
            lines.append(out)
        else:
            # gojq (gh's jq) writes object keys sorted.
            lines.append(json.dumps(out, separators=(",", ":"), ensure_ascii=False, sort_keys=True))
    return "".join(line + "\n" for line in lines)
