"""How a backend hands an item's processes a program with its secrets: launcher scripts, and the
variable naming the MCP server an item's agent starts.

Written by the backends (:mod:`pytest_ghxbench.sandbox.item_env`,
:mod:`pytest_ghxbench.github.backend`), read by the adapters
(:mod:`pytest_ghxbench.adapters.process`).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["MCP_COMMAND_ENV", "command_words", "write_launcher"]

MCP_COMMAND_ENV = "GHXBENCH_MCP_COMMAND"
"""Set by a backend whose items need a particular MCP server (a launcher of GitHub's MCP server
with the item's token, see :func:`write_launcher`): a shell-quoted command line."""


def write_launcher(
    path: Path,
    variables: Mapping[str, str],
    command: Sequence[str],
    *,
    pass_arguments: bool = False,
) -> Path:
    """Write a shell script (mode 0700: only its owner reads it) that exports ``variables`` and
    execs ``command`` (with the script's own arguments when ``pass_arguments``). This is how a
    backend hands an MCP server its token without putting it on a command line, in a runtime's
    configuration or in the agent's environment."""
    lines = ["#!/bin/sh"]
    for name, value in variables.items():
        lines += [f"{name}={shlex.quote(value)}", f"export {name}"]
    lines.append("exec " + shlex.join(command) + (' "$@"' if pass_arguments else ""))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o700)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def command_words(value: object) -> list[str] | None:
    """A configured command line, given as a string (split as a shell would) or a list of
    strings, as its words; ``None`` when it is neither, or empty."""
    words = shlex.split(value) if isinstance(value, str) else value
    if isinstance(words, list) and words and all(isinstance(word, str) for word in words):
        return words
    return None
