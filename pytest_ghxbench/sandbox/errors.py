"""Refusals the world's operations make, in GitHub's own words.

An operation refuses by raising :class:`GitHubError`, so the rule and its answer are decided
once: the REST face answers ``status`` with ``message`` and ``errors``, the GraphQL face an
error of :attr:`~GitHubError.graphql_type` with :attr:`~GitHubError.graphql_message`. Rules
GitHub words in plain text use its three common shapes: :class:`NotFound` (REST ``404 Not
Found``, a GraphQL ``NOT_FOUND`` error with the text), :class:`Unprocessable` (``422 Validation
Failed`` listing the text, ``UNPROCESSABLE``) and :class:`Conflict` (``409`` with the text).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Conflict", "GitHubError", "NotFound", "Refused", "Unprocessable"]

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


class Refused(GitHubError):
    """A refusal GitHub words in plain text: :attr:`detail`."""

    def __init__(self, detail: str, status: int, message: str, errors: Any = None) -> None:
        super().__init__(status, message, errors, graphql=detail)
        self.detail = detail

    def __str__(self) -> str:
        return self.detail


class NotFound(Refused):
    def __init__(self, detail: str) -> None:
        super().__init__(detail, 404, "Not Found")


class Unprocessable(Refused):
    def __init__(self, detail: str) -> None:
        super().__init__(detail, 422, "Validation Failed", [{"message": detail, "code": "invalid"}])


class Conflict(Refused):
    def __init__(self, detail: str) -> None:
        super().__init__(detail, 409, detail)
