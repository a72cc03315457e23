"""Long runs: budgets stop new items, a live status line, the benchmark in junitxml."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_ghxbench.hooks import progress
from pytest_ghxbench.options import Settings
from tests.plugin.support import atomic, read_rows, setup_project, summary

SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 5)]
FIXED = {"*": {"*": {"cost": 0.01, "tokens": {"input": 1000, "output": 100, "cache_read": 5000}}}}

needs_budget_options = pytest.mark.skipif(
    "budget_usd" not in getattr(Settings, "__dataclass_fields__", {}),
    reason="--ghx-budget-usd/--ghx-budget-tokens are not declared (option_specs.py, options.py)",
)


def _skip_reasons(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("SKIPPED")]


@needs_budget_options
def test_a_usd_budget_stops_new_items_exactly_in_one_process(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=FIXED)
    result = pytester.runpytest("--ghx-mode=ghx", "--reps=2", "--ghx-budget-usd=0.025", "-rs")
    # 0.01 + 0.01 < 0.025: a third item starts; 0.03 >= 0.025: nothing after it
    result.assert_outcomes(passed=3, skipped=5)
    assert len(read_rows(pytester)) == 3
    assert result.ret == 1
    reason = "ghxbench budget: $0.03 of --ghx-budget-usd=0.025 spent before this item"
    assert _skip_reasons(result) == [
        f"SKIPPED [1] scenarios/repo-view-002.json: {reason}",
        f"SKIPPED [2] scenarios/repo-view-003.json: {reason}",
        f"SKIPPED [2] scenarios/repo-view-004.json: {reason}",
    ]
    result.stdout.fnmatch_lines(
        [
            "budget: $0.03 of $0.025 spent; 5 item(s) not started",
            "*verdict*-> exit 1 (incomplete: 3 of 8 items ran (budget exhausted))",
        ]
    )
    run = summary(pytester)["run"]
    assert run["budget"] == {
        "usd": 0.025,
        "tokens": None,
        "spent_usd": 0.03,
        "spent_tokens": 3 * 1100,  # active: cache reads do not count
        "exhausted": True,
        "skipped_items": 5,
    }
    assert run["exit_status"] == 1 and "incomplete: 3 of 8 items ran" in run["verdict"]
    assert not (Path(run["run_dir"]) / ".spend").exists()


@needs_budget_options
def test_a_token_budget_counts_active_tokens(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=FIXED)
    result = pytester.runpytest("--ghx-mode=ghx", "--ghx-budget-tokens=2000", "-rs")
    result.assert_outcomes(passed=2, skipped=2)  # 1,100 then 2,200 active tokens
    assert result.ret == 1
    assert _skip_reasons(result)[0].endswith(
        "ghxbench budget: 2,200 active tokens of --ghx-budget-tokens=2000 spent before this item"
    )
    budget = summary(pytester)["run"]["budget"]
    assert budget["spent_tokens"] == 2200 and budget["usd"] is None and budget["tokens"] == 2000


@needs_budget_options
def test_a_budget_never_reached_changes_nothing(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS, behaviour=FIXED)
    result = pytester.runpytest(
        "--ghx-mode=ghx", "--ghx-budget-usd=10", "--ghx-budget-tokens=1000000"
    )
    result.assert_outcomes(passed=4)
    assert result.ret == 0
    assert "incomplete" not in result.stdout.str()
    result.stdout.fnmatch_lines(["budget: $0.04 of $10.00, 4,400 of 1,000,000 active tokens*"])
    budget = summary(pytester)["run"]["budget"]
    assert budget["exhausted"] is False and budget["skipped_items"] == 0


def test_without_a_budget_the_summary_has_no_budget_block(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS[:1], behaviour=FIXED)
    assert pytester.runpytest("--ghx-mode=ghx").ret == 0
    assert "budget" not in summary(pytester)["run"]


@needs_budget_options
def test_a_budget_under_xdist_starts_at_most_one_item_per_worker_more(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    behaviour = {"*": {"*": {**FIXED["*"]["*"], "sleep": 0.2}}}
    setup_project(pytester, SCENARIOS, behaviour=behaviour)
    result = pytester.runpytest(
        "--ghx-mode=ghx",
        "--reps=3",
        "--ghx-budget-usd=0.035",
        "-p",
        "xdist",
        "-n",
        "2",
        "--junitxml=out.xml",
    )
    ran = len(read_rows(pytester))
    # the 4th row reaches the budget; the other worker may be running one more item then
    assert 4 <= ran <= 5, result.stdout.str()
    result.assert_outcomes(passed=ran, skipped=12 - ran)
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"*(incomplete: {ran} of 12 items ran (budget exhausted))"])
    budget = summary(pytester)["run"]["budget"]
    assert budget["skipped_items"] == 12 - ran and budget["exhausted"]
    assert budget["spent_usd"] == pytest.approx(0.01 * ran)

    cases = _testcases(pytester.path / "out.xml")
    gate = cases.pop("ghxbench.gate")
    failure = gate.find("failure")
    assert failure is not None and "budget exhausted" in failure.get("message", "")
    skipped = [c for c in cases.values() if c.find("skipped") is not None]
    assert len(skipped) == 12 - ran
    assert "ghxbench budget: $0.04 of --ghx-budget-usd=0.035" in skipped[0][0].get("message", "")
    ran_cases = [c for c in cases.values() if c.find("skipped") is None]
    assert len(ran_cases) == ran
    assert all(_properties(c)["cost"] == "0.01" for c in ran_cases)  # from the workers


def _testcases(path: Path) -> dict[str, ET.Element]:
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    return {f"{c.get('classname')}.{c.get('name')}": c for c in suite.iter("testcase")}


def _properties(case: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def test_junitxml_has_item_metrics_and_a_failing_gate_testcase(pytester: pytest.Pytester) -> None:
    same = {"*": {"*": {"tokens": {"input": 5000, "output": 100}, "tool_calls": 3, "cost": 0.02}}}
    setup_project(pytester, SCENARIOS[:2], behaviour=same)
    result = pytester.runpytest("--ghx-mode=agent_direct,ghx", "--reps=3", "--junitxml=out.xml")
    result.assert_outcomes(passed=12)  # the gate's testcase is not counted as a test
    assert result.ret == 1
    cases = _testcases(pytester.path / "out.xml")
    assert len(cases) == 13
    gate = cases.pop("ghxbench.gate")
    failure = gate.find("failure")
    assert failure is not None
    verdict = summary(pytester)["run"]["verdict"]
    assert failure.get("message") == verdict and "FAILED" in verdict
    assert "FAIL" in (failure.text or "") and "efficiency_tokens_active_reduction" in failure.text
    assert _properties(gate)["exit_status"] == "1"
    item = cases.popitem()[1]
    assert _properties(item) == {
        "success": "true",
        "output_valid": "true",
        "latency_ms_wall": _properties(item)["latency_ms_wall"],
        "startup_ms": _properties(item)["startup_ms"],
        "tokens_active": "5100",
        "tokens_total": "5100",
        "cost": "0.02",
        "tool_calls": "3",
        "api_calls": "0",
    }
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("tests") == "13"

    # the gate's testcase is no test to rerun: --lf has nothing recorded for it
    lastfailed = pytester.path / ".pytest_cache" / "v" / "cache" / "lastfailed"
    assert not lastfailed.exists() or "ghxbench::gate" not in lastfailed.read_text()


def test_junitxml_of_a_passing_gate_has_a_passing_gate_testcase(pytester: pytest.Pytester) -> None:
    setup_project(pytester, SCENARIOS[:1], behaviour={"*": {"*": {"raise": "agent down"}}})
    # not evaluated (one mode), advisory: pytest's own status (an item failed) decides
    failing = pytester.runpytest("--ghx-mode=ghx", "--junitxml=fail.xml")
    assert failing.ret == 1
    gate = _testcases(pytester.path / "fail.xml")["ghxbench.gate"]
    assert gate.find("failure") is not None
    item = _testcases(pytester.path / "fail.xml")[
        "scenarios.repo-view-001.json.repo-view-001[ghx-r1]"
    ]
    assert _properties(item)["error_type"] == "runner_error"

    (pytester.path / "behaviour.json").write_text(json.dumps(FIXED))
    passing = pytester.runpytest("--ghx-mode=ghx", "--junitxml=pass.xml")
    assert passing.ret == 0
    gate = _testcases(pytester.path / "pass.xml")["ghxbench.gate"]
    assert list(gate.iter("failure")) == [] and list(gate.iter("error")) == []
    assert "NOT EVALUATED" in _properties(gate)["verdict"]
    assert _properties(gate)["exit_status"] == "0"


def test_progress_lines_every_tenth_without_a_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "PLAIN_EVERY_S", 0.0)
    setup_project(pytester, SCENARIOS, behaviour=FIXED)
    result = pytester.runpytest("--ghx-mode=ghx", "--reps=5")
    lines = [line for line in result.outlines if line.startswith("ghxbench progress:")]
    # written where pytest ends a row (after each file's five items), the newest status then
    assert [line.split(" items")[0] for line in lines] == [
        f"ghxbench progress: {n}/20" for n in (4, 10, 14, 20)
    ]
    assert lines[0].startswith("ghxbench progress: 4/20 items | 4,400 active tokens | $0.04 | ETA")
    assert "ETA" not in lines[-1] and lines[-1].endswith("22,000 active tokens | $0.20")
    _pytest_lines_intact(result.outlines, 20)

    quiet = pytester.runpytest("--ghx-mode=ghx", "--reps=5", "-qq")
    assert "ghxbench progress" not in quiet.stdout.str()
    verbose = pytester.runpytest("--ghx-mode=ghx", "--reps=5", "-v")
    assert sum(line.startswith("ghxbench progress:") for line in verbose.outlines) == 10
    assert sum(" PASSED " in line for line in verbose.outlines) == 20


def _pytest_lines_intact(outlines: list[str], items: int) -> None:
    """pytest's rows are what they are without the progress lines: every file once, its
    dots whole, each row ending in its percentage, and no text glued to the dots."""
    assert not any(
        "ghxbench progress" in line and not line.startswith("ghxbench") for line in outlines
    )
    rows = [re.fullmatch(r"(scenarios/\S+ )?(\.+) *(\[ *\d+%\])", line) for line in outlines]
    assert sum(len(row[2]) for row in rows if row) == items
    files = [row[1] for row in rows if row and row[1]]
    assert len(files) == len(set(files))


def test_progress_lines_in_a_ci_log_are_few_and_never_split_pytest_lines(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The spacing (PLAIN_EVERY_S, 30 s by default) leaves a run shorter than it its first line
    # and its last; with -q pytest writes one row of dots, so only the last status is written,
    # after it. (The spacing is made a day long, so that a busy machine's slow run is one too.)
    monkeypatch.setattr(progress, "PLAIN_EVERY_S", 86400.0)
    setup_project(pytester, SCENARIOS, behaviour=FIXED)
    for flags, shown in (((), [2, 20]), (("-q",), [20])):
        result = pytester.runpytest("--ghx-mode=ghx", "--reps=5", *flags)
        lines = [line for line in result.outlines if "ghxbench progress:" in line]
        assert [line.split(" items")[0] for line in lines] == [
            f"ghxbench progress: {n}/20" for n in shown
        ]
        _pytest_lines_intact(result.outlines, 20)


def _render(raw: str) -> list[str]:
    """What a terminal shows for ``raw``: lines after carriage returns, cursor-left and
    erase-to-end-of-line; colours dropped."""
    lines: list[str] = [""]
    col = 0
    for token in re.findall(r"\x1b\[[0-9;]*[A-Za-z]|\x1b\][^\x1b]*\x1b\\|\r\n|.", raw, re.S):
        line = lines[-1]
        if token in ("\n", "\r\n"):
            lines.append("")
            col = 0
        elif token == "\r":
            col = 0
        elif token.startswith("\x1b[") and token.endswith("D"):
            col = max(0, col - int(token[2:-1] or 1))
        elif token == "\x1b[K":
            lines[-1] = line[:col]
        elif token.startswith("\x1b"):
            continue
        else:
            lines[-1] = line[:col].ljust(col) + token + line[col + 1 :]
            col += 1
    return lines


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_the_live_status_line_in_a_terminal_leaves_the_output_as_it_was(
    pytester: pytest.Pytester,
) -> None:
    import pty

    setup_project(pytester, SCENARIOS[:2], behaviour=FIXED)
    main, secondary = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "LINES": "40", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "--ghx-mode=ghx", "--reps=3", "-p", "no:cacheprovider"],
        cwd=pytester.path,
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=env,
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert process.wait(timeout=60) == 0
    raw = b"".join(chunks).decode()
    assert re.search(r" ghxbench [1-6]/6 items \| [\d,]+ tok \| \$0\.0\d", raw), raw
    assert "\x1b[K" in raw
    shown = _render(raw)
    assert not any(" tok |" in line for line in shown), shown  # always erased
    dots = [line for line in shown if line.startswith("scenarios/")]
    assert [line.split(" [")[0].rstrip() for line in dots] == [
        "scenarios/repo-view-001.json ...",
        "scenarios/repo-view-002.json ...",
    ]
    assert dots[-1].endswith("[100%]")
    assert any(line.startswith("ghxbench verdict:") for line in shown)
