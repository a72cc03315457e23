from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from pytest_ghxbench.records.jsonl import RowSourceError, RowWriter, read_rows
from pytest_ghxbench.records.row import Row


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_each_row_is_a_complete_line_readable_while_the_writer_is_open(tmp_path, make_row):
    path = tmp_path / "deep" / "rows" / "run.jsonl"
    with RowWriter(path) as writer:
        writer.write(make_row(scenario_id="a-001"))
        first = read_rows([path])
        assert [row.scenario_id for row in first.rows] == ["a-001"]
        assert path.read_bytes().endswith(b"\n")

        writer.write(Row.model_validate(make_row(scenario_id="b-001", mode="mcp")))
        second = read_rows([path])
        assert [(row.scenario_id, row.mode) for row in second.rows] == [
            ("a-001", "ghx"),
            ("b-001", "mcp"),
        ]
        assert second.problems == []
    assert writer.closed


def test_writer_appends_to_an_existing_file_and_keeps_extra_fields(tmp_path, make_row):
    path = tmp_path / "rows.jsonl"
    with RowWriter(path) as writer:
        writer.write(make_row(iteration=1))
    with RowWriter(path) as writer:
        writer.write(make_row(iteration=2, item_id="pr-view-001[ghx-r2]", adapter="oracle"))
    rows = read_rows([path]).rows
    assert [row.iteration for row in rows] == [1, 2]
    assert rows[1].model_extra == {"item_id": "pr-view-001[ghx-r2]", "adapter": "oracle"}
    assert len(_lines(path)) == 2


def test_writer_rejects_a_mapping_that_is_not_a_row_naming_the_field(tmp_path, make_row):
    row = make_row()
    del row["success"]
    with RowWriter(tmp_path / "rows.jsonl") as writer, pytest.raises(ValueError, match="success"):
        writer.write(row)
    assert (tmp_path / "rows.jsonl").read_bytes() == b""


def test_writing_after_close_is_an_error(tmp_path, make_row):
    writer = RowWriter(tmp_path / "rows.jsonl")
    writer.close()
    writer.close()  # closing twice is harmless
    with pytest.raises(ValueError, match="closed"):
        writer.write(make_row())


def test_concurrent_writers_never_interleave_lines(tmp_path, make_row):
    path = tmp_path / "rows.jsonl"
    writer = RowWriter(path)
    long_text = "x" * 3000  # long lines make interleaving visible if writes were split

    def produce(thread: int) -> None:
        for iteration in range(25):
            writer.write(make_row(scenario_id=f"t{thread}-001", iteration=iteration, pad=long_text))

    threads = [threading.Thread(target=produce, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.close()
    result = read_rows([path])
    assert result.problems == []
    assert len(result.rows) == 150
    assert {(row.scenario_id, row.iteration) for row in result.rows} == {
        (f"t{n}-001", i) for n in range(6) for i in range(25)
    }


_KILLED_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from pytest_ghxbench.records.jsonl import RowWriter

    row = {
        "timestamp": "t", "run_id": "r", "mode": "ghx", "scenario_id": "s-001",
        "success": True, "output_valid": True, "pad": "y" * 2000,
    }
    writer = RowWriter(Path(sys.argv[1]))
    iteration = 0
    while True:
        row["iteration"] = iteration
        writer.write(row)
        iteration += 1
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_writer_killed_mid_loop_leaves_only_complete_lines(tmp_path):
    path = tmp_path / "rows.jsonl"
    process = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(path)])
    try:
        # Waiting on the writer, not timing it: only its exit (or a hang) ends the wait early.
        deadline = time.monotonic() + 600
        while process.poll() is None and time.monotonic() < deadline:
            if path.exists() and path.read_bytes().count(b"\n") >= 20:
                break
            time.sleep(0.01)
        else:
            pytest.fail(f"the writer subprocess wrote no 20 rows (exit status {process.poll()})")
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL

    content = path.read_bytes()
    result = read_rows([path])
    if not content.endswith(b"\n"):
        # Linux may cut a write() that spans pages when SIGKILL arrives mid-copy: the only
        # possible damage is an unterminated last line, which is reported, never misread.
        (problem,) = result.problems
        assert problem.line == content.count(b"\n") + 1
        assert "truncated last line" in problem.message
    else:
        assert result.problems == []
    iterations = [row.iteration for row in result.rows]
    assert len(iterations) >= 20
    assert iterations == list(range(len(iterations)))


def test_a_new_writer_isolates_a_fragment_left_by_a_crash(tmp_path, make_row):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(make_row(iteration=1)) + "\n" + '{"timestamp": "t", "run_', "utf-8")
    with RowWriter(path) as writer:
        writer.write(make_row(iteration=2))
    result = read_rows([path])
    assert [row.iteration for row in result.rows] == [1, 2]
    assert [(problem.line, "invalid JSON" in problem.message) for problem in result.problems] == [
        (2, True)
    ]


def test_typescript_rows_are_mapped_to_current_names(tmp_path, make_row):
    legacy = make_row(mode="ghx_router", retry_count=2)
    for field in ("scenario_set", "internal_retry_count", "external_retry_count"):
        del legacy[field]
    baseline = make_row(mode="baseline", retry_count=0)
    path = tmp_path / "ts.jsonl"
    path.write_text(json.dumps(legacy) + "\n" + json.dumps(baseline) + "\n", "utf-8")

    result = read_rows([path])

    assert result.problems == []
    ghx, agent_direct = result.rows
    assert (ghx.mode, ghx.external_retry_count, ghx.internal_retry_count) == ("ghx", 2, 0)
    assert ghx.scenario_set is None
    assert "retry_count" not in (ghx.model_extra or {})
    assert agent_direct.mode == "agent_direct"


def test_mode_aliases_extend_and_override_the_defaults(tmp_path, make_row):
    path = tmp_path / "rows.jsonl"
    rows = [make_row(mode=mode) for mode in ("baseline", "ghx_router", "github_mcp")]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")

    result = read_rows([path], mode_aliases={"baseline": "gh_cli", "github_mcp": "mcp"})

    assert [row.mode for row in result.rows] == ["gh_cli", "ghx", "mcp"]


def test_malformed_lines_are_reported_with_file_and_line_and_good_rows_kept(tmp_path, make_row):
    missing_success = make_row(iteration=3)
    del missing_success["success"]
    bad_tokens = make_row(iteration=4)
    bad_tokens["tokens"]["total"] = "lots"
    lines = [
        json.dumps(make_row(iteration=1)),
        "{not json",
        "",
        "[1, 2, 3]",
        json.dumps(missing_success),
        json.dumps(bad_tokens),
        json.dumps(make_row(iteration=2)),
        '{"timestamp": "2026-03-03T1',  # truncated: no newline at the end
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines), "utf-8")

    result = read_rows([path])

    assert [row.iteration for row in result.rows] == [1, 2]
    assert [problem.line for problem in result.problems] == [2, 4, 5, 6, 8]
    messages = [problem.message for problem in result.problems]
    assert messages[0].startswith("invalid JSON")
    assert "expected a JSON object, got list" in messages[1]
    assert "missing required field 'success'" in messages[2]
    assert "'tokens.total'" in messages[3]
    assert messages[4].startswith("truncated last line")
    assert str(result.problems[0]) == f"{path}:2: {messages[0]}"


def test_directories_contribute_rows_and_csv_files_but_not_transcripts(tmp_path, make_row):
    results = tmp_path / ".ghxbench"
    (results / "rows").mkdir(parents=True)
    (results / "transcripts" / "run_1").mkdir(parents=True)
    (results / "rows" / "b.jsonl").write_text(json.dumps(make_row(scenario_id="b-001")) + "\n")
    (results / "rows" / "a.jsonl").write_text(json.dumps(make_row(scenario_id="a-001")) + "\n")
    (results / "transcripts" / "run_1" / "t.jsonl").write_text('{"role": "user"}\n')
    (results / "summary.json").write_text("{}")
    csv_text = (
        "run_id,scenario_id,mode,success,output_valid,timing_wall_ms\n"
        "run_1,c-001,baseline,true,true,10\n"
    )
    (results / "eval.csv").write_text(csv_text)

    result = read_rows([results])

    assert result.problems == []
    assert [row.scenario_id for row in result.rows] == ["c-001", "a-001", "b-001"]
    assert result.files == [
        results / "eval.csv",
        results / "rows" / "a.jsonl",
        results / "rows" / "b.jsonl",
    ]


def test_glob_patterns_are_expanded_and_missing_paths_are_errors(tmp_path, make_row):
    for name in ("one", "two"):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(make_row(run_id=name)) + "\n")
    result = read_rows([str(tmp_path / "*.jsonl")])
    assert [row.run_id for row in result.rows] == ["one", "two"]

    with pytest.raises(RowSourceError, match=r"missing\.jsonl"):
        read_rows([tmp_path / "missing.jsonl"])
    with pytest.raises(RowSourceError, match=r"no files match the pattern .*\*\.csv"):
        read_rows([str(tmp_path / "*.csv")])
