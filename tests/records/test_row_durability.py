"""RowWriter's group commit: lines are in the file at once, fsync follows and close waits for it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.records.jsonl import RowWriter, read_rows


def test_every_written_row_is_fsynced_by_sync_and_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_row: Callable[..., dict[str, Any]]
) -> None:
    synced_sizes: list[int] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        real_fsync(fd)
        synced_sizes.append(os.fstat(fd).st_size)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    path = tmp_path / "rows.jsonl"
    writer = RowWriter(path)
    for i in range(50):
        writer.write(make_row(iteration=i))
        # the line is in the file the moment write returns, before any fsync
        assert path.read_text().count("\n") == i + 1
    writer.sync()
    assert synced_sizes and synced_sizes[-1] == path.stat().st_size
    writer.write(make_row(iteration=99))
    writer.close()
    assert synced_sizes[-1] == path.stat().st_size
    assert len(read_rows([path]).rows) == 51


def test_concurrent_writers_never_interleave_lines(
    tmp_path: Path, make_row: Callable[..., dict[str, Any]]
) -> None:
    path = tmp_path / "rows.jsonl"
    writer = RowWriter(path)

    def burst(offset: int) -> None:
        for i in range(100):
            writer.write(make_row(iteration=offset + i))

    threads = [threading.Thread(target=burst, args=(k * 1000,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.close()
    result = read_rows([path])
    assert not result.problems
    assert sorted(r.iteration for r in result.rows) == sorted(
        k * 1000 + i for k in range(4) for i in range(100)
    )


@pytest.mark.timeout(600)  # a hang guard: waiting out the pause would take hours
def test_sync_and_close_do_not_wait_out_the_gathering_pause(
    tmp_path: Path, make_row: Callable[..., dict[str, Any]]
) -> None:
    # Between fsyncs the thread lets rows gather; a caller that needs them on disk now
    # (sync, close) cuts the pause short instead of waiting up to sync_interval_s.
    path = tmp_path / "rows.jsonl"
    writer = RowWriter(path, sync_interval_s=6 * 3600.0)
    for i in range(3):
        writer.write(make_row(iteration=i))
        writer.sync()
    writer.write(make_row(iteration=3))
    writer.close()
    assert len(read_rows([path]).rows) == 4
