"""An item's working copy: a clone of its world's repository on the default branch, with
``origin`` at the sandbox, as a CI checkout has.

``git clone`` costs tens of milliseconds, and nearly every item starts from the same
repository, so a process clones each distinct repository (the same refs) once into a
template and every item copies the template: the pack files, which git never changes, are
hard-linked; everything else (the working tree above all) is copied. A clone names its source
only in text (``origin``'s URL, the reflog), and the template's say the sandbox's URL, so a
copy refers to nothing on the serving side.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import threading
from pathlib import Path

from pytest_ghxbench.sandbox.git.repo import GitError, GitRepo, scratch_root

__all__ = ["make_checkout"]

_MAX_TEMPLATES = 8
_CLONED = ("refs/heads/", "refs/tags/")
_lock = threading.Lock()
_templates: dict[tuple[object, ...], Path] = {}
_names = itertools.count(1)


def make_checkout(repo: GitRepo, target: Path, url: str, identity: tuple[str, str]) -> None:
    """Make ``target`` (which must not exist) a clone of ``repo`` whose ``origin`` is ``url``;
    ``identity``: the ``(name, email)`` the clone's reflog records."""
    # What a clone gets: branches, tags and HEAD (not refs/pull/*).
    cloned = sorted((n, s) for n, s in repo.refs().items() if n.startswith(_CLONED))
    key = (url, identity, repo.head_ref(), tuple(cloned))
    with _lock:
        template = _templates.get(key)
        if template is None and len(_templates) < _MAX_TEMPLATES:
            template = scratch_root() / "checkouts" / f"t{next(_names)}"
            _clone(repo, template, url, identity)
            _templates[key] = template
    if template is None:
        _clone(repo, target, url, identity)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template, target, symlinks=True, copy_function=_copy)


def _copy(source: str, destination: str) -> None:
    # Pack files and their indexes are immutable (git writes new ones and deletes old ones),
    # so sharing them is safe; a working-tree file may be edited in place, so it is copied.
    if f"{os.sep}.git{os.sep}objects{os.sep}pack{os.sep}" in source:
        try:
            os.link(source, destination)
            return
        except OSError:
            pass  # another file system
    shutil.copy2(source, destination)


def _git(*args: str, cwd: Path | None = None, identity: tuple[str, str] | None = None) -> None:
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LANG": "C",
    }
    if identity is not None:
        env["GIT_COMMITTER_NAME"], env["GIT_COMMITTER_EMAIL"] = identity
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=False)
    if done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip())


def _clone(repo: GitRepo, target: Path, url: str, identity: tuple[str, str]) -> None:
    """A real clone of ``repo`` at ``target``, then made to look cloned from ``url``."""
    source = str(repo.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # --no-local: a pack of its own, not hard links into (or alternates to) the served
    # repository; --template=: no sample hooks to copy for every item.
    _git("clone", "--quiet", "--no-local", "--template=", source, str(target), identity=identity)
    _git("remote", "set-url", "origin", url, cwd=target)
    logs = target / ".git" / "logs"
    for log in logs.rglob("*"):
        if log.is_file():
            log.write_text(log.read_text(encoding="utf-8").replace(source, url), encoding="utf-8")
