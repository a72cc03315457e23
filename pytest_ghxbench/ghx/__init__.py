"""``ghx``: the capability command line, a client of GitHub's REST and GraphQL APIs.

A capability is a named GitHub operation (``issue.comments.list``) with a JSON Schema input and
a result envelope ``{"ok", "data", "error", "meta"}``. Every capability is performed over HTTP
against one GitHub (``api.github.com``, an Enterprise Server, or the sandbox's server), so the
same code answers ``ghx run`` in an item, verifies workflow checkpoints on both backends, and
computes what the oracle expects.
"""

from __future__ import annotations

from pytest_ghxbench.ghx.registry import (
    ERROR_CODES,
    Capability,
    CapabilityError,
    all_capabilities,
    get_capability,
    run_capability,
)

__all__ = [
    "ERROR_CODES",
    "Capability",
    "CapabilityError",
    "all_capabilities",
    "get_capability",
    "run_capability",
]
