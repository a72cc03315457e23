"""A small GitHub REST and GraphQL client (standard library only).

Every ghx capability runs on it; the ``github`` backend verifies checkpoints and manages
fixtures with it, and the sandbox backend reaches its own server with it. Agents use their own
tools (``gh``, ``ghx``, an MCP server) with the same token. The token only ever travels in the
``Authorization`` header: error messages carry the method, path, status and GitHub's message,
never the token or request headers.

``api_url`` is ``https://api.github.com`` for github.com, ``https://HOST/api/v3`` for GitHub
Enterprise Server (GraphQL then lives at ``https://HOST/api/graphql``), or any URL of a server
speaking the same protocol (the tests run one on 127.0.0.1).
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench import bounded_json

DEFAULT_API_URL = "https://api.github.com"
_USER_AGENT = "pytest-ghxbench"
_MAX_RETRIES = 3
_MAX_RETRY_WAIT_S = 60.0


class GitHubError(Exception):
    """A request GitHub answered with an error (``status`` > 0) or could not be sent
    (``status`` 0: network, TLS, timeout)."""

    def __init__(self, method: str, path: str, status: int, message: str) -> None:
        where = f"{method} {path}"
        super().__init__(f"{where}: HTTP {status}: {message}" if status else f"{where}: {message}")
        self.method = method
        self.path = path
        self.status = status
        self.message = message


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    data: Any


def graphql_url(api_url: str) -> str:
    """GraphQL endpoint for a REST base URL (``/api/v3`` → ``/api/graphql`` on GHES)."""
    base = api_url.rstrip("/")
    if base.endswith("/api/v3"):
        return base[: -len("/v3")] + "/graphql"
    return base + "/graphql"


@dataclass
class GitHubClient:
    """Authenticated JSON requests to one GitHub API. ``sleep`` is injectable for tests."""

    token: str
    api_url: str = DEFAULT_API_URL
    timeout_s: float = 30.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    requests_made: int = field(default=0, repr=False)
    proxy: str | None = None
    """Send every request through this HTTP proxy instead of the environment's proxies."""
    _opener: urllib.request.OpenerDirector | None = field(default=None, init=False, repr=False)

    def _open(self, req: urllib.request.Request) -> Any:
        if self._opener is None:
            proxies = None if self.proxy is None else {"http": self.proxy, "https": self.proxy}
            self._opener = urllib.request.build_opener(
                urllib.request.ProxyHandler(proxies), _SameHostCredentials()
            )
        return self._opener.open(req, timeout=self.timeout_s)

    def __repr__(self) -> str:  # never show the token
        return f"GitHubClient(api_url={self.api_url!r})"

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        ok_statuses: tuple[int, ...] = (),
    ) -> Response:
        """Send one request and return the decoded answer. Statuses >= 400 raise
        :class:`GitHubError` unless listed in ``ok_statuses``. Rate limits (403/429 with
        ``Retry-After`` or an exhausted ``X-RateLimit-Remaining``) and 502/503/504 are retried
        a few times, waiting as the server asks (at most a minute)."""
        if path.startswith(("http://", "https://")):  # a pagination link, or GraphQL
            url = path
            if params:
                separator = "&" if urllib.parse.urlsplit(path).query else "?"
                url += separator + urllib.parse.urlencode(
                    {k: v for k, v in params.items() if v is not None}
                )
        else:
            url = self._url(path, params)
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.token}",
            "User-Agent": _USER_AGENT,
            "X-GitHub-Api-Version": "2022-11-28",
        }
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(_MAX_RETRIES + 1):
            self.requests_made += 1
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with self._open(req) as answer:
                    try:
                        payload = _decode(answer.read())
                    except bounded_json.BoundedJSONError as err:
                        refused = f"response refused: {bounded_json.describe(err)}"
                        raise GitHubError(method, path, answer.status, refused) from None
                    return Response(answer.status, dict(answer.headers), payload)
            except urllib.error.HTTPError as exc:
                try:
                    payload = _decode(exc.read())
                except bounded_json.BoundedJSONError as err:
                    payload = f"error response refused: {bounded_json.describe(err)}"
                answer_headers = dict(exc.headers or {})
                if exc.code in ok_statuses:
                    return Response(exc.code, answer_headers, payload)
                wait = _retry_wait(exc.code, answer_headers, attempt)
                if wait is not None and attempt < _MAX_RETRIES:
                    self.sleep(wait)
                    continue
                raise GitHubError(method, path, exc.code, _message(payload)) from None
            except (urllib.error.URLError, http.client.HTTPException, TimeoutError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                raise GitHubError(
                    method, path, 0, f"cannot reach {self.api_url}: {reason}"
                ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def rest(self, method: str, path: str, **kwargs: Any) -> Any:
        """The decoded body of a REST request (see :meth:`request`)."""
        return self.request(method, path, **kwargs).data

    def paginate(
        self, path: str, params: Mapping[str, Any] | None = None, *, limit: int = 1000
    ) -> Iterator[Any]:
        """Every element of a listed REST resource, following ``Link: rel="next"``. Endpoints
        that wrap their list (``{"jobs": [...]}``) yield the wrapped list's elements."""
        query = {"per_page": 100, **(params or {})}
        url: str | None = self._url(path, query)
        seen = 0
        while url is not None and seen < limit:
            answer = self.request("GET", url)
            items = answer.data
            if isinstance(items, dict):
                lists = [v for v in items.values() if isinstance(v, list)]
                items = lists[0] if lists else []
            for item in items:
                yield item
                seen += 1
                if seen >= limit:
                    return
            url = _next_link(answer.headers)

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None) -> Any:
        """``data`` of a GraphQL query; GraphQL errors raise :class:`GitHubError` (status 200,
        or the error's type such as ``NOT_FOUND`` in the message)."""
        url = graphql_url(self.api_url)
        answer = self.request(
            "POST", url, body={"query": query, "variables": dict(variables or {})}
        )
        payload = answer.data if isinstance(answer.data, dict) else {}
        errors = payload.get("errors")
        if errors:
            first = errors[0] if isinstance(errors[0], dict) else {"message": str(errors[0])}
            kind = first.get("type")
            text = str(first.get("message", "GraphQL error"))
            raise GitHubError("POST", "/graphql", 200, f"{kind}: {text}" if kind else text)
        return payload.get("data")

    def _url(self, path: str, params: Mapping[str, Any] | None) -> str:
        url = self.api_url.rstrip("/") + "/" + path.lstrip("/")
        if params:
            url += "?" + urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
        return url


class _SameHostCredentials(urllib.request.HTTPRedirectHandler):
    """Follow redirects, but never carry the token to another host (GitHub sends logs and
    archives to blob storage with a URL that is its own credential)."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        redirected = super().redirect_request(req, fp, code, msg, headers, newurl)
        if redirected is not None:
            source = urllib.parse.urlsplit(req.full_url).netloc.lower()
            if urllib.parse.urlsplit(newurl).netloc.lower() != source:
                redirected.remove_header("Authorization")
        return redirected


def _decode(raw: bytes) -> Any:
    """JSON, or the text itself when it is not JSON (job logs); :class:`BoundedJSONError` for
    JSON beyond :mod:`~pytest_ghxbench.bounded_json`'s limits."""
    if not raw:
        return None
    try:
        return bounded_json.loads(raw)
    except bounded_json.BoundedJSONError:
        raise
    except ValueError:
        return raw.decode("utf-8", "replace")


def _message(payload: Any) -> str:
    if isinstance(payload, dict):
        text = str(payload.get("message") or "no message")
        errors = payload.get("errors")
        if isinstance(errors, list) and errors:
            details = [
                e.get("message") or e.get("code") or str(e) if isinstance(e, dict) else str(e)
                for e in errors[:3]
            ]
            text += " (" + "; ".join(str(d) for d in details) + ")"
        return text
    return str(payload or "no message")[:300]


def _retry_wait(status: int, headers: Mapping[str, str], attempt: int) -> float | None:
    lowered = {k.lower(): v for k, v in headers.items()}
    retry_after = lowered.get("retry-after")
    if status in (403, 429) and retry_after is not None:
        try:
            return min(max(float(retry_after), 0.0), _MAX_RETRY_WAIT_S)
        except ValueError:
            return None
    if status in (403, 429) and lowered.get("x-ratelimit-remaining") == "0":
        try:
            reset = float(lowered.get("x-ratelimit-reset", "0"))
        except ValueError:
            return None
        return min(max(reset - time.time(), 1.0), _MAX_RETRY_WAIT_S)
    if status == 429:  # a secondary rate limit without a hint: GitHub asks for a minute
        return _MAX_RETRY_WAIT_S
    if status in (502, 503, 504):
        return float(2**attempt)
    return None


def _next_link(headers: Mapping[str, str]) -> str | None:
    link = {k.lower(): v for k, v in headers.items()}.get("link", "")
    for part in link.split(","):
        section = part.split(";")
        if len(section) >= 2 and 'rel="next"' in section[1]:
            return section[0].strip().strip("<>")
    return None
