"""The sample output in README.md and docs/*.md is what the code prints now.

Each sample is regenerated from a real run by ``scripts/doc_samples.py`` and compared with the
doc (one test per sample id); the rest are unit tests of the comparison and the elision rules.
A failing sample test prints the diff; ``python scripts/doc_samples.py --write --only ID``
rewrites the block.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.paths import REPO_ROOT


def _load_script() -> ModuleType:
    path = REPO_ROOT / "scripts" / "doc_samples.py"
    spec = importlib.util.spec_from_file_location("doc_samples", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their class's module up
    spec.loader.exec_module(module)
    return module


ds = _load_script()


# --------------------------------------------------------------------------------------------
# The docs


def test_every_marker_names_a_sample_and_every_sample_is_marked() -> None:
    assert ds.markup_problems() == []


def _sample_params() -> list[Any]:
    """One param per sample and fact."""
    return [pytest.param(sample_id, id=sample_id) for sample_id in ds.all_ids()]


@pytest.mark.slow
@pytest.mark.parametrize("sample_id", _sample_params())
def test_doc_sample_matches_a_real_run(sample_id: str) -> None:
    finding = ds.check_sample(sample_id)
    if finding is not None and finding.skipped:
        pytest.skip(finding.skipped)
    assert finding is None, (
        f"{finding.report()}\n\nIf the new output is right: "
        f"python scripts/doc_samples.py --write --only {sample_id}"
    )


# --------------------------------------------------------------------------------------------
# Comparison

TABLE = """\
mode             runs  success   valid  med latency ms  med active tok  p90 latency ms
agent_direct       24   100.0%  100.0%           4,982           1,461           9,380
ghx                24   100.0%  100.0%           5,576           1,216          10,002

result  check                                    value  op  threshold
PASS    reliability_success_rate_non_inferior  +0.0 pp  >=    -3.0 pp
...
PASS    efficiency_tokens_active_reduction       15.7%  >=      10.0%
FAIL    efficiency_latency_reduction            -12.1%  >=      10.0%
...
ghxbench verdict: gate verify_pr (ghx vs agent_direct) FAILED (1/10: ...) -> exit 1"""


def _changed(old: str, new: str, text: str = TABLE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_an_identical_block_matches() -> None:
    assert ds.compare(TABLE, TABLE, ds.LATENCY) == []


def test_a_changed_token_count_fails() -> None:
    regenerated = _changed("1,461", "1,462")
    [problem] = ds.compare(TABLE, regenerated, ds.LATENCY)
    assert "1,462" in problem and problem.startswith("line 2:")


def test_timings_are_regenerated_not_compared() -> None:
    assert ds.compare(TABLE, _changed("4,982", "9,700"), ds.LATENCY) == []
    assert ds.compare(TABLE, _changed("10,002", "1,600"), ds.LATENCY) == []
    assert ds.compare(TABLE, _changed("-12.1%", "-48.0%"), ds.LATENCY) == []
    assert ds.compare(TABLE, _changed("-12.1%", " +3.5%"), ds.LATENCY) == []


def test_a_timing_cell_must_still_hold_a_number() -> None:
    assert ds.compare(TABLE, _changed("4,982", "    -"), ds.LATENCY) != []
    assert ds.compare(TABLE, _changed("-12.1%", " n/a"), ds.LATENCY) != []


def test_timings_are_compared_exactly_where_none_are_declared() -> None:
    assert ds.compare(TABLE, _changed("4,982", "4,983")) != []


def test_every_other_number_beside_the_timings_is_exact() -> None:
    # the tokens column and the tokens reduction next to the latency check
    assert ds.compare(TABLE, _changed("1,461", "1,462"), ds.LATENCY) != []
    assert ds.compare(TABLE, _changed("15.7%", "15.8%"), ds.LATENCY) != []
    assert ds.compare(TABLE, _changed("100.0%  100.0%           5,576", "100.0%   99.0%  5,576"))
    # and the latency check's result and threshold
    assert ds.compare(TABLE, _changed("-12.1%  >=      10.0%", "-12.1%  >=      11.0%"))


def test_a_changed_table_row_fails() -> None:
    assert ds.compare(TABLE, _changed("ghx                24", "ghx                23")) != []
    assert ds.compare(TABLE, _changed("100.0%  100.0%           5,576", "100.0%   95.8%  5,576"))
    renamed = _changed("agent_direct       24", "agent_direkt       24")
    assert ds.compare(TABLE, renamed, ds.LATENCY) != []
    rows = TABLE.split("\n")
    swapped = "\n".join([rows[0], rows[2], rows[1], *rows[3:]])
    assert ds.compare(TABLE, swapped, ds.LATENCY) != []
    assert ds.compare(TABLE, "\n".join(rows[:2] + rows[3:]), ds.LATENCY) != []


def test_a_changed_verdict_or_check_result_fails() -> None:
    assert ds.compare(TABLE, _changed("FAIL    efficiency", "PASS    efficiency"), ds.LATENCY)
    assert ds.compare(TABLE, _changed("-> exit 1", "-> exit 0"), ds.LATENCY)


def test_runs_of_spaces_are_collapsed_since_column_widths_follow_numbers() -> None:
    wider = _changed(
        "agent_direct       24   100.0%  100.0%           4,982",
        "agent_direct       24   100.0%  100.0%          14,982",
    )
    assert ds.compare(TABLE, wider) != []  # the number itself differs
    respaced = _changed("PASS    efficiency_tokens", "PASS      efficiency_tokens")
    assert ds.compare(TABLE, respaced) == []
    assert ds.compare(TABLE, _changed("-> exit 1", "->  exit 1")) == []


def test_pytest_durations_are_ignored_where_declared() -> None:
    doc = "...\n" + "=" * 30 + " 12 passed in 0.60s " + "=" * 30
    slower = "...\n" + "=" * 29 + " 12 passed in 12.41s " + "=" * 30
    minutes = "...\n" + "=" * 25 + " 12 passed in 75.02s (0:01:15) " + "=" * 25
    assert ds.compare(doc, slower, [ds.PytestDuration()]) == []
    assert ds.compare(doc, minutes, [ds.PytestDuration()]) == []
    assert ds.compare(doc, slower) != []
    fewer = "...\n" + "=" * 30 + " 11 passed in 0.60s " + "=" * 30
    assert ds.compare(doc, fewer, [ds.PytestDuration()]) != []


# --------------------------------------------------------------------------------------------
# Elision: a regenerated block keeps exactly the doc's "..."

OUTPUT = """\
mode          runs  success
agent_direct    24   100.0%
ghx             24   100.0%

result  check                                    value  op  threshold
PASS    reliability_success_rate_non_inferior  +0.0 pp  >=    -3.0 pp
PASS    reliability_output_validity             100.0%  >=      95.0%
PASS    reliability_runner_failure_rate           0.0%  <=       7.0%
PASS    efficiency_tokens_active_reduction       15.7%  >=      10.0%
FAIL    efficiency_latency_reduction            -12.1%  >=      10.0%

rows: /tmp/x/.ghxbench/rows/run_1.jsonl
summary: /tmp/x/.ghxbench/summary.json
ghxbench verdict: gate verify_pr FAILED -> exit 1
=========================== short test summary info ============================"""

ELIDED_DOC = """\
mode          runs  success
agent_direct    24   100.0%
ghx             24   100.0%

result  check                                    value  op  threshold
PASS    reliability_success_rate_non_inferior  +0.0 pp  >=    -3.0 pp
...
PASS    efficiency_tokens_active_reduction       15.7%  >=      10.0%
FAIL    efficiency_latency_reduction            -12.1%  >=      10.0%
...
ghxbench verdict: gate verify_pr FAILED -> exit 1"""


def test_an_elided_block_matches() -> None:
    shape = ds.chain(
        ds.between(r"^mode\s", r"^ghxbench verdict:"),
        ds.drop(r"^PASS\s+reliability_(output|runner)", r"^(rows|summary): "),
    )
    assert shape(OUTPUT) == ELIDED_DOC
    assert ds.compare(ELIDED_DOC, shape(OUTPUT), ds.LATENCY) == []


def test_the_readme_keeps_failing_checks_and_the_headline_ones() -> None:
    report_line = "report: /tmp/x/.ghxbench/runs/run_1/report.html\n"
    output = OUTPUT.replace("ghxbench verdict", report_line + "ghxbench verdict")
    assert ds.README_SHAPE(output) == ELIDED_DOC


def test_an_elided_json_line_matches() -> None:
    printed = (
        '{"ok":true,"data":{"id":"I_1","number":6,"title":"Is Windows supported?",'
        '"state":"CLOSED","stateReason":"NOT_PLANNED","body":"Long\\ntext","closedAt":"now"}}'
    )
    some = ds.json_fields(["data"], only=["number", "state", "stateReason", "closedAt"])
    assert some(printed) == (
        '{"ok":true,"data":{...,"number":6,...,"state":"CLOSED","stateReason":"NOT_PLANNED",'
        '...,"closedAt":"now"}}'
    )
    first = ds.json_fields(["data"], first=4, hide=["title"])
    assert first(printed) == (
        '{"ok":true,"data":{"id":"I_1","number":6,"title":"...","state":"CLOSED",...}}'
    )
    assert ds.json_fields(["data"], first=4)('{"data":{"t":"é"}}') == '{"data":{"t":"é"}}'
    with pytest.raises(ds.SampleError, match="not compact JSON"):
        ds.json_fields(["data"], first=1)('{"data": {"a": 1}}')


def test_head_keeps_lines_and_marks_the_rest() -> None:
    assert ds.head(2)("a\nb\nc\nd") == "a\nb\n..."
    assert ds.head(2)("a\nb") == "a\nb"


def test_keep_and_list_head() -> None:
    output = "collected 12 items\n\nfile.yaml ....\n\nghxbench verdict: PASSED\n=== 12 passed ==="
    assert ds.keep(r"^ghxbench verdict", r"^===")(output) == (
        "...\nghxbench verdict: PASSED\n=== 12 passed ==="
    )
    message = "unknown key 'x'; valid keys: a, b, c, d"
    assert ds.list_head("valid keys: ", 2)(message) == "unknown key 'x'; valid keys: a, b, ..."


def test_the_serve_block_masks_its_port_paths_and_token() -> None:
    printed = (
        "export HTTP_PROXY=http://127.0.0.1:41234\n"
        "export https_proxy=http://127.0.0.1:41234\n"
        "export SSL_CERT_FILE=/var/tmp/ghxbench-serve-ab_12/ca-bundle.pem\n"
        "export GH_TOKEN=ghs_sbx_0123abcd"
    )
    assert ds.SERVE_SHAPE(printed) == (
        f"export HTTP_PROXY=http://127.0.0.1:{ds.SERVE_PORT}\n...\n"
        "export SSL_CERT_FILE=/tmp/ghxbench-serve-.../ca-bundle.pem\n"
        "export GH_TOKEN=ghs_sbx_..."
    )


# --------------------------------------------------------------------------------------------
# Markup


def test_console_commands_and_continuations() -> None:
    block = "$ ghxbench check scenarios\nold output\n$ pytest -q \\\n    -k pr-view\n..."
    assert ds.console_commands(block) == [
        (["$ ghxbench check scenarios"], "ghxbench check scenarios"),
        (["$ pytest -q \\", "    -k pr-view"], "pytest -q -k pr-view"),
    ]


def test_blocks_are_found_by_their_marker_and_rewritten_in_place(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("Text.\n\n<!-- sample: one -->\n```console\n$ true\nold\n```\n\nMore.\n")
    [block] = ds.read_blocks(doc)
    assert (block.id, block.marker, block.info, block.text) == ("one", 3, "console", "$ true\nold")
    ds.replace_block(block, "$ true\nnew\nlines")
    assert doc.read_text() == (
        "Text.\n\n<!-- sample: one -->\n```console\n$ true\nnew\nlines\n```\n\nMore.\n"
    )


def test_a_marker_must_be_followed_by_a_closed_fence(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- sample: one -->\n\n```text\nx\n```\n")
    with pytest.raises(ds.SampleError, match="not followed by a code fence"):
        ds.read_blocks(doc)
    doc.write_text("<!-- sample: one -->\n```text\nx\n")
    with pytest.raises(ds.SampleError, match="not closed"):
        ds.read_blocks(doc)


def test_a_figure_in_a_wrapped_sentence_is_checked_and_rewritten(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("The agent sees the 84 tools the\nreal MCP server lists.\n")
    fact = ds.Fact("tools", lambda: "85", ((str(doc), r"the (\d+) tools the real MCP server"),))
    finding = ds._check_fact(fact, write=False)
    assert finding is not None
    assert finding.problems == [f"{doc}:1: says '84', the code says '85'"]
    assert ds._check_fact(fact, write=True) is not None
    assert doc.read_text() == "The agent sees the 85 tools the\nreal MCP server lists.\n"
    assert ds._check_fact(fact, write=False) is None
    doc.write_text("The agent sees many tools.\n")
    finding = ds._check_fact(fact, write=False)
    assert finding is not None and "reworded?" in finding.problems[0]


def test_the_list_names_every_sample_with_its_place(capsys: pytest.CaptureFixture[str]) -> None:
    assert ds.main(["--list"]) == 0
    listed = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert listed["readme-gate"].startswith("README.md:")
    assert listed["mcp-tool-count"] == "README.md, docs/oracle.md"
    assert set(listed) == set(ds.all_ids())
