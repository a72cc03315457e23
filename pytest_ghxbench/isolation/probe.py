"""Whether items can be jailed here: ``--ghx-isolation=auto|jail|none`` resolved once per
process.

A jail needs bubblewrap (``bwrap``) that can create user, PID, mount, network and IPC
namespaces, and socat for the jail's one way out. ``auto`` jails where both work and otherwise
says why not (the header warns); ``jail`` where they do not work is a usage error naming what is
missing; ``none`` runs items on the host, as before (the proxy's policy still applies).

``GHXBENCH_BWRAP`` names the bubblewrap to use (a path, or a name looked up on ``PATH``) where it
is not the ``bwrap`` on ``PATH``: a setuid build where user namespaces are disabled, say.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "BWRAP_ENV",
    "CHOICES",
    "Isolation",
    "IsolationUnavailable",
    "probe",
    "resolve_isolation",
]

CHOICES = ("auto", "jail", "none")
BWRAP_ENV = "GHXBENCH_BWRAP"
"""The bubblewrap to use instead of ``bwrap`` on ``PATH``."""
_INSTALL = "Debian/Ubuntu: apt-get install bubblewrap socat"


class IsolationUnavailable(Exception):
    """``--ghx-isolation=jail`` cannot be had here (the message says what is missing)."""


@dataclass(frozen=True)
class Isolation:
    """How this session's items run."""

    kind: Literal["jail", "none"]
    detail: str
    """``bubblewrap 0.8.0`` for a jail; for none, why not."""
    bwrap: str | None = None
    socat: str | None = None
    requested: str = "auto"

    @property
    def jailed(self) -> bool:
        return self.kind == "jail"

    def header(self) -> str:
        """``isolation: jail (bubblewrap 0.8.0)`` or ``isolation: none (why)``."""
        return f"isolation: {self.kind} ({self.detail})"

    def to_json(self) -> dict[str, str]:
        """What run.json records."""
        return {"kind": self.kind, "detail": self.detail, "requested": self.requested}


def probe() -> Isolation:
    """A jail if bubblewrap and socat are here and bubblewrap can start one (it is tried),
    else ``none`` with the reason (found once per process for each bubblewrap asked for)."""
    wanted = os.environ.get(BWRAP_ENV) or "bwrap"
    return _probe(wanted, shutil.which(wanted), shutil.which("socat"))


@functools.lru_cache(maxsize=4)
def _probe(wanted: str, bwrap: str | None, socat: str | None) -> Isolation:
    if bwrap is None:
        where = f" ({BWRAP_ENV}={wanted})" if wanted != "bwrap" else ""
        return Isolation("none", f"bubblewrap (bwrap) not found{where}; {_INSTALL}")
    if socat is None:
        return Isolation("none", f"socat not found (the jail's network bridge); {_INSTALL}")
    try:
        version = subprocess.run(
            [bwrap, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout.strip()
        trial = subprocess.run(
            [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
             "--proc", "/proc", "--dev", "/dev", "true"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        return Isolation("none", f"bubblewrap cannot run: {exc}")
    if trial.returncode != 0:
        message = trial.stderr.strip().splitlines()[-1:] or [f"exit status {trial.returncode}"]
        return Isolation(
            "none",
            f"bubblewrap cannot create a jail here: {message[0]} (user namespaces are "
            "disabled, as in some containers)",
        )
    return Isolation("jail", version or "bubblewrap", bwrap=bwrap, socat=socat)


def resolve_isolation(requested: str, *, backend: str = "sandbox") -> Isolation:
    """The isolation for ``--ghx-isolation=requested``; :class:`IsolationUnavailable` when
    ``jail`` cannot be had. Only sandbox items are jailed (their one way out is the
    sandbox's proxy)."""
    if requested == "none":
        return Isolation("none", "--ghx-isolation=none", requested=requested)
    if backend != "sandbox":
        why = f"the {backend} backend's items reach real GitHub, not a sandbox"
        if requested == "jail":
            raise IsolationUnavailable(f"--ghx-isolation=jail needs the sandbox backend: {why}")
        return Isolation("none", why, requested=requested)
    found = probe()
    if requested == "jail" and not found.jailed:
        raise IsolationUnavailable(f"--ghx-isolation=jail cannot be had: {found.detail}")
    return Isolation(found.kind, found.detail, found.bwrap, found.socat, requested)
