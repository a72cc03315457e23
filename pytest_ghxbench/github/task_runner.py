"""The machinery behind :mod:`pytest_ghxbench.github.tasks`: a table of tasks with their
input fields, input checking, result envelopes, HTTP failures as error codes, and REST paging.

Paging: ``first`` / ``after`` map onto REST ``per_page`` / ``page``; a REST list's cursor is
the number of the page it ended on (keep ``first`` the same while paging). Tasks that page
themselves (review threads) use the count of items already seen. Either way a cursor is a
string of digits and belongs to the task that gave it.
"""

from __future__ import annotations

import http.client
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pytest_ghxbench.github.client import GitHubClient, GitHubError

__all__ = [
    "AFTER",
    "ERROR_CODES",
    "FIRST",
    "NUMBER",
    "STRING",
    "Data",
    "Field",
    "TaskError",
    "TaskTable",
    "label_names",
    "login",
    "repo_path",
    "rest_page",
    "upper",
]

ERROR_CODES = (
    "NOT_FOUND",
    "VALIDATION",
    "CONFLICT",
    "AUTH",
    "RATE_LIMIT",
    "NETWORK",
    "SERVER",
    "UNSUPPORTED",
)
"""``AUTH``: 401/403 (bad token, missing scope); ``RATE_LIMIT``: 429 or a rate-limit 403 that
retries did not outlast; ``NETWORK``: GitHub could not be reached; ``SERVER``: 5xx or an answer
of an unexpected shape. The other codes mean what they mean for the sandbox's capabilities."""

Data = dict[str, Any]
Route = Literal["rest", "graphql"]
Handler = Callable[[GitHubClient, Data], Data]


class TaskError(Exception):
    """A failure a task reports with its own code (an issue number that is a pull request...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# ---------------------------------------------------------------- input


@dataclass(frozen=True)
class Field:
    """One input key a task reads: its kind, whether it is required, its default."""

    kind: Literal["string", "integer", "boolean", "strings", "cursor"]
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    maximum: int | None = None

    def problem(self, value: Any) -> str | None:
        """Why ``value`` does not fit, or ``None``."""
        if self.kind in ("string", "cursor"):
            if not isinstance(value, str) or not value.strip():
                return f"expected a non-empty string, got {value!r}"
            if self.kind == "cursor" and not value.isdigit():
                return f"{value!r} is not a cursor of this backend (pass pageInfo.endCursor)"
            if self.choices and value not in self.choices:
                return f"{value!r} is not one of {', '.join(self.choices)}"
        elif self.kind == "integer":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                return f"expected a positive integer, got {value!r}"
            if self.maximum is not None and value > self.maximum:
                return f"{value} is more than {self.maximum}"
        elif self.kind == "boolean":
            if not isinstance(value, bool):
                return f"expected true or false, got {value!r}"
        elif not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            return f"expected a list of non-empty strings, got {value!r}"
        elif self.choices and not set(value) <= set(self.choices):
            return f"{value!r} may only contain {', '.join(self.choices)}"
        return None


STRING = Field("string")
NUMBER = Field("integer", required=True)
FIRST = Field("integer", default=30, maximum=100)
AFTER = Field("cursor")
_REPOSITORY = {"owner": Field("string", required=True), "name": Field("string", required=True)}


@dataclass(frozen=True)
class _Task:
    route: Route
    handler: Handler
    fields: Mapping[str, Field]
    one_of: tuple[str, ...]

    def validate(self, task_id: str, raw: Any) -> Data:
        """The known input keys, checked, with defaults filled in. ``VALIDATION`` lists every
        problem, each naming its key."""
        if not isinstance(raw, Mapping):
            raise TaskError("VALIDATION", f"input must be a JSON object, got {type(raw).__name__}")
        values: Data = {}
        problems = []
        for key, spec in self.fields.items():
            value = raw.get(key)
            if value is None:
                if spec.required:
                    problems.append(f"input.{key} is required")
                elif spec.default is not None:
                    values[key] = spec.default
                continue
            problem = spec.problem(value)
            if problem is None:
                values[key] = value
            else:
                problems.append(f"input.{key}: {problem}")
        if self.one_of and not any(key in values for key in self.one_of):
            problems.append(" or ".join(f"input.{key}" for key in self.one_of) + " is required")
        if problems:
            raise TaskError("VALIDATION", f"invalid input for {task_id}: {'; '.join(problems)}")
        return values


class TaskTable:
    """Tasks by id; :meth:`register` adds one, :meth:`run` runs one into an envelope."""

    def __init__(self) -> None:
        self._tasks: dict[str, _Task] = {}

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(sorted(self._tasks))

    def register(
        self, task_id: str, route: Route, *, one_of: tuple[str, ...] = (), **fields: Field
    ) -> Callable[[Handler], Handler]:
        """Register the decorated ``handler(client, input) -> data`` as ``task_id``; its input
        is ``owner`` and ``name`` (both required), then ``fields``; ``one_of`` names keys of
        which at least one must be given."""

        def register(handler: Handler) -> Handler:
            self._tasks[task_id] = _Task(route, handler, {**_REPOSITORY, **fields}, one_of)
            return handler

        return register

    def run(self, client: GitHubClient, task_id: str, input: Any) -> Data:
        """The result envelope of task ``task_id``: never raises for a GitHub failure."""
        started = time.perf_counter()
        task = self._tasks.get(task_id)
        if task is None:
            message = f"unknown verification task {task_id!r}; supported: {', '.join(self.ids)}"
            return _failure("UNSUPPORTED", message, _meta(task_id, None, "error", started))
        try:
            values = task.validate(task_id, input)
        except TaskError as exc:
            return _failure(exc.code, exc.message, _meta(task_id, None, "error", started))
        try:
            data = task.handler(client, values)
        except TaskError as exc:
            code, message = exc.code, exc.message
        except GitHubError as exc:
            code, message = _error_code(exc), str(exc)
        except http.client.HTTPException as exc:  # a broken answer the client lets through
            code = "NETWORK"
            message = f"broken answer from GitHub for {task_id}: {type(exc).__name__}: {exc}"
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            code = "SERVER"
            message = f"unexpected answer from GitHub for {task_id}: {type(exc).__name__}: {exc}"
        else:
            meta = _meta(task_id, task.route, "ok", started)
            return {"ok": True, "data": data, "error": None, "meta": meta}
        return _failure(code, message, _meta(task_id, task.route, "error", started))


# ---------------------------------------------------------------- the envelope


def _meta(task: str, route: str | None, status: str, started: float) -> Data:
    return {
        "capability_id": task,
        "route_used": route,
        "attempts": [] if route is None else [{"route": route, "status": status}],
        "timings": {"total_ms": round((time.perf_counter() - started) * 1000, 3)},
    }


def _failure(code: str, message: str, meta: Data) -> Data:
    return {"ok": False, "data": None, "error": {"code": code, "message": message}, "meta": meta}


_GRAPHQL_TYPES = {
    "NOT_FOUND": "NOT_FOUND",
    "FORBIDDEN": "AUTH",
    "INSUFFICIENT_SCOPES": "AUTH",
    "RATE_LIMITED": "RATE_LIMIT",
}


def _error_code(exc: GitHubError) -> str:
    if exc.status == 0:
        return "NETWORK"
    if exc.status == 200:  # a GraphQL error, "TYPE: message" when GitHub gave a type
        return _GRAPHQL_TYPES.get(exc.message.split(":", 1)[0].strip(), "VALIDATION")
    if exc.status == 429 or (exc.status == 403 and "rate limit" in exc.message.lower()):
        return "RATE_LIMIT"
    if exc.status in (401, 403):
        return "AUTH"
    if exc.status in (404, 410):
        return "NOT_FOUND"
    if exc.status == 409:
        return "CONFLICT"
    return "SERVER" if exc.status >= 500 else "VALIDATION"


# ---------------------------------------------------------------- helpers for tasks


def repo_path(values: Data) -> str:
    """``/repos/{owner}/{name}`` of the input."""
    owner, name = (urllib.parse.quote(values[key], safe="") for key in ("owner", "name"))
    return f"/repos/{owner}/{name}"


def login(user: Any) -> str | None:
    """The login of a REST or GraphQL user object (``None`` for a deleted user)."""
    return user.get("login") if isinstance(user, dict) else None


def label_names(labels: Any) -> list[str]:
    return [label["name"] if isinstance(label, dict) else str(label) for label in labels or []]


def upper(value: Any) -> Any:
    """REST's ``open`` as GraphQL's (and the sandbox's) ``OPEN``; ``None`` stays."""
    return value.upper() if isinstance(value, str) else value


def rest_page(
    client: GitHubClient,
    path: str,
    values: Data,
    render: Callable[[Any], Data],
    *,
    params: Mapping[str, Any] | None = None,
    wrapped: str | None = None,
    keep: Callable[[Any], bool] = lambda item: True,
) -> Data:
    """One page of a REST list as ``{"items", "pageInfo"}``: ``values["first"]`` per page, the
    page after ``values["after"]``; ``wrapped`` names the list in an object answer
    (``{"jobs": [...]}``); ``keep`` drops items (the page is then shorter)."""
    after = values.get("after")
    page = int(after) + 1 if after else 1
    query = {**(params or {}), "per_page": values["first"], "page": page}
    answer = client.request("GET", path, params=query)
    listed = answer.data[wrapped] if wrapped else answer.data
    if not isinstance(listed, list):
        raise TypeError(f"expected a list from GET {path}, got {type(listed).__name__}")
    link = next((v for k, v in answer.headers.items() if k.lower() == "link"), "")
    return {
        "items": [render(item) for item in listed if keep(item)],
        "pageInfo": {
            "hasNextPage": 'rel="next"' in link,
            "endCursor": str(page) if listed else None,
        },
    }
