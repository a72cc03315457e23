"""``gh`` and ``ghx`` executables for an agent: POSIX sh scripts that run the sandbox's CLIs.

:func:`write_shims` puts both scripts in a private directory; an agent whose ``PATH`` starts
with that directory gets the sandbox whenever it runs ``gh`` or ``ghx``. Each script names its
state file itself (so it keeps working if the agent's tools scrub the environment) and execs
``python -m pytest_ghxbench sandbox gh|ghx "$@"`` with the interpreter and package the harness
runs on, even when the package is importable only from a checkout.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from pytest_ghxbench.sandbox.statefile import STATE_ENV

__all__ = ["SHIM_NAMES", "shim_script", "write_shims"]

SHIM_NAMES = ("gh", "ghx")

# The directory that holds the pytest_ghxbench package (a checkout or site-packages).
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def shim_script(name: str, state_path: Path, python: str = sys.executable) -> str:
    """The text of the ``name`` shim (``gh`` or ``ghx``) for the state at ``state_path``."""
    if name not in SHIM_NAMES:
        raise ValueError(f"no sandbox CLI named {name!r}; expected one of {', '.join(SHIM_NAMES)}")
    state = shlex.quote(str(state_path.resolve()))
    root = shlex.quote(str(_PACKAGE_ROOT))
    return (
        "#!/bin/sh\n"
        f"# {name} for the pytest-ghxbench sandbox: runs on the state file below.\n"
        f"{STATE_ENV}={state}\n"
        f"export {STATE_ENV}\n"
        f'PYTHONPATH={root}"${{PYTHONPATH:+:$PYTHONPATH}}"\n'
        # The sandbox uses no pydantic plugins; looking for them costs each call ~30 ms.
        "PYDANTIC_DISABLE_PLUGINS=__all__\n"
        "export PYTHONPATH PYDANTIC_DISABLE_PLUGINS\n"
        # -X utf8: JSON in and out is UTF-8 whatever the agent's locale says.
        f'exec {shlex.quote(python)} -X utf8 -m pytest_ghxbench sandbox {name} "$@"\n'
    )


def write_shims(
    directory: Path,
    state_path: Path,
    names: tuple[str, ...] = SHIM_NAMES,
    python: str = sys.executable,
) -> dict[str, str]:
    """Write executable shims (``gh`` and ``ghx``, or ``names``) for ``state_path`` into
    ``directory``.

    Returns the environment additions an agent's processes need: ``PATH`` with ``directory``
    first (then the current ``PATH``) and ``GHXBENCH_SANDBOX_STATE``.
    """
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        target = directory / name
        target.write_text(shim_script(name, state_path, python), encoding="utf-8")
        target.chmod(0o755)
    first = str(directory.resolve())
    current = os.environ.get("PATH", os.defpath)
    return {
        "PATH": f"{first}{os.pathsep}{current}" if current else first,
        STATE_ENV: str(state_path.resolve()),
    }
