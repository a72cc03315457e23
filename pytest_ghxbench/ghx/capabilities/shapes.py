"""What capability handlers share: the repository's REST path, logins and label names as the
result envelope gives them, GraphQL's states, and one page of a list (a GraphQL connection or a
REST list) as ``{"items", "pageInfo"}``."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from pytest_ghxbench.ghx.client import GitHubClient
from pytest_ghxbench.ghx.registry import CapabilityError

__all__ = ["connection_page", "label_names", "login", "repo_path", "rest_page", "upper"]


def repo_path(input: Mapping[str, Any]) -> str:
    """``/repos/{owner}/{name}`` of the input."""
    owner, name = (urllib.parse.quote(str(input[key]), safe="") for key in ("owner", "name"))
    return f"/repos/{owner}/{name}"


def login(user: Any) -> str | None:
    """The login of a REST or GraphQL user object (``None`` for a deleted user)."""
    return user.get("login") if isinstance(user, dict) else None


def label_names(labels: Any) -> list[str]:
    """Names of REST label objects (or of a GraphQL ``labels.nodes`` list)."""
    return [label["name"] if isinstance(label, dict) else str(label) for label in labels or []]


def upper(value: Any) -> Any:
    """REST's ``open`` as GraphQL's ``OPEN``; ``None`` stays."""
    return value.upper() if isinstance(value, str) else value


def connection_page(connection: Mapping[str, Any], render: Callable[[Any], Any]) -> dict[str, Any]:
    """A GraphQL connection (``nodes`` and ``pageInfo``) as ``{"items", "pageInfo"}``."""
    info = connection.get("pageInfo") or {}
    return {
        "items": [render(node) for node in connection.get("nodes") or []],
        "pageInfo": {
            "hasNextPage": bool(info.get("hasNextPage")),
            "endCursor": info.get("endCursor"),
        },
    }


def rest_page(
    client: GitHubClient,
    path: str,
    input: Mapping[str, Any],
    render: Callable[[Any], Any],
    *,
    params: Mapping[str, Any] | None = None,
    wrapped: str | None = None,
    keep: Callable[[Any], bool] = lambda item: True,
) -> dict[str, Any]:
    """One page of a REST list as ``{"items", "pageInfo"}``: ``input["first"]`` per page, the
    page after ``input["after"]`` (the cursor is the page number); ``wrapped`` names the list
    in an object answer (``{"jobs": [...]}``); ``keep`` drops items (the page is then
    shorter)."""
    after = input.get("after")
    try:
        number = int(after) + 1 if after else 1
    except ValueError:
        raise CapabilityError(
            "VALIDATION", f"input.after: {after!r} is not a valid cursor"
        ) from None
    query = {**(params or {}), "per_page": input.get("first", 30), "page": number}
    answer = client.request("GET", path, params=query)
    listed = answer.data[wrapped] if wrapped else answer.data
    if not isinstance(listed, list):
        raise CapabilityError(
            "SERVER", f"expected a list from GET {path}, got {type(listed).__name__}"
        )
    link = next((v for k, v in answer.headers.items() if k.lower() == "link"), "")
    return {
        "items": [render(item) for item in listed if keep(item)],
        "pageInfo": {
            "hasNextPage": 'rel="next"' in link,
            "endCursor": str(number) if listed else None,
        },
    }
