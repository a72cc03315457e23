"""What an agent is told about its CLI mode's tool: the real client's own ``--help`` text.

``agent_direct`` describes the ``bash`` tool with the output of the real ``gh --help``;
``ghx`` with the built-in capability CLI's usage, or a configured ghx build's ``--help``; a
declared kind cli mode with its program's own ``--help``. The text is read once per program
and process (starting gh costs ~50 ms).
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile

from pytest_ghxbench.api import BUILTIN_MODE_SPECS, ModeSpec
from pytest_ghxbench.sandbox.clients import ClientMissing, Clients

__all__ = ["cli_usage"]


@functools.lru_cache(maxsize=8)
def _help_text(program: str) -> str:
    with tempfile.TemporaryDirectory(prefix="ghxbench-help-") as home:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": home,
            "GH_CONFIG_DIR": home,
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "GH_NO_UPDATE_NOTIFIER": "1",
        }
        try:
            done = subprocess.run(
                [program, "--help"], env=env, capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ClientMissing(f"{program} --help could not run: {exc}") from None
    text = done.stdout or done.stderr
    if not text.strip():
        raise ClientMissing(f"{program} --help printed nothing (exit status {done.returncode})")
    return text


def cli_usage(mode: str | ModeSpec, clients: Clients | None = None) -> str:
    """The usage text of the CLI ``mode`` runs (``agent_direct``: gh, ``ghx``: ghx, a declared
    kind cli mode: its program's ``--help``)."""
    clients = clients or Clients()
    spec = BUILTIN_MODE_SPECS.get(mode) if isinstance(mode, str) else mode
    if spec is None or spec.kind != "cli":
        raise ValueError(f"mode {mode!r} has no CLI; expected agent_direct, ghx or a kind cli mode")
    program = clients.cli_program(spec)
    if program is None:
        from pytest_ghxbench.ghx.cli import GHX_USAGE

        return GHX_USAGE
    return _help_text(program)
