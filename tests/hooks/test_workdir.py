"""The per-process scratch directory is empty at the start of every attempt."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pytest_ghxbench.hooks.session import GhxSession


def _session() -> Any:
    # fresh_workdir only uses `extra`; the rest of the session is irrelevant here.
    fake = SimpleNamespace(extra={})
    fake.fresh_workdir = GhxSession.fresh_workdir.__get__(fake)
    return fake


def test_files_left_by_an_attempt_are_gone_at_the_next() -> None:
    session = _session()
    first = session.fresh_workdir()
    (first / "scratch.txt").write_text("left behind")
    (first / "sub").mkdir()
    (first / "sub" / "deep.txt").write_text("x")
    second = session.fresh_workdir()
    assert second == first and list(second.iterdir()) == []


def test_a_file_created_right_after_cleanup_is_still_noticed() -> None:
    # Directory mtimes come from a coarse clock; a change in the same tick must not be missed.
    session = _session()
    workdir = session.fresh_workdir()
    for i in range(50):
        (workdir / f"f{i}").write_text("x")
        workdir = session.fresh_workdir()
        assert list(workdir.iterdir()) == []


def test_a_file_created_long_after_cleanup_is_noticed_by_the_mtime() -> None:
    session = _session()
    workdir: Path = session.fresh_workdir()
    time.sleep(0.15)  # past the listing window: only the stat is consulted
    assert list(session.fresh_workdir().iterdir()) == []
    (workdir / "late.txt").write_text("x")
    assert list(session.fresh_workdir().iterdir()) == []


def test_a_removed_directory_is_recreated() -> None:
    session = _session()
    workdir = session.fresh_workdir()
    workdir.rmdir()
    again = session.fresh_workdir()
    assert again.is_dir() and list(again.iterdir()) == []
