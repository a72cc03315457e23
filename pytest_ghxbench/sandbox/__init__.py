"""The embedded sandbox: a GitHub world served as GitHub's API, and its backend.

See ``docs/sandbox.md``. The world is :class:`~pytest_ghxbench.sandbox.state.World`, seeded from
``scenarios/fixtures/sandbox-seed.yaml``; :mod:`pytest_ghxbench.sandbox.api` serves it, and the
changes its handlers make are :mod:`pytest_ghxbench.sandbox.operations`; the backend is
:class:`~pytest_ghxbench.sandbox.backend.SandboxBackend`.

The names below are imported on first use: the pytest plugin registers the sandbox's hooks in
every run, and plain test runs must not pay for pydantic and jsonschema.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession
    from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, SeedError, fresh_world, load_seed
    from pytest_ghxbench.sandbox.state import World

__all__ = [
    "DEFAULT_SEED",
    "SandboxBackend",
    "SandboxSession",
    "SeedError",
    "World",
    "fresh_world",
    "load_seed",
]

_HOME = {
    "SandboxBackend": "backend",
    "SandboxSession": "backend",
    "DEFAULT_SEED": "manifest",
    "SeedError": "manifest",
    "fresh_world": "manifest",
    "load_seed": "manifest",
    "World": "state",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
