"""The report's HTML from real runs: everything present, escaped, offline, degenerate-safe and
small (the transcripts are linked, not embedded)."""

from __future__ import annotations

import copy
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import ValidationError

from pytest_ghxbench.compare import compare_runs
from pytest_ghxbench.metrics.bootstrap import bootstrap_median_reduction_ci
from pytest_ghxbench.metrics.profiles import build_profiles
from pytest_ghxbench.metrics.summary import build_summary
from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.records.models import RunSummary
from pytest_ghxbench.records.reading import item_transcript
from pytest_ghxbench.records.row import Row
from pytest_ghxbench.records.store import RunDir
from pytest_ghxbench.render.html import render_report, write_report
from pytest_ghxbench.render.html.intervals import forest_data
from pytest_ghxbench.render.html.items import REASON_LIMIT, SHORT_REASON_LIMIT, build_items
from pytest_ghxbench.render.html.run_report import write_run_report
from tests.render.html.conftest import HOSTILE, RunFiles
from tests.render.html.dom import Node, parse
from tests.summaries import bare_summary

# A URL a page would fetch: in an attribute that loads something, or in CSS url().
REMOTE = re.compile(
    r"""(?:\b(?:src|href|srcset|action|poster|data|background|xlink:href)\s*=\s*["']?\s*"""
    r"""(?:https?:)?//)|url\(\s*["']?\s*(?:https?:)?//|@import""",
    re.IGNORECASE,
)


def render(run: RunFiles, **kwargs: Any) -> str:
    return render_report(run.summary, run.items, **kwargs)


@pytest.fixture(scope="module")
def default_html(default_run: RunFiles) -> str:
    return render(default_run)


@pytest.fixture(scope="module")
def breaking_html(breaking_run: RunFiles) -> str:
    return render(breaking_run)


def item_rows(page: Node) -> list[Node]:
    return page.by_id("items").find_all("tr", data_mode=True)


def plot_notes(page: Node) -> dict[str, str]:
    """Each figure's "no data" note ("" when it has an SVG)."""
    return {
        str(figure.attrs["data-plot"]): " ".join(
            node.text for node in figure.find_all("p", **{"class": "no-data"})
        )
        for figure in page.by_id("plots").find_all("figure")
    }


def test_every_item_is_a_row_with_its_mode_scenario_and_outcome(
    default_run: RunFiles, default_html: str
) -> None:
    page = parse(default_html)
    rows = {row.attrs["data-item-id"]: row for row in item_rows(page)}
    assert len(rows) == len(default_run.items) == 54
    for item in default_run.items:
        row = rows[item["item_id"]]
        assert row.attrs["data-mode"] == item["mode"]
        assert row.attrs["data-scenario"] == item["scenario_id"]
        assert row.attrs["data-outcome"] == "pass"
    assert page.by_id("visible-count").text == "54"
    for key, values in (("mode", {"agent_direct", "mcp", "ghx"}), ("outcome", {"pass"})):
        options = {o.attrs["value"] for o in page.by_id(f"filter-{key}").find_all("option")}
        assert options >= values | {""}
    scenarios = {o.attrs["value"] for o in page.by_id("filter-scenario").find_all("option")}
    assert scenarios == {"", *default_run.summary.scenarios}


def test_every_item_links_to_its_transcript_in_the_run_directory(
    default_run: RunFiles, default_html: str
) -> None:
    attempts = Counter(record["item_id"] for record in default_run.transcripts)
    rows = item_rows(parse(default_html))
    assert {row.attrs["data-item-id"] for row in rows} == set(attempts)
    run = RunDir(default_run.run_dir)
    for row in rows:
        item_id = str(row.attrs["data-item-id"])
        (link,) = row.find_all("a", **{"class": "open-transcript"})
        assert link.text == item_id.rsplit("::", 1)[-1]
        href = urlsplit(str(link.attrs["href"]))
        # relative to the report, into the run directory: the file the row points at
        assert not href.scheme and not href.netloc and not href.path.startswith("/")
        assert (default_run.run_dir / href.path).is_file()
        assert parse_qs(href.query) == {"item": [item_id]}
        records = item_transcript(run, item_id).decode().splitlines()
        assert len(records) == attempts[item_id]
    # the page holds none of the transcripts' text: the instructions, tool outputs, answers
    first = default_run.transcripts[0]
    assert first["instructions"].split("`")[0].strip() not in default_html
    assert first["tool_calls"][0]["output"][:60] not in default_html
    assert first["final_text"][:60] not in default_html


def test_header_shows_the_run_and_the_verdict(default_run: RunFiles, default_html: str) -> None:
    page = parse(default_html)
    run, gate = default_run.summary.run, default_run.summary.gate
    verdict = page.by_id("verdict")
    assert verdict.attrs["data-status"] == ("passed" if gate.passed else "failed")
    assert ("GATE PASSED" if gate.passed else "GATE FAILED") in verdict.text
    assert gate.reason in verdict.text
    header = page.by_id("run").text
    for key in ("run_id", "adapter", "backend", "model", "profile"):
        assert str(run[key]) in header
    assert default_run.summary.generated_at in header


def test_header_shows_the_budget_and_completeness_blocks(default_run: RunFiles) -> None:
    summary = default_run.summary.model_copy(deep=True)
    summary.run["budget"] = {"usd": 0.5, "spent_usd": 0.61, "exhausted": True}
    summary.run["completeness"] = {"expected_items": 12, "ran_items": 9, "complete": False}
    header = parse(render_report(summary, default_run.items)).by_id("run")
    assert "usd=0.5, spent_usd=0.61, exhausted=yes" in header.text
    assert "expected_items=12, ran_items=9, complete=no" in header.text


def test_gate_checks_table(default_run: RunFiles, default_html: str) -> None:
    rows = parse(default_html).by_id("checks").find_all("tr", data_check=True)
    checks = default_run.summary.gate.checks
    assert [row.attrs["data-check"] for row in rows] == [check.name for check in checks]
    for row, check in zip(rows, checks, strict=True):
        assert row.attrs["data-passed"] == ("true" if check.passed else "false")
        assert check.operator in row.text
        assert ("pass" if check.passed else "FAIL") in row.text


def test_mode_table_has_each_mode_with_its_medians(
    default_run: RunFiles, default_html: str
) -> None:
    table = parse(default_html).by_id("modes")
    rows = {row.attrs["data-mode"]: row for row in table.find_all("tr", data_mode=True)}
    assert list(rows) == ["agent_direct", "mcp", "ghx"]
    for mode, metrics in default_run.summary.modes.items():
        assert f"{metrics['median_tokens_active']:,.1f}".rstrip("0").rstrip(".") in rows[mode].text
        assert f"{metrics['success_rate']:.1f} %" in rows[mode].text
    for metrics in default_run.summary.modes.values():  # 3 reps, all succeeded
        assert (metrics["pass_hat_k"], metrics["pass_k"]) == (100.0, 3)
    assert "pass^3" in table.text


def test_pass_hat_k_is_shown_when_the_summary_has_it(default_run: RunFiles) -> None:
    summary = default_run.summary.model_copy(deep=True)
    for metrics in summary.modes.values():
        metrics.update(pass_hat_k=83.3333, pass_k=3)
    for per_mode in summary.scenarios.values():
        for metrics in per_mode.values():
            metrics.update(pass_hat_k=100.0, pass_k=3)
    page = parse(render_report(summary, default_run.items))
    assert "pass^3" in page.by_id("modes").text
    assert "83.3 %" in page.by_id("modes").text
    assert "pass^3" in page.by_id("scenarios").text
    assert "100.0 %" in page.by_id("scenarios").text


def test_three_plots_are_inline_svg(default_html: str) -> None:
    page = parse(default_html)
    figures = page.by_id("plots").find_all("figure")
    assert [figure.attrs["data-plot"] for figure in figures] == [
        "forest",
        "distributions",
        "success",
    ]
    for figure in figures:
        (svg,) = figure.find_all("svg")
        shapes = [node for node in svg.iter() if node.tag in ("line", "rect", "circle", "path")]
        assert len(shapes) > 5, figure.attrs
    assert "<?xml" not in default_html and "<!DOCTYPE svg" not in default_html
    assert plot_notes(page) == {"forest": "", "distributions": "", "success": ""}
    forest = page.find_all("figure", data_plot="forest")[0]
    assert {"pr-view-001", "median over scenarios"} <= {t.text for t in forest.find_all("text")}
    success = page.find_all("figure", data_plot="success")[0]
    assert [t.text for t in success.find_all("text")].count("3/3") == 18  # 6 scenarios x 3 modes


def test_the_forest_plot_uses_the_gates_reductions_and_per_scenario_bootstrap(
    default_run: RunFiles,
) -> None:
    views = build_items(default_run.items)
    data = forest_data(default_run.summary, views)
    efficiency = default_run.summary.gate.efficiency
    tokens = {row.label: row for row in data.panels[0].rows}
    assert set(tokens) == {*efficiency["scenarios"], "median over scenarios"}
    scenario_id = "pr-view-001"
    entry = efficiency["scenarios"][scenario_id]
    assert tokens[scenario_id].estimate == entry["tokens_active_reduction_pct"]
    stable = {
        mode: [
            item["latency_ms_wall"]
            for item in default_run.items
            if item["scenario_id"] == scenario_id and item["mode"] == mode and item["success"]
        ]
        for mode in ("agent_direct", "ghx")
    }
    expected = bootstrap_median_reduction_ci(
        {scenario_id: (stable["agent_direct"], stable["ghx"])},
        resamples=efficiency["bootstrap_resamples"],
        seed=efficiency["bootstrap_seed"],
    )
    latency = {row.label: row for row in data.panels[1].rows}
    assert (latency[scenario_id].low, latency[scenario_id].high) == expected
    overall = latency["median over scenarios"]
    assert [overall.low, overall.high] == efficiency["latency_reduction_ci95"]


def test_nothing_is_loaded_from_elsewhere(default_html: str, breaking_html: str) -> None:
    for html in (default_html, breaking_html):
        assert not REMOTE.search(html), REMOTE.search(html)
        page = parse(html)
        assert page.find_all("link") == []
        assert [s.attrs for s in page.find_all("script")] == [{}]  # one inline script, no src
        assert page.find_all("img") == [] and page.find_all("iframe") == []
        (policy,) = page.find_all("meta", http_equiv="Content-Security-Policy")
        # nothing but the page itself, and reading the run directory it was served from
        assert "default-src 'none'" in str(policy.attrs["content"])
        assert "connect-src 'self'" in str(policy.attrs["content"])


def test_markup_in_failure_reasons_is_shown_not_run(breaking_html: str) -> None:
    assert HOSTILE not in breaking_html
    assert breaking_html.count("<script") == 1
    assert "<img" not in breaking_html
    page = parse(breaking_html)
    # the text comes back intact once the browser decodes the escapes
    assert HOSTILE in page.by_id("failures").text
    assert HOSTILE[:40] in page.by_id("items").text  # the item table's short reason


def test_failed_items_are_listed_with_their_reasons(
    breaking_run: RunFiles, breaking_html: str
) -> None:
    page = parse(breaking_html)
    rows = item_rows(page)
    outcomes = {
        (row.attrs["data-scenario"], row.attrs["data-mode"]): row.attrs["data-outcome"]
        for row in rows
    }
    assert outcomes[("repo-view-001", "ghx")] == "runner_error"
    assert outcomes[("issue-view-001", "agent_direct")] == "runner_error"
    assert outcomes[("pr-view-001", "ghx")] == outcomes[("pr-view-001", "agent_direct")] == "fail"
    assert Counter(outcomes.values())["pass"] == len(rows) - 4

    failed = page.by_id("failures").find_all("tr", data_item_id=True)
    expected = [item for item in breaking_run.items if not item["success"]]
    assert {row.attrs["data-item-id"] for row in failed} == {i["item_id"] for i in expected}
    for row in failed:
        item = next(i for i in expected if i["item_id"] == row.attrs["data-item-id"])
        cells = [cell.text for cell in row.find_all("td")]
        assert cells[2] == {"runner_error": "runner error"}.get(row.attrs["data-outcome"], "fail")
        assert cells[3] == item["error"]["type"]  # runner_error, assertion_failed
        assert cells[4] == item["error"]["message"]
        assert row.find_all("a", **{"class": "open-transcript"})
    assert "agent stalled: timed out after 5s" in page.by_id("failures").text
    nav = [link.attrs["href"] for link in page.find_all("nav")[0].find_all("a")]
    assert "#failures-section" in nav


def test_long_reasons_are_cut_in_the_page(default_run: RunFiles) -> None:
    items = copy.deepcopy(default_run.items[:2])
    reason = "0123456789" * 500 + "THE-END"
    items[0].update(success=False, error={"type": "assertion_failed", "message": reason})
    page = parse(render_report(default_run.summary, items))
    (failed,) = page.by_id("failures").find_all("tr", data_item_id=True)
    shown = failed.find_all("td")[4].text
    assert len(shown) == REASON_LIMIT and shown.endswith("…") and reason.startswith(shown[:-1])
    reasons = [row.find_all("td")[-1].text for row in item_rows(page)]  # the last column
    assert sorted(len(reason) for reason in reasons) == [0, SHORT_REASON_LIMIT]
    assert "THE-END" not in render_report(default_run.summary, items)


def test_no_comparable_scenarios_is_a_note_not_a_crash(breaking_html: str) -> None:
    # one repetition per mode: no scenario has the gate's minimum of stable rows
    notes = plot_notes(parse(breaking_html))
    assert notes["forest"].startswith("No data for this plot")
    assert notes["distributions"] == notes["success"] == ""


def _one_mode(run: RunFiles, mode: str) -> tuple[RunSummary, list[dict[str, Any]]]:
    items = [item for item in run.items if item["mode"] == mode]
    profile = build_profiles()["verify_pr"]
    summary = build_summary(
        [Row.model_validate(item) for item in items],
        profile=profile,
        baseline="agent_direct",
        candidate="ghx",
        run_info=run.summary.run,
        resamples=200,
    )
    return summary, items


def _nan_items(run: RunFiles) -> list[dict[str, Any]]:
    items = copy.deepcopy(run.items)
    for item in items:
        item.update(latency_ms_wall=math.nan, cost=math.nan, tool_calls=None)
        item["tokens"] = {key: math.nan for key in item["tokens"]}
    return items


@pytest.mark.parametrize(
    "case", ["nothing", "summary only", "rows only", "one mode", "all NaN", "junk rows"]
)
def test_degenerate_inputs_render_with_notes(default_run: RunFiles, case: str) -> None:
    summary = default_run.summary
    items: Any = default_run.items
    expect_plots = {"forest": False, "distributions": False, "success": False}
    if case == "nothing":
        summary, items = bare_summary(), []
    elif case == "summary only":
        items = []
        expect_plots.update(forest=True)  # the gate's per-scenario reductions, no intervals
    elif case == "rows only":
        # no rows summarized: no modes and a gate not evaluated, which still names the modes
        # it compares, so the forest plot draws their reductions from the rows themselves
        summary = bare_summary()
        expect_plots.update(forest=True, distributions=True, success=True)
    elif case == "one mode":
        summary, items = _one_mode(default_run, "ghx")
        expect_plots.update(distributions=True, success=True)
    elif case == "all NaN":
        gate = summary.gate.model_copy(update={"efficiency": {}})
        summary = summary.model_copy(update={"gate": gate})
        items = _nan_items(default_run)
        expect_plots.update(success=True)
    else:  # rows read from files can be anything; a summary cannot (see below)
        items = [
            None,
            {"mode": 5, "tokens": "x", "transcript": {"file": "//elsewhere.example/x.jsonl"}},
            {"item_id": 7, "transcript": {"file": "../../outside.jsonl"}},
            *items[:2],
        ]
        expect_plots.update(forest=True, distributions=True, success=True)
    html = render_report(summary, items)
    assert "elsewhere.example" not in html and "outside.jsonl" not in html  # never linked
    page = parse(html)
    notes = plot_notes(page)
    for name, drawn in expect_plots.items():
        if drawn:
            assert notes[name] == "", (name, notes[name])
        else:
            assert notes[name].startswith("No data for this plot"), (name, notes[name])
    assert "could not draw" not in html
    valid_items = [item for item in items if isinstance(item, dict) and "item_id" in item]
    assert len(item_rows(page)) >= len(valid_items)
    assert page.by_id("verdict").attrs["data-status"] in {"passed", "failed", "not_evaluated"}


def test_a_malformed_summary_is_refused_naming_its_fields(
    default_run: RunFiles, tmp_path: Path
) -> None:
    document = default_run.summary.to_json_dict()
    junk = {
        **document,
        "run": "not a mapping",
        "modes": [1, 2],
        "gate": {**document["gate"], "checks": [None, 3]},
    }
    with pytest.raises(ValidationError) as refused:
        RunSummary.model_validate(junk)
    where = {".".join(map(str, error["loc"])) for error in refused.value.errors()}
    assert where == {"run", "modes", "gate.checks.0", "gate.checks.1"}
    # A run directory whose summary.json lost its gate: one error naming the file and the field,
    # not a page that renders as if the run had no gate.
    run = RunDir(tmp_path / "run_broken")
    run.path.mkdir()
    del document["gate"]
    run.summary_json.write_text(json.dumps(document), "utf-8")
    with pytest.raises(ValueError, match=r"run_broken/summary\.json: gate: Field required$"):
        write_run_report(run)
    assert not run.report_html.exists()


def test_one_mode_only_is_not_evaluated(default_run: RunFiles) -> None:
    summary, items = _one_mode(default_run, "ghx")
    page = parse(render_report(summary, items))
    verdict = page.by_id("verdict")
    assert verdict.attrs["data-status"] == "not_evaluated"
    assert "no rows for baseline mode 'agent_direct'" in verdict.text
    assert [row.attrs["data-mode"] for row in item_rows(page)] == ["ghx"] * len(items)


def test_markup_in_scenario_ids_is_escaped_in_tables_and_plots(default_run: RunFiles) -> None:
    items = copy.deepcopy(default_run.items)
    for item in items:
        item["scenario_id"] = item["scenario_id"].replace("pr-", "<b>pr</b>-")
    html = render_report(bare_summary(), items)
    assert "<b>" not in html
    assert "&lt;b&gt;pr&lt;/b&gt;-view-001" in html  # in the table, the filter and the SVG


def test_comparison_of_two_real_runs_highlights_regressions(default_run: RunFiles) -> None:
    slower = copy.deepcopy(default_run.items)
    for item in slower:
        if item["mode"] == "ghx":
            item["latency_ms_wall"] *= 1.5
    comparison = compare_runs(
        RowTable(Row.model_validate(item) for item in default_run.items),
        RowTable(Row.model_validate(item) for item in slower),
        base_run="run_base",
        run="run_slower",
        resamples=500,
    ).model_dump(mode="json")
    page = parse(render_report(default_run.summary, slower, comparison=comparison))
    rows = page.by_id("comparison").find_all("tr", data_kind=True)
    assert len(rows) == len(comparison["entries"])
    regressions = [row for row in rows if row.attrs["data-regression"] == "true"]
    assert regressions and rows[: len(regressions)] == regressions  # listed first
    for row in regressions:
        assert row.attrs["class"] == "regression"
        assert "ghx" in row.text and "latency_ms" in row.text
        assert "+50.0 %" in row.text
    assert all(row.attrs["data-kind"] == "noise" for row in rows[len(regressions) :])
    section = page.by_id("comparison-section").text
    assert f"{len(regressions)} regressions" in section and "run_base" in section


def test_comparison_shows_failed_rules_unmatched_pairs_and_suite_entries(
    default_run: RunFiles,
) -> None:
    comparison = {
        "base_run": "run_base",
        "run": "run_now",
        "entries": [
            {
                "scenario_id": "*",
                "mode": "ghx",
                "metric": "cost",
                "base_median": 0.0125,
                "median": 0.02,
                "change_pct": 60.0,
                "ci_low_pct": 40.0,
                "ci_high_pct": 80.0,
                "beyond_noise": True,
                "regression": True,
                "base_n": 18,
                "n": 18,
            },
            {
                "scenario_id": "pr-view-001",
                "mode": "mcp",
                "metric": "success_rate",
                "base_median": 100.0,
                "median": 66.7,
                "change_pct": -33.3,
                "ci_low_pct": -70.0,
                "ci_high_pct": 5.0,
                "note": "few rows <3>",
            },
        ],
        "only_in_base": [["repo-view-001", "mcp"]],
        "failed": ["ghx cost +60.0 % > +10 %"],
    }
    page = parse(render(default_run, comparison=comparison))
    rows = page.by_id("comparison").find_all("tr", data_kind=True)
    assert [row.attrs["data-kind"] for row in rows] == ["regression", "noise"]
    assert "(all scenarios)" in rows[0].text and "$0.0200" in rows[0].text
    assert "-33.3 pp" in rows[1].text and "few rows <3>" in rows[1].text
    section = page.by_id("comparison-section").text
    assert "ghx cost +60.0 % > +10 %" in section
    assert "only in the base run: repo-view-001 / mcp" in section
    assert not parse(render(default_run)).find_all(id="comparison")


def test_rendering_is_deterministic(default_run: RunFiles, default_html: str) -> None:
    assert render(default_run) == default_html  # its time is measured by bench/report_html.py


def test_write_report_replaces_the_file_atomically(
    default_run: RunFiles, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "run" / "report.html"
    written = write_report(target, default_run.summary, default_run.items, title="T <1>")
    assert written == target
    assert "<title>T &lt;1&gt;</title>" in target.read_text("utf-8")
    assert [path.name for path in target.parent.iterdir()] == ["report.html"]

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("pytest_ghxbench.records.store.os.replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_report(target, bare_summary(), [])
    assert [path.name for path in target.parent.iterdir()] == ["report.html"]
    assert "T &lt;1&gt;" in target.read_text("utf-8")  # the old report is intact
