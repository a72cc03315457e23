"""What the built-in backends (:mod:`pytest_ghxbench.sandbox`, :mod:`pytest_ghxbench.github`)
share, below them and below the adapters: the launchers that hand an item's processes their
secrets (:mod:`~pytest_ghxbench.backends.launcher`) and lazily loaded backends
(:mod:`~pytest_ghxbench.backends.lazy`)."""

from __future__ import annotations

__all__ = ["ManifestError"]


class ManifestError(Exception):
    """A backend's own data file (the sandbox's seed) that cannot be read or is not valid; the
    message names the file. The session makes it a usage error."""
