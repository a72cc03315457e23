"""What a CLI dialect (``gh``, ``ghx``) returns for one command line run against a world.

Both dialects are pure functions ``run_*(world, argv, stdin) -> CliResult``: the in-process
oracle reads the result directly, and ``ghxbench sandbox gh|ghx`` prints it, exits with its
status and saves the world back to the state file only when ``mutated`` is true.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_USAGE", "CliResult"]

EXIT_OK = 0
EXIT_ERROR = 1
"""The command ran and failed (a capability error, an unknown object...)."""
EXIT_USAGE = 2
"""The command line itself is wrong (unknown subcommand, missing flag, unparsable value)."""


@dataclass(frozen=True)
class CliResult:
    """The outcome of one command line: what a terminal would show, and whether state changed.

    ``mutated`` is true when the command may have changed the world (a mutating operation
    reached its handler, even if it then failed), so callers know the world must be saved.
    """

    exit_code: int
    stdout: str
    stderr: str = ""
    mutated: bool = False
