"""What a jail's file system holds, as bubblewrap arguments.

The system's programs and libraries read-only (``/usr`` and the top-level links to it), a copy
of the few files of ``/etc`` a program needs (users, hosts, certificates, the dynamic linker's
cache, git's and the shell's configuration; never ``shadow``, private keys or ssh's files; one
copy per process, bound as one directory, since every bind mount costs a jail's start), a fresh
``/proc``, ``/dev`` and ``/tmp``, and then only what the item adds: its working directory
(writable), its clients and runtime (read-only) and the refusing scripts that mask other modes'
clients. Paths inside are the paths outside, so the item's environment needs no translation.
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

__all__ = ["ETC", "Mounts", "etc_copy", "python_runtime", "runtime_root"]

ETC = (
    "passwd", "group", "hosts", "host.conf", "nsswitch.conf", "gai.conf", "resolv.conf",
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
    "pki", "crypto-policies", "localtime", "timezone", "profile", "profile.d", "bash.bashrc",
    "environment", "inputrc", "terminfo", "gitconfig", "mime.types", "magic", "os-release",
    "debian_version", "protocols", "services", "locale.alias", "mtab",
)  # fmt: skip
"""The files of the host's ``/etc`` a jail sees (those that exist)."""
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

    def arguments(self, run_dir: Path) -> list[str]:
        args = ["--ro-bind", "/usr", "/usr"]
        for name in _TOP_LEVEL:
            top = Path("/") / name
            if top.is_symlink():
                args += ["--symlink", os.readlink(top), str(top)]
            elif top.is_dir():
                args += ["--ro-bind", str(top), str(top)]
        args += ["--ro-bind", str(etc_copy()), "/etc"]
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


@functools.lru_cache(maxsize=1)
def etc_copy() -> Path:
    """This process's copy of the host's :data:`ETC` files (removed at exit)."""
    target = Path(tempfile.mkdtemp(prefix="ghxbench-etc-"))
    atexit.register(shutil.rmtree, target, True)
    for name in ETC:
        source = Path("/etc") / name
        try:
            if source.is_symlink():
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
