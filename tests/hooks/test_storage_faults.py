"""Storage faults are the harness's: the agent's outcome stands, nothing is run twice, and the
session says what was not saved and does not pass."""

from __future__ import annotations

import errno
import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.records import row_writer
from pytest_ghxbench.records.row_writer import RowWriter
from tests.plugin.support import CONFTEST, atomic, read_rows, setup_project, summary

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]
EFFICIENT = {
    "*": {
        "agent_direct": {
            "tokens": {"input": 9000, "output": 400},
            "tool_calls": 5,
            "latency_ms": 15000,
            "cost": 0.04,
        },
        "ghx": {"tokens": {"input": 3000, "output": 200}, "tool_calls": 2, "latency_ms": 6000},
    }
}
ARGS = ("--ghx-mode=agent_direct,ghx", "--reps=3", "--gate-profile=verify_pr")

# The transcripts folder of the run cannot be made: a file holds its name.
TRANSCRIPTS_BLOCKED = textwrap.dedent(
    """
    from pytest_ghxbench.hooks.keys import SESSION_KEY

    def pytest_sessionstart(session):
        ghx = session.config.stash.get(SESSION_KEY, None)
        if ghx is not None and not ghx.transcripts_dir.exists():
            ghx.transcripts_dir.write_text("not a directory")
    """
)

# A disk that fills up during the third row: a short write, then ENOSPC for every write.
FULL_DISK = textwrap.dedent(
    """
    import errno as _errno
    import os as _os
    import pytest_ghxbench.records.row_writer as _row_writer

    class _FullDisk:
        def __init__(self):
            self.rows = 0
            self.full = False

        def __getattr__(self, name):
            return getattr(_os, name)

        def write(self, fd, data):
            if not _os.readlink(f"/proc/self/fd/{fd}").endswith("rows.jsonl"):
                return _os.write(fd, data)
            if self.full:
                raise OSError(_errno.ENOSPC, _os.strerror(_errno.ENOSPC))
            self.rows += 1
            if self.rows == 3:
                self.full = True
                return _os.write(fd, bytes(data[: len(data) // 2]))
            return _os.write(fd, data)

    _row_writer.os = _FullDisk()
    """
)


def _verdict(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.outlines if line.startswith("ghxbench verdict:")]
    return line


def _harness_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("harness error:")]


@pytest.mark.parametrize("xdist", [False, True], ids=["one process", "xdist"])
def test_a_failing_transcript_write_keeps_the_outcome_and_fails_the_run(
    pytester: pytest.Pytester, xdist: bool
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=EFFICIENT)
    pytester.makeconftest(CONFTEST + TRANSCRIPTS_BLOCKED)
    extra = ("-p", "xdist", "-n", "2") if xdist else ()
    if xdist:
        pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess(*ARGS, *extra)
    rows = read_rows(pytester)
    assert len(rows) == 24
    # the agents' answers were right; nobody was asked twice
    assert all(r["success"] and r["error"] is None for r in rows), rows[0]
    assert all(r["external_retry_count"] == 0 for r in rows)
    assert "rerun" not in result.parseoutcomes()
    # and no row points at a transcript record that was never written
    assert all(r.get("transcript") is None for r in rows), rows[0]["transcript"]
    # reported once per file, with the file and the OS error; never a pass
    lines = _harness_lines(result)
    files = {"gw0.jsonl", "gw1.jsonl"} if xdist else {"main.jsonl"}
    assert len(lines) == len(files), result.stdout.str()
    assert {line.split("/transcripts/")[1].split(":")[0] for line in lines} == files
    assert all(" transcript record(s) not written to " in line for line in lines)
    assert all("[Errno " in line for line in lines)
    assert sum(int(line.split()[2]) for line in lines) == 24
    assert result.ret == 1
    verdict = _verdict(result)
    assert "PASSED" not in verdict
    assert "harness error: 24 transcript record(s) not written" in verdict
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert summary(pytester)["run"]["harness_errors"] == lines


def test_a_full_disk_keeps_only_whole_row_lines_and_says_what_was_lost(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, SCENARIOS, behaviour=EFFICIENT)
    pytester.makeconftest(CONFTEST + FULL_DISK)
    result = pytester.runpytest_subprocess(*ARGS)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    (path,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/rows.jsonl")
    data = path.read_bytes()
    assert data.endswith(b"\n")
    assert [json.loads(line)["iteration"] for line in data.splitlines()] == [1, 2]
    (line,) = _harness_lines(result)
    assert line == (
        f"harness error: 22 row(s) not written to {path}: [Errno 28] No space left on device"
    )
    assert result.ret == 1
    assert "harness error: 22 row(s) not written" in _verdict(result)
    # the summary still counts every item the session saw
    assert summary(pytester)["modes"]["ghx"]["runs"] == 12


class _ShortThenFull:
    """``os`` for the row writer: the next write is short, every later one fails (ENOSPC)."""

    def __init__(self) -> None:
        self.full = False

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def write(self, fd: int, data: Any) -> int:
        if self.full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.full = True
        return os.write(fd, bytes(data[: len(data) // 2]))


def test_row_writer_cuts_a_half_written_line_back_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "rows.jsonl"
    with RowWriter(path) as writer:
        writer.write_json_line('{"n":1}')
        monkeypatch.setattr(row_writer, "os", _ShortThenFull())
        with pytest.raises(OSError) as info:
            writer.write_json_line('{"n":2,"padding":"' + "x" * 100 + '"}')
        assert info.value.errno == errno.ENOSPC
        assert path.read_bytes() == b'{"n":1}\n'
        monkeypatch.setattr(row_writer, "os", os)  # space again
        writer.write_json_line('{"n":3}')
    assert path.read_bytes() == b'{"n":1}\n{"n":3}\n'
