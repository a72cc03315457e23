"""Refusals the world's operations make in GitHub's own words.

A :class:`~pytest_ghxbench.ghx.registry.CapabilityError` carries a capability's error code,
which each API face turns into a status of its choosing. Some rules GitHub enforces answer
with a status or a body no code gives (``405 Pull Request is still a draft``, a ``422`` whose
``errors`` name the resource and field): an operation raises :class:`GitHubError` for those, so
the rule and its answer are decided once, and the REST face answers ``status`` with
``message`` and ``errors`` while the GraphQL face answers an error of :attr:`graphql_type` with
:attr:`graphql_message`.

It is not a ``CapabilityError``: it passes through
:func:`~pytest_ghxbench.sandbox.operations.registry.perform` to the face that called it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GitHubError"]

_GRAPHQL_TYPES = {403: "FORBIDDEN", 404: "NOT_FOUND"}
_CODES = {
    "already_exists": "already exists",
    "invalid": "is invalid",
    "missing_field": "is missing",
    "missing": "does not exist",
}


class GitHubError(Exception):
    """GitHub's answer to a request it refuses: ``status``, ``message`` and ``errors`` as its
    REST API sends them; ``graphql`` is the GraphQL error's message when it differs from what
    :attr:`graphql_message` derives."""

    def __init__(
        self,
        status: int,
        message: str,
        errors: list[dict[str, Any]] | None = None,
        *,
        graphql: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        self.graphql = graphql

    @classmethod
    def validation(cls, resource: str, field: str, code: str, **extra: Any) -> GitHubError:
        """``422 Validation Failed`` for one field, e.g. ``(Release, tag_name,
        already_exists)``; ``extra`` (``value``) goes into the error first, as GitHub orders it."""
        error = {**extra, "resource": resource, "field": field, "code": code}
        return cls(422, "Validation Failed", [error])

    @property
    def graphql_type(self) -> str:
        return _GRAPHQL_TYPES.get(self.status, "UNPROCESSABLE")

    @property
    def graphql_message(self) -> str:
        """The message as a GraphQL error: ``graphql``, else each error described (as gh
        prints a REST validation failure: ``Release.tag_name already exists``), else
        ``message``."""
        if self.graphql is not None:
            return self.graphql
        described = [_describe(e) for e in self.errors or []]
        return "; ".join(described) if described else self.message


def _describe(error: dict[str, Any]) -> str:
    if error.get("message"):
        return str(error["message"])
    where = f"{error.get('resource', '')}.{error.get('field', '')}"
    code = str(error.get("code", "invalid"))
    return f"{where} {_CODES.get(code, code)}"
