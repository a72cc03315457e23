"""What a jail must hold to run a program a team brings (a declared mode's CLI or MCP server):
the program's own files and, for a script, the interpreter its ``#!`` line names.

A team's CLI is often a console script in a virtualenv (``#!/proj/.venv/bin/python``) or a
script run by an interpreter found on ``PATH`` (``#!/usr/bin/env python3``, ``node``). Binding
the script alone would leave its interpreter outside the jail, and the item would fail with
"not found" before the agent did anything. The system's interpreters under ``/usr`` are in every
jail already; a virtualenv's is bound as the harness's own is (its interpreter, standard
library and packages, its ``bin/`` emptied but for the interpreter's link and the program).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pytest_ghxbench.isolation.mounts import Mounts, python_runtime, runtime_root

__all__ = ["program_mounts"]

_SYSTEM = (Path("/usr"), Path("/bin"), Path("/sbin"), Path("/lib"), Path("/lib64"))


def program_mounts(program: str, path: str | None = None) -> Mounts:
    """The binds that let ``program`` run in a jail; ``path``: the ``PATH`` an ``env``
    interpreter is looked up on (the item's)."""
    mounts = Mounts()
    mounts.add([runtime_root(program)])
    interpreter = _interpreter(program, path)
    if interpreter is not None and not _system(interpreter):
        mounts.include(_interpreter_mounts(interpreter))
    return mounts


def _interpreter(program: str, path: str | None) -> str | None:
    """The interpreter a script's ``#!`` line names (``env NAME`` found on ``path``)."""
    try:
        with open(program, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env":
        names = [word for word in words[1:] if not word.startswith("-")]
        if not names:
            return None
        return shutil.which(names[0], path=path or os.environ.get("PATH"))
    return words[0]


def _system(interpreter: str) -> bool:
    real = Path(os.path.realpath(interpreter))
    return any(real.is_relative_to(root) for root in _SYSTEM) and any(
        Path(interpreter).is_relative_to(root) for root in _SYSTEM
    )


def _interpreter_mounts(interpreter: str) -> Mounts:
    venv = Path(interpreter).parent.parent
    config = venv / "pyvenv.cfg"
    if config.is_file():
        home = _home(config)
        if home is not None:
            return python_runtime(interpreter, str(Path(home).parent), str(venv))
    real = Path(os.path.realpath(interpreter))
    if real.name.startswith("python"):
        return python_runtime(interpreter, str(real.parent.parent), str(real.parent.parent))
    mounts = Mounts()
    mounts.add([runtime_root(interpreter)])
    return mounts


def _home(config: Path) -> str | None:
    """The ``home`` of a virtualenv's ``pyvenv.cfg``: the directory of its base interpreter."""
    for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return value.strip()
    return None
