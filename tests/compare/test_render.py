"""The terminal table and the Markdown section of a comparison."""

from __future__ import annotations

from pytest_ghxbench.compare import (
    Comparison,
    ComparisonEntry,
    format_comparison,
    format_comparison_markdown,
)


def entry(
    scenario: str,
    metric: str,
    change: float | None,
    interval: tuple[float, float] | None,
    *,
    base: float | None = 1000,
    after: float | None = 1300,
    mode: str = "ghx",
) -> ComparisonEntry:
    return ComparisonEntry.build(
        scenario_id=scenario,
        mode=mode,
        metric=metric,  # type: ignore[arg-type]
        base_median=base,
        median=after,
        change_pct=change,
        interval=interval,
        base_n=5,
        n=4,
    )


COMPARISON = Comparison(
    base_run="run-a",
    run="run-b",
    entries=[
        entry("s-001", "tokens_active", 30, (20, 40)),
        entry("s-001", "latency_ms", 2, (-5, 9), base=2000.4, after=2040.6),
        entry("s-001", "cost", -50, (-60, -40), base=0.02, after=0.01),
        entry("s-001", "success_rate", -20, (-45, 5), base=100, after=80),
        entry("s-002|x", "tool_calls", None, None, base=0, after=2),
        entry("*", "tokens_active", 30, (20, 40), base=None, after=None),
    ],
    only_in_base=[("s-old", "mcp")],
    only_in_run=[("s-new", "mcp")],
    failed=["s-001 [ghx] tokens_active +30.0% exceeds tokens_active:5%"],
)


def test_the_table_is_aligned_with_a_header_and_a_footer() -> None:
    lines = format_comparison(COMPARISON)
    assert lines[0] == "ghxbench compare: run run-b compared with base run run-a"
    header, *body = lines[1:8]
    assert header.split() == [
        "scenario",
        "mode",
        "metric",
        "before",
        "after",
        "change",
        "interval",
        "n",
    ]
    assert body[0].split() == [
        "s-001",
        "ghx",
        "tokens_active",
        "1,000",
        "1,300",
        "+30.0%",
        "[+20.0%,",
        "+40.0%]",
        "5->4",
        "worse",
    ]
    assert body[1].split()[3:6] == ["2,000", "2,041", "+2.0%"] and body[1].endswith("5->4")
    assert body[2].split()[3:5] == ["$0.0200", "$0.0100"] and body[2].endswith("better")
    assert body[3].split()[3:7] == ["100.0%", "80.0%", "-20.0", "pp"]
    assert body[4].split()[3:8] == ["0", "2", "—", "—", "5->4"]
    assert body[5].startswith("all (median)")
    # the numeric columns are right-aligned: every "n" cell ends in the same column
    ends = {line.index("5->4") for line in body}
    assert len(ends) == 1
    assert lines[8:] == [
        "only in base run (not compared): s-old [mcp]",
        "only in this run (not compared): s-new [mcp]",
        "2 regressions, 1 improvement beyond the noise, 2 within the noise, "
        "1 without an interval (of 6 entries)",
        "FAILED: s-001 [ghx] tokens_active +30.0% exceeds tokens_active:5%",
    ]


def test_only_changes_keeps_the_suite_and_the_changes_beyond_noise() -> None:
    lines = format_comparison(COMPARISON, only_changes=True)
    assert [line.split()[2] for line in lines[2:4]] == ["tokens_active", "cost"]
    assert lines[4].split()[:4] == ["all", "(median)", "ghx", "tokens_active"]
    assert lines[5] == "(3 per-scenario entries not beyond the noise)"


def test_an_empty_comparison_says_so() -> None:
    lines = format_comparison(Comparison(base_run="a", run="b"))
    assert lines[1] == "no scenario x mode is in both runs"
    assert "Comparison" in format_comparison_markdown(Comparison(base_run="a", run="b"))


def test_markdown() -> None:
    text = format_comparison_markdown(COMPARISON)
    lines = text.splitlines()
    assert lines[0] == "## Comparison: run run-b compared with base run run-a"
    assert lines[2].startswith("| scenario | mode | metric |")
    assert lines[3].startswith("| :--- | :--- | :--- | ---: |")
    assert lines[4] == (
        "| s-001 | ghx | tokens_active | 1,000 | 1,300 | +30.0% | [+20.0%, +40.0%] | 5->4 "
        "| **worse** |"
    )
    table = [line for line in lines if line.startswith("| ")]
    assert len(table) == 2 + 3  # header, alignment, two changes and the suite entry
    assert "3 per-scenario entries not beyond the noise." in lines
    assert "- s-001 [ghx] tokens_active +30.0% exceeds tokens_active:5%" in lines
    full = format_comparison_markdown(COMPARISON, only_changes=False)
    assert "| s-002\\|x | ghx | tool_calls |" in full
