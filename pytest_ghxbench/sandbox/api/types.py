"""The shapes every part of the sandbox API shares: where the client thinks it is, one request,
one response, and the store of pre-signed download links (job logs, archives)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_ghxbench import bounded_json

__all__ = ["ApiRequest", "ApiResponse", "ApiUrls", "BlobStore"]


@dataclass(frozen=True)
class ApiUrls:
    """The URLs of the GitHub a client believes it talks to, without trailing slashes.

    Responses build every absolute URL from these, so a client that reached the sandbox as
    ``api.github.localhost``, as an Enterprise Server (``github.localhost/api/v3``) or as
    ``api.github.com`` through the intercepting proxy sees links it can follow."""

    api: str
    """REST root: ``http://api.github.localhost``, ``http://github.localhost/api/v3`` or
    ``https://api.github.com``."""
    graphql: str
    web: str
    """The web host: ``http://github.localhost`` or ``https://github.com``."""
    uploads: str

    @classmethod
    def dotcom(cls, scheme: str, host: str) -> ApiUrls:
        """The github.com layout for web host ``host`` (``github.com``, ``github.localhost``)."""
        return cls(
            api=f"{scheme}://api.{host}",
            graphql=f"{scheme}://api.{host}/graphql",
            web=f"{scheme}://{host}",
            uploads=f"{scheme}://uploads.{host}",
        )

    @classmethod
    def enterprise(cls, scheme: str, host: str) -> ApiUrls:
        """The Enterprise Server layout (``/api/v3``, ``/api/graphql``) on ``host``."""
        return cls(
            api=f"{scheme}://{host}/api/v3",
            graphql=f"{scheme}://{host}/api/graphql",
            web=f"{scheme}://{host}",
            uploads=f"{scheme}://{host}/api/uploads",
        )


class BlobStore(Protocol):
    """Short-lived, unauthenticated download links, like GitHub's pre-signed log URLs."""

    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        """Store ``data``; the absolute URL (on the request's web host) that serves it."""
        ...


@dataclass
class ApiRequest:
    """One API request, as the REST router or the GraphQL endpoint sees it."""

    method: str
    path: str
    """Relative to :attr:`ApiUrls.api`, with a leading slash and no query string:
    ``/repos/acme-labs/tinykv/pulls/7``. ``/graphql`` for GraphQL in both layouts."""
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]
    """Lower-cased names."""
    body: bytes
    urls: ApiUrls
    blobs: BlobStore

    def param(self, name: str, default: str | None = None) -> str | None:
        """The last value of query parameter ``name``."""
        values = self.query.get(name)
        return values[-1] if values else default

    def json_body(self) -> Any:
        """The body parsed as JSON (``None`` when empty); ``ValueError`` when it is not JSON or
        beyond :mod:`~pytest_ghxbench.bounded_json`'s limits (too deep, a huge number, ``NaN``)."""
        if not self.body.strip():
            return None
        return bounded_json.loads(self.body)


@dataclass
class ApiResponse:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(
        cls, value: Any, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> ApiResponse:
        body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        merged = {"Content-Type": "application/json; charset=utf-8", **(headers or {})}
        return cls(status, body, merged)

    @classmethod
    def error(cls, status: int, message: str, **extra: Any) -> ApiResponse:
        """GitHub's REST error body: ``{"message", "documentation_url", "status", ...}``."""
        body = {
            "message": message,
            "documentation_url": "https://docs.github.com/rest",
            "status": str(status),
            **extra,
        }
        return cls.json(body, status)
