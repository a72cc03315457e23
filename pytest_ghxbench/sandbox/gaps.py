"""Sandbox gaps: where the sandbox knowingly answered a request otherwise than GitHub would.

A gap is a ``(kind, detail)`` pair:

- ``unserved_route``: a REST request for an operation of GitHub's published OpenAPI description
  that the sandbox does not serve (detail ``GET /repos/{owner}/{repo}/deployments``);
- ``unmodelled_field``: a GraphQL field of GitHub's schema the sandbox does not model, answered
  with null or its type's empty value (detail ``PullRequest.potentialMergeCommit``);
- ``unevaluated_parameter``: a parameter GitHub's description (or schema) has for the
  operation, which the request carried and the sandbox did not evaluate: a REST query parameter
  or body field (detail ``GET /repos/{owner}/{repo}/issues: query parameter since``), a GraphQL
  argument (``Repository.issues(filterBy:)``) or a search qualifier (``search issues:
  qualifier reactions``);
- ``sandbox_fault``: the sandbox failed on the request (a bug of its own), answered 500
  (detail: the operation and the exception's type);
- ``unsupported``: anything else the sandbox knows it faked (detail in words).

Code that answers a request calls :func:`record` (or :func:`record_unsupported`) wherever it
diverges; nothing needs to be passed down to it. A fake is marked in the code with a ``# gap:``
comment saying what it fakes, right before the call that records it (a test holds every mark
to that). The server runs each request of an item inside
:func:`request_scope` of that item's :class:`GapLog` (see ``Slot.held``), and the log counts, per
gap, the requests that met it: a GraphQL query asking an unmodelled field of 30 pull requests is
one. Outside a request scope (a world operation called in process) recording does nothing.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = [
    "KINDS",
    "SANDBOX_FAULT",
    "UNEVALUATED_PARAMETER",
    "UNMODELLED_FIELD",
    "UNSERVED_ROUTE",
    "UNSUPPORTED",
    "GapLog",
    "record",
    "record_unsupported",
    "request_scope",
]

UNSERVED_ROUTE = "unserved_route"
UNMODELLED_FIELD = "unmodelled_field"
UNEVALUATED_PARAMETER = "unevaluated_parameter"
SANDBOX_FAULT = "sandbox_fault"
UNSUPPORTED = "unsupported"
KINDS = (UNSERVED_ROUTE, UNMODELLED_FIELD, UNEVALUATED_PARAMETER, SANDBOX_FAULT, UNSUPPORTED)
"""The kinds, in the order reports list them."""

Gap = tuple[str, str]

_REQUEST: ContextVar[set[Gap] | None] = ContextVar("ghxbench_sandbox_gaps", default=None)


class GapLog:
    """One item's gaps: how many of its requests met each ``(kind, detail)``. Thread-safe."""

    def __init__(self) -> None:
        self._counts: Counter[Gap] = Counter()
        self._lock = threading.Lock()

    def add(self, gaps: Iterable[Gap]) -> None:
        """Count one request that met each of ``gaps``."""
        with self._lock:
            self._counts.update(gaps)

    def entries(self) -> list[dict[str, Any]]:
        """``[{kind, detail, count}]`` by kind (in :data:`KINDS` order), then detail."""
        with self._lock:
            counts = list(self._counts.items())
        order = {kind: index for index, kind in enumerate(KINDS)}
        counts.sort(key=lambda item: (order.get(item[0][0], len(KINDS)), item[0]))
        return [{"kind": k, "detail": d, "count": n} for (k, d), n in counts]


@contextmanager
def request_scope(log: GapLog) -> Iterator[None]:
    """Gaps recorded while the block runs (one request) count once each on ``log``."""
    found: set[Gap] = set()
    token = _REQUEST.set(found)
    try:
        yield
    finally:
        _REQUEST.reset(token)
        if found:
            log.add(found)


def record(kind: str, detail: str) -> None:
    """Note that the request being answered met gap ``(kind, detail)``."""
    found = _REQUEST.get()
    if found is not None:
        found.add((kind, detail))


def record_unsupported(detail: str) -> None:
    """Note that the request being answered got a faked answer: ``detail`` says what."""
    record(UNSUPPORTED, detail)
