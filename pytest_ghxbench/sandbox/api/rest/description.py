"""GitHub's REST API as its published OpenAPI description has it (``github_operations.jsonl``,
written by ``scripts/gen_rest_operations.py``): every operation's id, method, path template,
query parameters and JSON body schema.

The router binds each route it serves to one of these (:func:`operation`), accounts against
it for the parameters a handler did not evaluate, and validates bodies with it; a request for
an operation no route serves is told from a path GitHub has no operation for either
(:func:`github_operation`). Read once, on first use.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "OPERATIONS_FILE",
    "SLASHED",
    "Operation",
    "github_operation",
    "github_operations",
    "operation",
    "path_pattern",
    "specificity",
]

OPERATIONS_FILE = Path(__file__).with_name("github_operations.jsonl")

SLASHED = ("ref", "tag", "path", "basehead", "dir", "tree_sha", "branch")
"""Path parameters that may hold slashes (heads/main, release/1.0, src/a.py, fix/lock)."""


@dataclass(frozen=True, eq=False)
class Operation:
    """One operation of GitHub's description."""

    id: str
    """The operationId: ``issues/list-for-repo``."""
    method: str
    template: str
    """``/repos/{owner}/{repo}/issues``."""
    query: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Query parameters by name, each with its (cut-down) schema."""
    body: dict[str, Any] | None = None
    """The JSON request body's schema, if the operation takes one."""

    @property
    def name(self) -> str:
        return f"{self.method} {self.template}"

    @property
    def body_fields(self) -> dict[str, dict[str, Any]]:
        """The body's top-level fields (of every alternative, for a ``oneOf`` body)."""
        found: dict[str, dict[str, Any]] = {}
        stack = [self.body or {}]
        while stack:
            schema = stack.pop()
            found.update(schema.get("properties") or {})
            for key in ("oneOf", "anyOf", "allOf"):
                stack.extend(schema.get(key) or ())
        return found


@functools.cache
def _operations() -> dict[tuple[str, str], Operation]:
    found: dict[tuple[str, str], Operation] = {}
    with OPERATIONS_FILE.open(encoding="utf-8") as lines:
        next(lines)  # the header: where the file came from
        for line in lines:
            entry = json.loads(line)
            op = Operation(
                entry["id"], entry["method"], entry["path"], entry.get("query") or {},
                entry.get("body"),
            )  # fmt: skip
            found[(op.method, op.template)] = op
    return found


def github_operations() -> list[tuple[str, str]]:
    """``(method, path template)`` of every operation GitHub's description has."""
    return sorted(_operations())


def operation(method: str, template: str) -> Operation | None:
    """The operation of GitHub's for ``method`` on ``template``, or None."""
    return _operations().get((method, template))


def path_pattern(template: str, optional_tail: bool = False) -> re.Pattern[str]:
    """The request paths ``template`` matches, its parameters as named groups. ``optional_tail``:
    the last parameter may be left out (``/contents`` for ``/contents/{path}``)."""
    parts = re.split(r"\{(\w+)\}", template)
    regex = "".join(
        re.escape(part) if index % 2 == 0 else f"(?P<{part}>{'.+' if part in SLASHED else '[^/]+'})"
        for index, part in enumerate(parts)
    )
    if optional_tail:
        head, _, tail = regex.rpartition("/")
        regex = f"{head}(?:/{tail})?"
    return re.compile(f"^{regex}$")


def specificity(template: str) -> tuple[int, ...]:
    """Sort key putting the most specific template first: segment by segment, a literal before
    a parameter before a parameter that may hold slashes, and a template that goes on before
    one that ends (``/branches/{branch}/protection`` before ``/branches/{branch}``)."""
    kinds = []
    for segment in template.strip("/").split("/"):
        name = segment[1:-1] if segment.startswith("{") and segment.endswith("}") else None
        kinds.append(0 if name is None else 2 if name in SLASHED else 1)
    return (*kinds, 3)


@functools.cache
def _by_method() -> dict[str, list[tuple[re.Pattern[str], str]]]:
    found: dict[str, list[tuple[re.Pattern[str], str]]] = {}
    for method, template in sorted(_operations(), key=lambda key: specificity(key[1])):
        found.setdefault(method, []).append((path_pattern(template), template))
    return found


def github_operation(method: str, path: str) -> str | None:
    """``GET /repos/{owner}/{repo}/deployments``: the operation of GitHub's that ``method`` on
    ``path`` (relative to the API root, without the query) is, or None when GitHub has none."""
    method = "GET" if method == "HEAD" else method
    path = "/" + path.strip("/") if path.strip("/") else "/"
    for pattern, template in _by_method().get(method, ()):
        if pattern.match(path):
            return f"{method} {template}"
    return None
