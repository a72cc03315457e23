"""An item's working copy: a clone of its world's repository on the default branch, with
``origin`` at the sandbox, as a CI checkout has.

``git clone`` costs tens of milliseconds, and nearly every item starts from the same
repository, so a process clones each distinct repository (the same branches, tags and HEAD)
once into a template, and items get copies of it: the pack files, which git never changes, are
hard-linked; everything else (the working tree above all) is copied. A clone names its source
only in text (``origin``'s URL, the reflog), and the template's say the sandbox's URL, so a
copy refers to nothing on the serving side.

Making and deleting a few dozen files is not free (tens of milliseconds on some file systems),
so a background thread keeps one copy of each template ready, which an item takes by renaming
it into place, and deletes the checkouts of finished items (:func:`discard`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from pytest_ghxbench.sandbox.git.repo import GitError, GitRepo, scratch_root

__all__ = ["discard", "make_checkout"]

_MAX_TEMPLATES = 8
_CLONED = ("refs/heads/", "refs/tags/")
_Key = tuple[object, ...]

_lock = threading.Lock()
_worker_lock = threading.Lock()
_templates: dict[_Key, Path] = {}
_spares: dict[_Key, Path | None] = {}
"""One ready copy per template (None while the background thread makes it)."""
_names = itertools.count(1)
_jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
_worker: threading.Thread | None = None


def make_checkout(repo: GitRepo, target: Path, url: str, identity: tuple[str, str]) -> None:
    """Make ``target`` (which must not exist) a clone of ``repo`` whose ``origin`` is ``url``;
    ``identity``: the ``(name, email)`` the clone's reflog records."""
    cloned = sorted((n, s) for n, s in repo.refs().items() if n.startswith(_CLONED))
    key = (url, identity, repo.head_ref(), tuple(cloned))
    with _lock:
        template = _templates.get(key)
        if template is None and len(_templates) < _MAX_TEMPLATES:
            template = _place("t")
            _clone(repo, template, url, identity)
            _templates[key] = template
        spare = _spares.get(key)
        if template is not None and (spare is not None or key not in _spares):
            _spares[key] = None  # taken, or never made: make the next one
            _submit(functools.partial(_make_spare, key, template))
    target.parent.mkdir(parents=True, exist_ok=True)
    if spare is not None:
        try:
            os.rename(spare, target)
            return
        except OSError:
            _submit(functools.partial(shutil.rmtree, spare, True))  # another file system
    if template is None:
        _clone(repo, target, url, identity)
    else:
        _copy_tree(template, target)


def discard(checkout: Path) -> None:
    """Delete a checkout no longer needed, in the background."""
    if not checkout.exists():
        return
    trash = _place("trash")
    try:
        os.rename(checkout, trash)
    except OSError:
        return  # another file system: its owner deletes it with the rest of its directory
    _submit(functools.partial(shutil.rmtree, trash, True))


def _place(kind: str) -> Path:
    where = scratch_root() / "checkouts"
    where.mkdir(exist_ok=True)
    return where / f"{kind}{next(_names)}"


def _make_spare(key: _Key, template: Path) -> None:
    spare = _place("s")
    try:
        _copy_tree(template, spare)
    except OSError:
        shutil.rmtree(spare, ignore_errors=True)
        with _lock:
            _spares.pop(key, None)
        return
    with _lock:
        _spares[key] = spare


def _submit(job: Callable[[], None]) -> None:
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = threading.Thread(target=_work, name="ghxbench-checkouts", daemon=True)
            _worker.start()
            atexit.register(_stop)  # runs before scratch_root's clean-up, registered earlier
    _jobs.put(job)


def _work() -> None:
    while (job := _jobs.get()) is not None:
        # A chore that fails is only a missed speed-up (or a directory left for exit).
        with contextlib.suppress(Exception):
            job()


def _stop() -> None:
    if _worker is not None:
        _jobs.put(None)
        _worker.join(timeout=10)


def _copy_tree(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target, symlinks=True, copy_function=_copy)


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
