"""``ghxbench --version``: the plugin's version and what it runs on."""

from __future__ import annotations

import argparse
import platform
from importlib import metadata

DISTRIBUTION = "pytest-ghxbench"


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def version_text() -> str:
    """One line, e.g. ``ghxbench 0.1.0 (pytest 9.2.0, Python 3.11.7)``."""
    from pytest_ghxbench import __version__

    version = _installed(DISTRIBUTION) or __version__
    pytest_version = _installed("pytest") or "not installed"
    return f"ghxbench {version} (pytest {pytest_version}, Python {platform.python_version()})"


def add_version_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--version`` to the ``ghxbench`` parser: it prints :func:`version_text` and exits 0
    before a subcommand is required."""
    parser.add_argument("--version", action="version", version=version_text())
