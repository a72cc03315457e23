"""The exit statuses the ``ghxbench`` subcommands share, and the usage error that exits 4."""

from __future__ import annotations

__all__ = ["EXIT_GATE_FAILED", "EXIT_OK", "EXIT_USAGE", "UsageError"]

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 4


class UsageError(Exception):
    """A problem with the command line or its inputs; exits 4 with the message."""
