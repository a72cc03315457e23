"""GitHub's REST operations (``github_operations.txt``, generated from GitHub's published OpenAPI
description by ``scripts/gen_rest_operations.py``), and the one a request path is for.

The router asks only about requests no route of the sandbox serves: such a request for one of
GitHub's operations is an ``unserved_route`` gap; for any other path it is GitHub's own 404.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from pytest_ghxbench.sandbox.api.rest.router import SLASHED

__all__ = ["OPERATIONS_FILE", "github_operation", "github_operations"]

OPERATIONS_FILE = Path(__file__).with_name("github_operations.txt")

_Compiled = tuple[re.Pattern[str], int, str]


def github_operations() -> list[tuple[str, str]]:
    """``(method, path template)`` of every operation GitHub's description has."""
    lines = OPERATIONS_FILE.read_text(encoding="utf-8").splitlines()
    pairs = (line.split(" ", 1) for line in lines if line and not line.startswith("#"))
    return [(method, template) for method, template in pairs]


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", template)
    regex = "".join(
        re.escape(part) if index % 2 == 0 else (".+" if part in SLASHED else "[^/]+")
        for index, part in enumerate(parts)
    )
    return re.compile(f"^{regex}$")


@functools.cache
def _by_method() -> dict[str, list[_Compiled]]:
    """Per method, the templates' patterns, the most literal first (``/repos/{o}/{r}/pulls/
    comments`` before ``/repos/{o}/{r}/pulls/{pull_number}``)."""
    found: dict[str, list[_Compiled]] = {}
    for method, template in github_operations():
        literal = len(re.sub(r"\{\w+\}", "", template))
        found.setdefault(method, []).append((_pattern(template), literal, template))
    for patterns in found.values():
        patterns.sort(key=lambda entry: -entry[1])
    return found


def github_operation(method: str, path: str) -> str | None:
    """``GET /repos/{owner}/{repo}/deployments``: the operation of GitHub's that ``method`` on
    ``path`` (relative to the API root, without the query) is, or None when GitHub has none."""
    method = "GET" if method == "HEAD" else method
    path = "/" + path.strip("/") if path.strip("/") else "/"
    for pattern, _, template in _by_method().get(method, ()):
        if pattern.match(path):
            return f"{method} {template}"
    return None
