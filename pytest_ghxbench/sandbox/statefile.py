"""Sandbox state files: a world on disk (``ghxbench sandbox init``, and ``serve``/``run`` with
``--state``).

A state file is JSON: ``{"format": "ghxbench-sandbox-state", "version": 2, "world": {...}}``,
with the world's git repository beside it (``STATE.git``, a bare repository that commands read
and push to in place).
Writers hold an exclusive lock while they save (:func:`locked_state`): ``fcntl.flock`` on a
sidecar file (``STATE.lock``), never on the state file itself, because saving replaces the
state file (:func:`save_world` writes a temporary file beside it and ``os.replace``-s it), and a
lock on a replaced inode would protect nothing. The sidecar is never deleted: removing a lock
file while another process waits on it would let two processes hold "the" lock at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from pytest_ghxbench import bounded_json
from pytest_ghxbench.sandbox.git import GitError, GitRepo
from pytest_ghxbench.sandbox.git.commands import standalone_copy
from pytest_ghxbench.sandbox.state import World

__all__ = [
    "STATE_FORMAT",
    "StateFileError",
    "init_state",
    "load_world",
    "lock_path",
    "locked_state",
    "repo_path",
    "save_world",
]

STATE_FORMAT = "ghxbench-sandbox-state"
_VERSION = 2


class StateFileError(Exception):
    """The state file is missing, unreadable or not a sandbox state (the message says which)."""


def repo_path(path: Path) -> Path:
    """The git repository of the state at ``path``."""
    return path.with_name(path.name + ".git")


def lock_path(path: Path) -> Path:
    """The sidecar lock file of the state at ``path``."""
    return path.with_name(path.name + ".lock")


@contextmanager
def locked_state(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of the state at ``path`` (blocking until it is free).

    Not reentrant: ``flock`` locks belong to open file descriptions, so a second
    ``locked_state`` on the same path in the same process waits forever.
    """
    try:
        fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StateFileError(f"{path}: cannot open lock file {lock_path(path)}: {exc}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def load_world(path: Path) -> World:
    """Read the world stored at ``path``; errors name the file and what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StateFileError(
            f"{path}: sandbox state file not found (create one with 'ghxbench sandbox init')"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StateFileError(f"{path}: cannot read sandbox state: {exc}") from exc
    try:
        document = bounded_json.loads(text)
    except json.JSONDecodeError as exc:
        raise StateFileError(
            f"{path}: line {exc.lineno} column {exc.colno}: invalid JSON in sandbox state: "
            f"{exc.msg}"
        ) from None
    if not isinstance(document, dict) or document.get("format") != STATE_FORMAT:
        raise StateFileError(
            f'{path}: not a sandbox state file (expected an object with "format": "{STATE_FORMAT}")'
        )
    if document.get("version") != _VERSION:
        raise StateFileError(
            f"{path}: sandbox state version {document.get('version')!r} is not supported "
            f"(expected {_VERSION}; make a new one with 'ghxbench sandbox init')"
        )
    try:
        world = World.model_validate(document.get("world"))
    except ValidationError as exc:
        problems = "; ".join(
            f"world.{'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
            for error in exc.errors()[:5]
        )
        raise StateFileError(f"{path}: invalid sandbox world: {problems}") from None
    repo = repo_path(path)
    if not (repo / "HEAD").is_file():
        raise StateFileError(
            f"{path}: its git repository {repo} is missing (make a new state with "
            "'ghxbench sandbox init')"
        )
    world.attach_git(GitRepo(repo))
    return world


def save_world(path: Path, world: World) -> None:
    """Write ``world`` to ``path`` atomically: readers see the old file or the new one.

    No fsync: a state lives as long as one benchmark item, so surviving a power cut does not
    matter, while replacing the file atomically (what concurrent readers rely on) does.
    """
    body = world.model_dump_json()
    text = f'{{"format":"{STATE_FORMAT}","version":{_VERSION},"world":{body}}}\n'
    directory = path.parent
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise StateFileError(f"{path}: cannot write sandbox state: {exc}") from exc
    try:
        # mkstemp makes the file 0600; keep the mode of the state being replaced instead.
        os.fchmod(fd, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise StateFileError(f"{path}: cannot write sandbox state: {exc}") from exc
        raise


def init_state(path: Path, seed: Path | None = None) -> World:
    """Write a fresh world seeded from ``seed`` (default: the shipped seed) to ``path``,
    replacing any state there."""
    # Imported here: the seed's YAML machinery is not needed by the gh/ghx calls that only
    # load and save states, and those run once per agent command.
    from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world

    world = fresh_world(DEFAULT_SEED if seed is None else seed)
    with locked_state(path):
        repo = repo_path(path)
        if repo.exists():
            shutil.rmtree(repo)
        try:
            standalone_copy(world.git, repo)
        except GitError as exc:
            raise StateFileError(f"{path}: cannot write its git repository {repo}: {exc}") from exc
        world.attach_git(GitRepo(repo))
        save_world(path, world)
    return world
