"""What every resolver is given: the world a request runs on, the web host the client reached,
whether the request has changed the world, and what its resolvers read of their arguments."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_ghxbench.sandbox.operations.registry import mutates, perform
from pytest_ghxbench.sandbox.state import World

if TYPE_CHECKING:
    from graphql import OperationDefinitionNode

    from pytest_ghxbench.sandbox.api.graphql.accounting import Field

__all__ = ["DOTCOM", "Context", "capability_message"]

DOTCOM = "https://github.com"
"""The web host the world's own URLs (``Repository.url`` ...) are built on."""


@dataclass
class Context:
    """One GraphQL request: the world it runs on, the web host absolute URLs point to
    (``http://github.localhost`` through the sandbox's API server), whether it mutated, and
    what its resolvers read of the arguments the client wrote."""

    world: World
    web: str = DOTCOM
    mutated: bool = False
    fields: dict[int, Field] = field(default_factory=dict)
    """By the id of its node, each field given arguments (see :mod:`..accounting`)."""
    variables: Mapping[str, Any] = field(default_factory=dict)
    """The request's variables, as sent."""
    operation: OperationDefinitionNode | None = None
    """The operation the request runs."""
    unwatched: set[int] = field(default_factory=set)
    """By id, the fields of the query whose arguments need no accounting (shared by the
    requests of one query: it holds its document's nodes)."""

    @property
    def full_name(self) -> str:
        return self.world.repository.full_name

    def run(self, task: str, input: Mapping[str, Any]) -> dict[str, Any]:
        """Perform the world's operation for capability ``task`` (``{"ok", "data", "error"}``),
        noting a mutation whenever it may change the world (even if it then fails)."""
        if mutates(task):
            self.mutated = True
        return perform(self.world, task, input)

    def on_web(self, url: str) -> str:
        """``url`` (built on :data:`DOTCOM`) moved to this request's web host."""
        if self.web != DOTCOM and url.startswith(DOTCOM + "/"):
            return self.web + url[len(DOTCOM) :]
        return url


def capability_message(error: Mapping[str, Any]) -> str:
    """A failed capability's message as GitHub's APIs word it: without the ``input.field: ``
    prefix that locates the bad field."""
    return re.sub(r"^input(?:\.\w+)*: ", "", str(error.get("message", "")))
