"""What a jail's file system holds, as bubblewrap arguments.

The system's programs and libraries read-only (``/usr`` and the top-level links to it), a copy
of the few files of ``/etc`` a program needs (users, hosts, certificates, the dynamic linker's
cache, git's and the shell's configuration; never ``shadow``, private keys or ssh's files; one
copy per process, bound as one directory, since every bind mount costs a jail's start), a fresh
``/proc``, ``/dev`` and ``/tmp``, and then only what the item adds: its working directory
(writable), its clients and runtime (read-only) and the refusing scripts that mask other modes'
clients. Paths inside are the paths outside, so the item's environment needs no translation.

The copy's ``hosts`` names :data:`GITHUB_ADDRESS` for each of :data:`GITHUB_NAMES`, so a client
that ignores the proxy variables reaches the jail's bridge (see
:mod:`pytest_ghxbench.isolation.jail`) where it would reach GitHub; the machine's own
``/etc/hosts`` is never changed.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "ETC",
    "GITHUB_ADDRESS",
    "GITHUB_NAMES",
    "Mounts",
    "etc_copy",
    "python_runtime",
    "runtime_root",
]

ETC = (
    "passwd", "group", "hosts", "host.conf", "nsswitch.conf", "gai.conf", "resolv.conf",
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
    "pki", "crypto-policies", "localtime", "timezone", "profile", "profile.d", "bash.bashrc",
    "environment", "inputrc", "terminfo", "gitconfig", "mime.types", "magic", "os-release",
    "debian_version", "protocols", "services", "locale.alias", "mtab",
)  # fmt: skip
"""The files of the host's ``/etc`` a jail sees (those that exist)."""
GITHUB_NAMES = (
    "github.com", "api.github.com", "uploads.github.com", "codeload.github.com",
    "gist.github.com", "raw.githubusercontent.com", "gist.githubusercontent.com",
    "objects.githubusercontent.com", "avatars.githubusercontent.com",
)  # fmt: skip
"""GitHub's names a jail resolves to its bridge: those the sandbox answers (the API, uploads,
raw files, git and downloads on github.com) and those its answers link to. Every one is a name
the proxy intercepts and its certificate covers (``github.com``, ``*.github.com``,
``*.githubusercontent.com``)."""
GITHUB_ADDRESS = "127.0.0.2"
"""The loopback address :data:`GITHUB_NAMES` resolve to in a jail, where its bridge listens."""
_PRIVATE = ("private",)  # ssl/private: the host's TLS keys
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


@dataclass
class Mounts:
    """The binds of one jail; :meth:`arguments` orders them so a parent is mounted first."""

    read_only: set[Path] = field(default_factory=set)
    writable: set[Path] = field(default_factory=set)
    hidden: set[Path] = field(default_factory=set)
    """Directories inside a bound tree replaced by an empty one (a virtualenv's ``bin/``)."""
    links: dict[Path, str] = field(default_factory=dict)
    """Symbolic links to recreate (a virtualenv's ``python``, inside its hidden ``bin/``)."""
    masks: dict[Path, Path] = field(default_factory=dict)
    """Path in the jail -> the file bound over it (a refusing script over a foreign client)."""

    def add(self, paths: Iterable[Path | str], *, writable: bool = False) -> None:
        target = self.writable if writable else self.read_only
        target.update(Path(p) for p in paths)

    def include(self, other: Mounts) -> None:
        """Add ``other``'s binds, hidden directories, links and masks to these."""
        self.read_only |= other.read_only
        self.writable |= other.writable
        self.hidden |= other.hidden
        self.links.update(other.links)
        self.masks.update(other.masks)

    def arguments(self, run_dir: Path, *, github_names: bool = False) -> list[str]:
        """bubblewrap's arguments for these binds; ``github_names``: the jail's ``/etc/hosts``
        maps :data:`GITHUB_NAMES` to :data:`GITHUB_ADDRESS`."""
        args = ["--ro-bind", "/usr", "/usr"]
        for name in _TOP_LEVEL:
            top = Path("/") / name
            if top.is_symlink():
                args += ["--symlink", os.readlink(top), str(top)]
            elif top.is_dir():
                args += ["--ro-bind", str(top), str(top)]
        args += ["--ro-bind", str(etc_copy(github_names=github_names)), "/etc"]
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run"]
        args += ["--bind", str(run_dir), "/run/ghxbench"]
        binds = [(p, "--ro-bind") for p in self.read_only - self.writable - set(self.masks)]
        binds += [(p, "--bind") for p in self.writable]
        binds += [(p, "--tmpfs") for p in self.hidden]
        binds += [(p, "--symlink") for p in self.links]
        binds += [(p, "--ro-bind") for p in self.masks]
        order = {"--bind": 0, "--ro-bind": 0, "--tmpfs": 1, "--symlink": 2}
        for path, how in sorted(binds, key=lambda b: (len(b[0].parts), order[b[1]], str(b[0]))):
            if how == "--tmpfs":
                args += ["--tmpfs", str(path)]
            elif how == "--symlink":
                args += ["--symlink", self.links[path], str(path)]
            elif path in self.masks:
                args += ["--ro-bind", str(self.masks[path]), str(path)]
            elif not _under_usr(path):
                args += [how, str(path), str(path)]
        return args


def etc_copy(*, github_names: bool = False) -> Path:
    """This process's copy of the host's :data:`ETC` files (removed at exit); with
    ``github_names``, its ``hosts`` maps :data:`GITHUB_NAMES` to :data:`GITHUB_ADDRESS`."""
    return _etc_copy(github_names)


@functools.lru_cache(maxsize=2)
def _etc_copy(github_names: bool) -> Path:
    target = Path(tempfile.mkdtemp(prefix="ghxbench-etc-"))
    atexit.register(shutil.rmtree, target, True)
    for name in ETC:
        source = Path("/etc") / name
        try:
            if name == "hosts" and github_names:
                _write_hosts(source, target / name)
            elif source.is_symlink():
                (target / name).symlink_to(os.readlink(source))
            elif source.is_dir():
                shutil.copytree(
                    source, target / name, symlinks=True, ignore=shutil.ignore_patterns(*_PRIVATE)
                )
            elif source.is_file():
                shutil.copy2(source, target / name)
        except OSError:
            continue  # unreadable: the jail goes without it
    target.chmod(0o755)
    return target


def _write_hosts(source: Path, target: Path) -> None:
    """The machine's ``hosts`` (read through a link) without GitHub's names, then each of
    :data:`GITHUB_NAMES` at :data:`GITHUB_ADDRESS`."""
    try:
        lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    kept = []
    for line in lines:
        address, *names = line.partition("#")[0].split() or [""]
        others = [name for name in names if name.lower().rstrip(".") not in GITHUB_NAMES]
        if others == names:
            kept.append(line)
        elif others:
            kept.append(f"{address}\t{' '.join(others)}")
    kept += ["# ghxbench: GitHub's names reach the sandbox through this jail's bridge"]
    kept += [f"{GITHUB_ADDRESS}\t{name}" for name in GITHUB_NAMES]
    target.write_text("\n".join(kept) + "\n", encoding="utf-8")
    target.chmod(0o644)


def _under_usr(path: Path) -> bool:
    # /usr is bound whole, read-only: binding into it again is redundant (unless writable).
    return path.parts[:2] == ("/", "usr")


def runtime_root(program: str) -> Path:
    """What a jail must hold for ``program`` to run: its ``node_modules`` tree for a program
    installed with npm (the package's own files and the native binary it starts), else the
    program's file itself (its real path)."""
    real = Path(os.path.realpath(program))
    parts = real.parts
    if "node_modules" in parts:
        return Path(*parts[: parts.index("node_modules") + 1])
    return real


def python_runtime(executable: str, base_prefix: str, prefix: str) -> Mounts:
    """What a jail needs to run ``executable`` (the interpreter a virtualenv's ``bin/python``
    links to): the interpreter, its standard library and the virtualenv's packages, with the
    virtualenv's ``bin/`` (where pip puts gh and the MCP server) emptied but for the link."""
    mounts = Mounts()
    real = Path(os.path.realpath(executable))
    mounts.add([real, Path(base_prefix) / "lib"])
    if prefix != base_prefix:
        venv = Path(prefix)
        mounts.add([venv])
        mounts.hidden.add(venv / "bin")
        # The virtualenv's python (a chain of links to the interpreter) as one link: Python
        # finds the virtualenv's pyvenv.cfg beside the path it was started as.
        mounts.links[Path(executable)] = str(real)
    return mounts
