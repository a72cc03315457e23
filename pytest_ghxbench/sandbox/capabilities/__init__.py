"""Capabilities over the sandbox world: the registry and the modules that fill it.

Every module of this package except ``registry`` registers its capabilities with
:func:`~pytest_ghxbench.sandbox.capabilities.registry.capability` when first imported; the
registry imports them all the first time it is consulted.
"""

from __future__ import annotations

from pytest_ghxbench.sandbox.capabilities.registry import (
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
