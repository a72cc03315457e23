"""Starting an item's processes in its jail (see :mod:`pytest_ghxbench.isolation`).

A backend session that isolates its items (the sandbox's, unless ``--ghx-isolation=none`` or
bubblewrap is missing) has a ``jail()``; every adapter that starts a process for an item goes
through :func:`jailed_argv` (one process: a CLI runtime, an MCP server) or :func:`open_shell`
(one command after another: a ``bash`` tool), naming what the process needs beyond the item's
own files: its runtime.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_ghxbench.isolation.mounts import runtime_root

if TYPE_CHECKING:
    from pytest_ghxbench.api import RunRequest
    from pytest_ghxbench.isolation.jail import ItemJail
    from pytest_ghxbench.isolation.shell import JailShell

__all__ = ["item_jail", "jailed_argv", "open_shell", "runtime_root"]


def item_jail(request: RunRequest) -> ItemJail | None:
    """The item's jail, or ``None`` when its backend does not isolate items."""
    jail = getattr(request.backend, "jail", None)
    found = jail() if callable(jail) else None
    from pytest_ghxbench.isolation.jail import ItemJail

    return found if isinstance(found, ItemJail) else None


def jailed_argv(
    request: RunRequest,
    argv: Sequence[str],
    *,
    cwd: Path,
    runtime: Iterable[Path | str] = (),
    writable: Iterable[Path | str] = (),
    serve_port: int | None = None,
) -> list[str]:
    """``argv`` as the item's jail runs it (unchanged without one). ``runtime``: files the
    process needs read-only (its program's :func:`runtime_root`, a configuration file);
    ``writable``: directories it writes outside the item's own."""
    jail = item_jail(request)
    if jail is None:
        return list(argv)
    return jail.command(argv, cwd=cwd, read_only=runtime, writable=writable, serve_port=serve_port)


def open_shell(
    request: RunRequest, env: Mapping[str, str], cwd: Path, runtime: Sequence[Path] = ()
) -> JailShell | None:
    """A :class:`~pytest_ghxbench.isolation.shell.JailShell` in the item's jail (``None``
    without one); it raises :class:`~pytest_ghxbench.isolation.jail.JailError` when the jail
    fails to start. The caller closes it when the item ends."""
    jail = item_jail(request)
    if jail is None:
        return None
    from pytest_ghxbench.isolation.shell import JailShell

    return JailShell(jail, env, cwd, runtime)
