"""The world's operations, named as GitHub names them, and how the API's faces apply them.

An operation is ``handler(world, input) -> data``, marked with :func:`operation` under the name
of the GitHub operation it performs: a GraphQL mutation (``closeIssue``), with the argument it
stands for when GitHub folds several into one mutation (``updateIssue(milestoneId:)``), or a
REST operationId where GitHub has no mutation (``actions/cancel-workflow-run``). A REST route
and a GraphQL mutation doing the same thing apply the same operation, so a rule GitHub enforces
is decided once. Handlers refuse with :class:`~pytest_ghxbench.sandbox.errors.GitHubError`,
which each face answers in its own shape. The table is read from :data:`OPERATION_MODULES` on
first use.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pytest_ghxbench.sandbox.errors import GitHubError, NotFound, Unprocessable
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "OPERATION_MODULES",
    "apply",
    "build_table",
    "mutates",
    "operation",
    "operations",
    "perform",
    "require_collaborators",
    "require_repo",
]

Handler = Callable[[World, dict[str, Any]], Any]
H = TypeVar("H", bound=Handler)

OPERATION_MODULES: tuple[str, ...] = (
    "actions",
    "ci_logs",
    "code",
    "issue_comments",
    "issue_metadata",
    "issue_relations",
    "issues",
    "milestones",
    "pr_reviews",
    "projects",
    "prs",
    "reactions",
    "releases",
    "workflows",
)
"""The modules of this package whose functions are operations."""

_MARK = "_ghxbench_operation"


def operation(name: str, *, mutates: bool = True) -> Callable[[H], H]:
    """Mark the decorated ``handler(world, input) -> data`` as GitHub's operation ``name``;
    ``mutates=False`` for one that only reads (its REST route does not count as a write)."""

    def register(handler: H) -> H:
        setattr(handler, _MARK, (name, mutates))
        return handler

    return register


def build_table(modules: Sequence[str]) -> dict[str, tuple[Handler, bool]]:
    """``name -> (handler, mutates)`` of every operation of ``modules`` (names in this package,
    or absolute); a name registered twice is refused."""
    found: dict[str, tuple[Handler, bool]] = {}
    for module_name in modules:
        absolute = module_name if "." in module_name else f"{__package__}.{module_name}"
        module = importlib.import_module(absolute)
        for handler in vars(module).values():
            mark = getattr(handler, _MARK, None)
            if mark is None or getattr(handler, "__module__", None) != module.__name__:
                continue
            name, writes = mark
            if name in found:
                raise ValueError(f"operation {name!r} is registered twice")
            found[name] = (handler, writes)
    return found


@functools.cache
def _table() -> dict[str, tuple[Handler, bool]]:
    return build_table(OPERATION_MODULES)


def operations() -> list[str]:
    """The names of every operation, sorted."""
    return sorted(_table())


def mutates(name: str) -> bool:
    """Whether applying ``name`` may change the world."""
    entry = _table().get(name)
    return entry is not None and entry[1]


def apply(world: World, name: str, input: Mapping[str, Any]) -> Any:
    """The data operation ``name`` answers for ``input`` on ``world``; a refusal is raised as
    :class:`~pytest_ghxbench.sandbox.errors.GitHubError`."""
    entry = _table().get(name)
    if entry is None:  # a programming error of the API's faces, never an agent's input
        raise KeyError(f"the sandbox has no operation {name!r}")
    return entry[0](world, dict(input))


def perform(world: World, name: str, input: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`apply` answered as ``{"ok", "data", "error"}``, the error a refusal's status and
    text (for callers that report rather than answer a request)."""
    try:
        data = apply(world, name, input)
    except GitHubError as exc:
        error = {"status": exc.status, "message": exc.graphql_message}
        return {"ok": False, "data": None, "error": error}
    return {"ok": True, "data": data, "error": None}


# ---------------------------------------------------------------- helpers for handlers


def require_repo(world: World, input: Mapping[str, Any]) -> None:
    """Fail like GitHub when ``owner``/``name`` do not name the world's repository."""
    repo = world.repository
    owner, name = input.get("owner"), input.get("name")
    if owner is None and name is None:
        return
    if (
        str(owner).casefold() != repo.owner.casefold()
        or str(name).casefold() != repo.name.casefold()
    ):
        raise NotFound(f"Could not resolve to a Repository with the name '{owner}/{name}'.")


def require_collaborators(world: World, logins: Sequence[str]) -> None:
    """Refuse the first login that is not a collaborator (it cannot be assigned)."""
    for login in logins:
        if login not in world.collaborators:
            raise Unprocessable(
                f"'{login}' cannot be assigned: not a collaborator of {world.repository.full_name}"
            )
