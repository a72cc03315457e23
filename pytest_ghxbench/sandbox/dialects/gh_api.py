"""``gh api``: authenticated-looking requests to the sandbox's REST paths and GraphQL endpoint.

As in gh: ``{owner}``, ``{repo}`` and ``{branch}`` placeholders are filled in; ``-f`` adds
string parameters and ``-F`` typed ones (``true``, ``false``, ``null``, integers, ``@file``,
``@-`` for stdin), with ``key[]=`` arrays and ``key[sub]=`` objects; parameters go into the
query string of GET requests and the JSON body otherwise, and make the default method POST;
``graphql`` takes ``query`` and passes every other parameter as a variable. Errors print the
response body on stdout and ``gh: <message> (HTTP <status>)`` on stderr, exit status 1.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pytest_ghxbench.sandbox.api.rest import handle
from pytest_ghxbench.sandbox.api.types import ApiRequest, ApiResponse, ApiUrls
from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
from pytest_ghxbench.sandbox.dialects.gh_graphql import execute
from pytest_ghxbench.sandbox.dialects.gh_jq import JqError, run_jq
from pytest_ghxbench.sandbox.dialects.result import CliResult

__all__ = ["API_COMMAND"]

_STATUS_TEXT = {200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 302: "Found"}
_URLS = ApiUrls.dotcom("https", "github.com")
_BLOB_ROOT = "https://github.com/_blobs/"


@dataclass(frozen=True)
class RawText:
    """A non-JSON response body (job logs, diffs)."""

    text: str


class _Blobs:
    """Download links the REST API hands out (logs), kept for this one ``gh api`` call."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    def put(self, data: bytes, content_type: str, filename: str | None = None) -> str:
        url = f"{_BLOB_ROOT}{len(self.data) + 1}"
        self.data[url] = data
        return url


def _placeholders(ctx: GhContext, text: str) -> str:
    repo = ctx.world.repository
    return (
        text.replace("{owner}", repo.owner)
        .replace("{repo}", repo.name)
        .replace("{branch}", repo.default_branch)
    )


def _read(ctx: GhContext, source: str) -> str:
    if source == "-":
        return ctx.stdin
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError:
        raise GhError(f"open {source}: no such file or directory") from None


def _typed(ctx: GhContext, value: str) -> Any:
    if value.startswith("@"):
        return _read(ctx, value[1:])
    if value in ("true", "false"):
        return value == "true"
    if value == "null":
        return None
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    return _placeholders(ctx, value)


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    """Store ``value`` under ``key``, which may be ``a[]``, ``a[b]`` or ``a[b][]``."""
    parts = re.findall(r"[^\[\]]+|\[\]", key)
    if not parts or key.startswith("["):
        raise GhError(f"invalid key: {key!r}")
    node: Any = target
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        following = parts[index + 1] if not last else None
        if part == "[]":
            if not isinstance(node, list):
                raise GhError(f"invalid key: {key!r}")
            if last:
                node.append(value)
            else:
                node.append({})
                node = node[-1]
            continue
        if not isinstance(node, dict):
            raise GhError(f"invalid key: {key!r}")
        if last:
            node[part] = value
        else:
            node = node.setdefault(part, [] if following == "[]" else {})


def _fields(ctx: GhContext, parsed: Parsed) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for flag, typed in (("raw-field", False), ("field", True)):
        for pair in parsed.items(flag):
            key, eq, value = pair.partition("=")
            if not eq:
                raise GhError(f"field {pair} has invalid format: expected key=value")
            _put(fields, key, _typed(ctx, value) if typed else value)
    return fields


def _headers(parsed: Parsed) -> dict[str, str]:
    headers = {}
    for line in parsed.items("header"):
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return headers


def _render(ctx: GhContext, parsed: Parsed, status: int, body: Any) -> str:
    if parsed.on("silent"):
        return ""
    if isinstance(body, RawText):
        text = body.text
        content = "text/plain; charset=utf-8"
    elif body is None:
        text, content = "", "application/json; charset=utf-8"
    else:
        if parsed.text("jq"):
            try:
                text = run_jq(parsed.text("jq"), body)
            except JqError as exc:
                raise GhError(str(exc)) from None
        else:
            text = json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n"
        content = "application/json; charset=utf-8"
    if parsed.on("include"):
        head = f"HTTP/2.0 {status} {_STATUS_TEXT.get(status, '')}\nContent-Type: {content}\n\n"
        text = head + text
    return text


def _rest(ctx: GhContext, parsed: Parsed, path: str, query: str) -> CliResult:
    fields = _fields(ctx, parsed)
    body: dict[str, Any] = {}
    if parsed.text("input"):
        raw = _read(ctx, parsed.text("input"))
        try:
            loaded = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise GhError(f"invalid JSON in --input: {exc}") from None
        body = loaded if isinstance(loaded, dict) else {"items": loaded}
    method = (
        parsed.text("method").upper()
        if parsed.has("method")
        else ("POST" if fields or parsed.text("input") else "GET")
    )
    params: dict[str, list[str]] = parse_qs(query, keep_blank_values=True)
    if method == "GET":
        for key, value in fields.items():
            params[key] = [value if isinstance(value, str) else json.dumps(value)]
    else:
        body.update(fields)
    headers = {"accept": "*/*", **_headers(parsed)}
    data = json.dumps(body).encode() if body else b""
    pages: list[Any] = []
    status = 200
    target: str | None = "/" + path.strip("/")
    while target is not None:
        blobs = _Blobs()
        request = ApiRequest(method, target, params, headers, data, _URLS, blobs)
        before = ctx.world.model_dump_json() if method not in ("GET", "HEAD") else ""
        response = handle(ctx.world, request)
        if before and before != ctx.world.model_dump_json():
            ctx.mutated = True
        if response.status >= 400:
            raise _failure(response)
        status = 200 if response.status == 302 else response.status  # gh follows redirects
        pages.append(_body(response, blobs))
        target = _next_page(response) if parsed.on("paginate") else None
        if target is not None:
            target, _, next_query = target.partition("?")
            params = parse_qs(next_query, keep_blank_values=True)
    if parsed.on("slurp"):
        merged: Any = pages
    elif len(pages) > 1 and all(isinstance(page, list) for page in pages):
        merged = [item for page in pages for item in page]
    else:
        merged = pages[0] if len(pages) == 1 else None
    if merged is None and len(pages) > 1:
        text = "".join(_render(ctx, parsed, status, page) for page in pages)
        return CliResult(0, text, "", ctx.mutated)
    return CliResult(0, _render(ctx, parsed, status, merged), "", ctx.mutated)


def _body(response: ApiResponse, blobs: _Blobs) -> Any:
    if response.status == 302:
        location = response.headers.get("Location", "")
        return RawText(blobs.data.get(location, b"").decode("utf-8", "replace"))
    if not response.body:
        return None
    if response.headers.get("Content-Type", "").startswith("application/json"):
        return json.loads(response.body)
    return RawText(response.body.decode("utf-8", "replace"))


def _next_page(response: ApiResponse) -> str | None:
    for part in response.headers.get("Link", "").split(","):
        url, _, rel = part.partition(";")
        if rel.strip() == 'rel="next"':
            return urlsplit(url.strip().strip("<>"))._replace(scheme="", netloc="").geturl()
    return None


def _failure(response: ApiResponse) -> GhError:
    payload = json.loads(response.body) if response.body else {}
    errors = payload.get("errors") or []
    details = "".join(
        f"\n{e.get('message', '')}" for e in errors if isinstance(e, dict) and e.get("message")
    )
    message = payload.get("message", "")
    return GhError(
        f"gh: {message} (HTTP {response.status}){details}",
        stdout=json.dumps(payload, separators=(",", ":")) + "\n",
    )


def _page_info(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        info = value.get("pageInfo")
        if isinstance(info, dict) and "hasNextPage" in info:
            return info
        for child in value.values():
            found = _page_info(child)
            if found is not None:
                return found
    if isinstance(value, list):
        for child in value:
            found = _page_info(child)
            if found is not None:
                return found
    return None


def _graphql(ctx: GhContext, parsed: Parsed) -> CliResult:
    fields = _fields(ctx, parsed)
    if parsed.text("input"):
        try:
            fields.update(json.loads(_read(ctx, parsed.text("input"))))
        except json.JSONDecodeError as exc:
            raise GhError(f"invalid JSON in --input: {exc}") from None
    query = fields.pop("query", None)
    if not isinstance(query, str) or not query.strip():
        raise GhError("gh: A query attribute must be specified and must be a string. (HTTP 400)")
    operation = fields.pop("operationName", None)
    variables = fields.pop("variables", None) if isinstance(fields.get("variables"), dict) else None
    variables = {**(variables or {}), **fields}
    pages = []
    for _ in range(100):
        response = execute(ctx, query, variables, operation)
        pages.append(response)
        info = _page_info(response.get("data"))
        if (
            not parsed.on("paginate")
            or "errors" in response
            or not info
            or not info.get("hasNextPage")
        ):
            break
        if "$endCursor" not in query:
            break
        variables = {**variables, "endCursor": info.get("endCursor")}
    errors = [e for page in pages for e in page.get("errors", [])]
    if parsed.on("slurp"):
        text = _render(ctx, parsed, 200, pages)
    else:
        text = "".join(_render(ctx, parsed, 200, page) for page in pages)
    if errors:
        messages = "\n".join(str(e.get("message", "")) for e in errors)
        raw = "".join(
            json.dumps(p, separators=(",", ":"), ensure_ascii=False) + "\n" for p in pages
        )
        return CliResult(1, raw, f"gh: {messages}\n", ctx.mutated)
    return CliResult(0, text, "", ctx.mutated)


def _api(ctx: GhContext, parsed: Parsed) -> CliResult:
    if parsed.has("template"):
        raise GhError("--template is not supported in the sandbox; use --jq")
    if parsed.text("hostname") not in ("", "github.com"):
        raise GhError(f"the sandbox only serves github.com, not {parsed.text('hostname')}")
    endpoint = _placeholders(ctx, parsed.args[0])
    endpoint = re.sub(r"^https?://api\.github\.com/", "", endpoint).lstrip("/")
    path, _, query = endpoint.partition("?")
    if path == "graphql":
        return _graphql(ctx, parsed)
    return _rest(ctx, parsed, path, query)


API_COMMAND = Command(
    "api",
    "api <endpoint>",
    "Make an authenticated GitHub API request",
    _api,
    flags=(
        Flag("cache", 'Cache the response, e.g. "3600s", "60m", "1h"', metavar="duration"),
        Flag(
            "field",
            "Add a typed parameter in key=value format",
            short="F",
            kind="array",
            metavar="key=value",
        ),
        Flag(
            "header",
            "Add a HTTP request header in key:value format",
            short="H",
            kind="array",
            metavar="key:value",
        ),
        Flag("hostname", 'The GitHub hostname for the request (default "github.com")'),
        Flag(
            "include",
            "Include HTTP response status line and headers in the output",
            short="i",
            kind="bool",
        ),
        Flag(
            "input",
            'The file to use as body for the HTTP request (use "-" to read from standard input)',
            metavar="file",
        ),
        Flag(
            "jq",
            "Query to select values from the response using jq syntax",
            short="q",
            metavar="string",
        ),
        Flag("method", "The HTTP method for the request", short="X", default="GET"),
        Flag(
            "paginate", "Make additional HTTP requests to fetch all pages of results", kind="bool"
        ),
        Flag(
            "preview",
            'GitHub API preview names to request (without the "-preview" suffix)',
            short="p",
            kind="strings",
            metavar="names",
        ),
        Flag(
            "raw-field",
            "Add a string parameter in key=value format",
            short="f",
            kind="array",
            metavar="key=value",
        ),
        Flag("silent", "Do not print the response body", kind="bool"),
        Flag(
            "slurp",
            'Use with "--paginate" to return an array of all pages of either JSON arrays or '
            "objects",
            kind="bool",
        ),
        Flag(
            "template",
            'Format JSON output using a Go template; see "gh help formatting"',
            short="t",
            metavar="string",
        ),
        Flag("verbose", "Include full HTTP request and response in the output", kind="bool"),
    ),
    long="Makes an authenticated HTTP request to the GitHub API and prints the response.\n\n"
    "The endpoint argument should either be a path of a GitHub API v3 endpoint, or\n"
    '"graphql" to access the GitHub API v4.\n\n'
    'Placeholder values "{owner}", "{repo}", and "{branch}" in the endpoint\n'
    "argument will get replaced with values from the repository of the current\n"
    "directory.\n\n"
    'The default HTTP request method is "GET" normally and "POST" if any parameters\n'
    "were added. Override the method with `--method`.\n\n"
    'Pass one or more `-f/--raw-field` values in "key=value" format to add static string\n'
    "parameters to the request payload. To add non-string or placeholder-determined\n"
    "values, see `-F/--field` below.\n\n"
    'For GraphQL requests, all fields other than "query" and "operationName" are\n'
    "interpreted as GraphQL variables.",
    max_args=1,
    min_args=1,
    repo_flag=False,
)
