from __future__ import annotations

from pytest_ghxbench.render.markdown import render_markdown
from tests.summaries import bare_summary


def _table_row(markdown: str, first_cell: str, after: str = "") -> list[str]:
    for line in markdown[markdown.index(after) :].splitlines():
        if line.startswith(f"| {first_cell} |"):
            return [cell.strip() for cell in line.strip("|").split(" | ")]
    raise AssertionError(f"no table row starting with {first_cell!r}")


def test_headline_of_a_failed_gate_names_the_failing_checks(summary):
    first_line = render_markdown(summary).splitlines()[0]
    assert first_line.startswith("## ❌")
    assert "`verify_pr` failed" in first_line
    assert "2 of 4 checks failed: `efficiency_coverage`, `efficiency_cost_reduction`" in first_line


def test_headline_of_a_passed_gate(summary):
    summary.gate.passed = True
    first_line = render_markdown(summary).splitlines()[0]
    assert first_line == "## ✅ ghxbench gate `verify_pr` passed (`agent_direct` → `ghx`, 4 checks)"


def test_gate_not_evaluated_shows_the_reason_and_no_checks_table(summary):
    summary.gate = summary.gate.model_copy(
        update={
            "evaluated": False,
            "passed": False,
            "reason": "no rows for mode 'ghx'",
            "checks": [],
            "efficiency": {},
        }
    )
    markdown = render_markdown(summary)
    assert markdown.splitlines()[0] == (
        "## ⚠️ ghxbench gate `verify_pr` not evaluated (`agent_direct` → `ghx`): "
        "no rows for mode 'ghx'"
    )
    assert "### Checks" not in markdown
    assert "### Efficiency" not in markdown


def test_run_information_is_listed(summary):
    markdown = render_markdown(summary)
    assert "- **commit**: `abc123`" in markdown
    assert "- **model**: `openai/gpt-test`" in markdown
    assert "- **generated at**: `2026-03-04T12:00:00Z`" in markdown


def test_mode_tables_render_values_and_dashes_for_missing(summary):
    markdown = render_markdown(summary)
    assert _table_row(markdown, "`ghx`")[:9] == [
        "`ghx`", "10", "100.0%", "—", "0.0%", "0.0%", "0.0%", "32,379", "21,757",
    ]  # fmt: skip
    assert "| mode | median total tokens | p95 latency ms |" in markdown
    assert "| `agent_direct` | 120,000 | — | 15,000 | 35.2% | 30,000 | 40,000 |" in markdown


def test_checks_table_shows_value_rule_and_result(summary):
    markdown = render_markdown(summary)
    assert _table_row(markdown, "`efficiency_coverage`") == [
        "`efficiency_coverage`", "50.0%", "≥ 70.0%", "❌ fail",
    ]  # fmt: skip
    assert _table_row(markdown, "`reliability_runner_failure_rate`") == [
        "`reliability_runner_failure_rate`", "0.0%", "≤ 7.0%", "✅ pass",
    ]  # fmt: skip
    assert _table_row(markdown, "`reliability_success_rate_non_inferior`")[1:3] == [
        "+10.0 pp", "≥ -3.0 pp",
    ]  # fmt: skip


def test_efficiency_details_include_confidence_intervals_when_known(summary):
    markdown = render_markdown(summary)
    assert "- **Coverage**: 50.0% (1 of 2 scenarios eligible)" in markdown
    assert "- **Median active-token reduction**: 18.5% (95% CI 8.0% to 25.0%)" in markdown
    assert "- **Median latency reduction**: 53.6%\n" in markdown
    assert "- **Smallest per-scenario cost reduction**: —" in markdown


def test_efficiency_per_scenario_shows_eligibility_and_reductions(summary):
    markdown = render_markdown(summary)
    assert "#### Efficiency per scenario (2 scenarios)" in markdown
    assert _table_row(markdown, "`pr-view-001`", after="#### Efficiency") == [
        "`pr-view-001`", "yes", "4 / 5", "18.5%", "53.6%", "73.3%", "—",
    ]  # fmt: skip
    assert _table_row(markdown, "`issue-view-001`", after="#### Efficiency") == [
        "`issue-view-001`", "no", "1 / —", "—", "—", "—", "—",
    ]  # fmt: skip


def test_reliability_puts_baseline_and_candidate_side_by_side(summary):
    markdown = render_markdown(summary)
    assert "| metric | `agent_direct` | `ghx` |" in markdown
    assert "| runs | 10 | 10 |" in markdown
    assert "| success rate | 90.0% | 100.0% |" in markdown
    assert "- **success rate delta pp**: +10.0 pp" in markdown


def test_short_scenario_table_is_open_and_long_one_is_folded(summary):
    markdown = render_markdown(summary)
    assert "### Scenarios" in markdown
    assert "<details>" not in markdown
    assert _table_row(markdown, "`pr-view-001`", after="### Scenarios")[:5] == [
        "`pr-view-001`", "`agent_direct`", "5", "80.0%", "—",
    ]  # fmt: skip

    summary.scenarios = {
        f"issue-{n:03d}": {"agent_direct": {"runs": 3}, "ghx": {"runs": 3}} for n in range(10)
    }
    folded = render_markdown(summary)
    assert "<details>\n<summary>Per-scenario results (10 scenarios)</summary>" in folded
    assert folded.count("| `ghx` | 3 |") == 10
    assert folded.rstrip().endswith("</details>")


def test_table_cells_escape_pipes(summary):
    summary.modes["a|b"] = {"runs": 1}
    assert "| `a\\|b` | 1 |" in render_markdown(summary)


def test_a_summary_of_no_rows_still_renders():
    markdown = render_markdown(bare_summary())
    assert markdown.startswith(
        "## ⚠️ ghxbench gate `verify_pr` not evaluated (`agent_direct` → `ghx`): no rows for "
    )
    assert "No rows." in markdown
    assert "### Checks" not in markdown and "### Scenarios" not in markdown


def test_scenarios_show_pass_hat_k_next_to_the_success_rate(summary):
    summary.scenarios["pr-view-001"]["agent_direct"].update(pass_hat_k=0.0, pass_k=5)
    markdown = render_markdown(summary)
    header = _table_row(markdown, "scenario", after="### Scenarios")
    assert header[2:5] == ["runs", "success", "pass^k"]
    row = _table_row(markdown, "`pr-view-001`", after="### Scenarios")
    assert row[2:5] == ["5", "80.0%", "0.0%"]


def test_run_blocks_such_as_the_budget_are_listed_inline(summary):
    summary.run["budget"] = {"usd": 0.5, "spent_usd": 0.61, "exhausted": True}
    markdown = render_markdown(summary)
    assert "- **budget**: `usd=0.5, spent_usd=0.61, exhausted=True`" in markdown
