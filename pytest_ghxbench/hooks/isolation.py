"""The session's isolation (``--ghx-isolation``, ``--ghx-allow-host``): resolved in every
process of the session, handed to the backend with the hosts items may reach, shown in the
report header and recorded in run.json.

The hosts: GitHub is always answered by the sandbox; besides it an item reaches its adapter's
model endpoint (what the adapter's optional ``model_endpoints()`` returns: URLs or
``HOST:PORT``) and the hosts given with ``--ghx-allow-host``.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.hooks.session import GhxSession
from pytest_ghxbench.isolation.probe import Isolation, IsolationUnavailable, resolve_isolation
from pytest_ghxbench.sandbox.api.policy import HostPolicy

__all__ = ["ISOLATION_KEY", "header_lines", "isolate_session", "model_endpoints"]

ISOLATION_KEY = "isolation"


def model_endpoints(adapter: Any) -> list[str]:
    """The model endpoints the adapter's runtime talks to (URLs or hosts), if it says."""
    endpoints = getattr(adapter, "model_endpoints", None)
    if not callable(endpoints):
        return []
    return [str(value) for value in endpoints() or () if value]


def isolate_session(session: GhxSession) -> Isolation:
    """Resolve the session's isolation and give it to the backend; a ``jail`` that cannot be
    had is a usage error naming what is missing."""
    settings = session.settings
    try:
        isolation = resolve_isolation(settings.isolation, backend=settings.backend)
    except IsolationUnavailable as exc:
        raise pytest.UsageError(f"ghxbench: {exc}") from None
    policy = HostPolicy.of([*settings.allow_hosts, *model_endpoints(session.adapter)])
    apply = getattr(session.backend, "isolate", None) if session.backend is not None else None
    if callable(apply):
        apply(isolation, policy)
    elif isolation.jailed:
        why = f"backend {settings.backend!r} cannot jail its items"
        if settings.isolation == "jail":
            raise pytest.UsageError(f"ghxbench: --ghx-isolation=jail: {why}")
        isolation = Isolation("none", why, requested=settings.isolation)
    session.extra[ISOLATION_KEY] = isolation
    return isolation


def header_lines(session: GhxSession) -> list[str]:
    """``isolation: jail (bubblewrap 0.8.0)``, or ``none (why)`` (a warning when it was not
    asked for)."""
    isolation: Isolation | None = session.extra.get(ISOLATION_KEY)
    if isolation is None:
        return []
    if isolation.jailed or isolation.requested == "none":
        return [f"ghxbench: {isolation.header()}"]
    return [
        f"ghxbench: WARNING: {isolation.header()}: agents run unjailed, with this machine's "
        "network, files and processes in reach"
    ]
