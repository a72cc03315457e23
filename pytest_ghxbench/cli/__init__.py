"""The ``ghxbench`` command line: ``report``, ``check`` and ``fixtures`` subcommands."""

from __future__ import annotations

from pytest_ghxbench.cli.main import main

__all__ = ["main"]
