"""Which part of GitHub a request addresses: from its host and path to an API route.

Three ways in, one API:
- the github.com layout, which gh uses with ``GH_HOST=github.localhost`` (``api.<host>/...``,
  GraphQL at ``api.<host>/graphql``), and ``api.github.com`` itself through the intercepting
  proxy;
- the Enterprise Server layout (``<host>/api/v3/...``, ``<host>/api/graphql``), which
  ``GITHUB_HOST``-style clients such as GitHub's MCP server use;
- the same layout directly on the server's loopback address, for clients given a base URL.

Raw files come from ``raw.githubusercontent.com`` (``raw.<host>`` for another github.com-style
host) or an Enterprise Server's ``/raw/``, both ``/OWNER/REPO/REF/PATH``. On the web hosts
(``github.com``, ``github.localhost``, loopback), git's smart-HTTP paths
(``/OWNER/REPO[.git]/info/refs``, ``/git-upload-pack``, ``/git-receive-pack``) are routed to
git (:mod:`pytest_ghxbench.sandbox.git.http`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pytest_ghxbench.sandbox.api.types import ApiUrls

__all__ = ["BLOB_PREFIX", "Route", "is_github_host", "route"]

BLOB_PREFIX = "/_blobs/"
_BASES = ("github.com", "github.localhost")
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "::1")

Kind = Literal["rest", "graphql", "upload", "blob", "raw", "git", "download", "unknown", "foreign"]

_GIT_SERVICE = re.compile(r"/[^/]+/[^/]+/(?:info/refs|git-upload-pack|git-receive-pack)")
_DOWNLOAD = re.compile(r"^/[^/]+/[^/]+/releases/download/[^/]+/[^/]+$")


_ENTERPRISE_PREFIXES: tuple[tuple[str, Kind], ...] = (
    ("/api/v3", "rest"),
    ("/api/uploads", "upload"),
)


@dataclass(frozen=True)
class Route:
    kind: Kind
    """``foreign``: not GitHub at all (the proxy passes it on); ``unknown``: a GitHub host or
    path the sandbox does not serve (answered 404, never forwarded)."""
    path: str = "/"
    """For ``rest``/``upload``: the path relative to the API root; for ``blob``: the key; for
    ``raw``: ``/OWNER/REPO/REF/PATH``; for ``git``: the whole path
    (``/OWNER/REPO.git/info/refs``); for ``download`` (a release asset's
    ``browser_download_url``): the web path."""
    urls: ApiUrls | None = None


def _name(host: str) -> str:
    name = host.lower()
    if name.startswith("["):
        return name.split("]")[0] + "]"
    return name.rsplit(":", 1)[0] if name.count(":") == 1 else name


def is_github_host(host: str) -> bool:
    """Whether ``host`` (with or without a port) is a host of GitHub's or the sandbox's."""
    name = _name(host)
    return any(
        name == base or name.endswith("." + base)
        for base in (*_BASES, "githubusercontent.com", "githubassets.com", "ghcr.io")
    )


def route(scheme: str, host: str, path: str, method: str) -> Route:
    """The route of a request for ``path`` (no query) on ``host`` (as the client named it)."""
    name = _name(host)
    if name == "raw.githubusercontent.com":
        return Route("raw", path, ApiUrls.dotcom(scheme, "github.com"))
    for base in _BASES:
        if name == f"raw.{base}":
            return Route("raw", path, ApiUrls.dotcom(scheme, base))
        if name == f"api.{base}":
            urls = ApiUrls.dotcom(scheme, base)
            if path.rstrip("/") == "/graphql" and method == "POST":
                return Route("graphql", "/graphql", urls)
            return Route("rest", path or "/", urls)
        if name == f"uploads.{base}":
            return Route("upload", path or "/", ApiUrls.dotcom(scheme, base))
        if name == base:
            return _enterprise(scheme, base, path, method)
    if name in _LOOPBACK:
        return _enterprise(scheme, host.lower(), path, method)
    if is_github_host(host):
        return Route("unknown")
    return Route("foreign")


def _enterprise(scheme: str, host: str, path: str, method: str) -> Route:
    urls = ApiUrls.enterprise(scheme, host)
    if _GIT_SERVICE.fullmatch(path):
        return Route("git", path, urls)
    if path.startswith(BLOB_PREFIX):
        return Route("blob", path[len(BLOB_PREFIX) :], urls)
    if path.startswith("/raw/"):
        return Route("raw", path.removeprefix("/raw"), urls)
    if path.rstrip("/") == "/api/graphql" and method == "POST":
        return Route("graphql", "/graphql", urls)
    if _DOWNLOAD.match(path):
        return Route("download", path, urls)
    for prefix, kind in _ENTERPRISE_PREFIXES:
        if path == prefix or path.startswith(prefix + "/"):
            return Route(kind, path[len(prefix) :] or "/", urls)
    return Route("unknown", path, urls)
