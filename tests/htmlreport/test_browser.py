"""The report in a real browser: Debian's chromium, headless, driven by its chromedriver.

Skipped (with the reason) when chromium or chromedriver is not installed, unless
``GHXBENCH_REQUIRE_BROWSER=1`` (as in CI), which turns the skip into a failure. The driver is
given by path, so Selenium Manager never looks for (or downloads) one. Screenshots go to the
test's ``tmp_path``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.htmlreport import write_report
from tests.htmlreport.conftest import HOSTILE, RunFiles

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def _unavailable() -> str | None:
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        return (
            f"the browser test needs Debian's chromium and chromedriver, missing: "
            f"{', '.join(missing)} (apt-get install chromium chromium-driver)"
        )
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the browser test needs selenium (pip install -e '.[dev]')"
    return None


def require_browser() -> None:
    """Skip (or, with ``GHXBENCH_REQUIRE_BROWSER=1``, fail) when the browser is missing."""
    reason = _unavailable()
    if reason is not None:
        if os.environ.get("GHXBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"GHXBENCH_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1400,1000")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def test_a_missing_browser_skips_unless_required(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(f"{__name__}.CHROMEDRIVER", tmp_path / "no-chromedriver")
    monkeypatch.delenv("GHXBENCH_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"missing: .*no-chromedriver \(apt-get"):
        require_browser()
    monkeypatch.setenv("GHXBENCH_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match=r"GHXBENCH_REQUIRE_BROWSER=1 but .*missing"):
        require_browser()


def open_report(driver: Any, path: Path) -> list[dict[str, Any]]:
    """Load the page; returns its SEVERE console entries (the log is drained by reading it)."""
    driver.get_log("browser")  # drop what an earlier page left
    driver.get(path.as_uri())
    driver.execute_script("return document.readyState")
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def visible_rows(driver: Any) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = driver.execute_script(
        "return Array.from(document.querySelectorAll('#items tbody tr[data-mode]'))"
        ".filter(row => row.getClientRects().length > 0)"
        ".map(row => ({mode: row.dataset.mode, outcome: row.dataset.outcome}))"
    )
    return rows


def choose(driver: Any, select_id: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, select_id)).select_by_value(value)


def test_the_report_works_in_chromium(browser: Any, default_run: RunFiles, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    report = write_report(
        tmp_path / "report.html", default_run.summary, default_run.items, default_run.transcripts
    )
    assert open_report(browser, report) == []
    browser.save_screenshot(str(tmp_path / "report-top.png"))

    # the plots render: each figure's SVG has a real size and drawn content
    for name in ("forest", "distributions", "success"):
        svg = browser.find_element(By.CSS_SELECTOR, f'figure[data-plot="{name}"] svg')
        box = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", svg)
        assert box["width"] > 100 and box["height"] > 100, (name, box)
        assert len(svg.find_elements(By.CSS_SELECTOR, "path")) > 5, name
    browser.find_element(By.ID, "plots").screenshot(str(tmp_path / "report-plots.png"))

    # the tables render
    checks = browser.find_elements(By.CSS_SELECTOR, "#checks tbody tr")
    assert len(checks) == len(default_run.summary["gate"]["checks"])
    assert all(row.is_displayed() for row in checks)
    modes = browser.find_elements(By.CSS_SELECTOR, "#modes tbody tr[data-mode]")
    assert [row.get_attribute("data-mode") for row in modes] == ["agent_direct", "mcp", "ghx"]
    assert browser.find_element(By.ID, "verdict").is_displayed()
    count = browser.find_element(By.ID, "visible-count")
    assert len(visible_rows(browser)) == len(default_run.items) and count.text == "54"

    # filtering by mode keeps that mode's items only, and the count follows
    per_mode = Counter(item["mode"] for item in default_run.items)
    choose(browser, "filter-mode", "mcp")
    shown = visible_rows(browser)
    assert len(shown) == per_mode["mcp"] and {row["mode"] for row in shown} == {"mcp"}
    assert count.text == str(per_mode["mcp"])
    hidden_groups = browser.execute_script(
        "return Array.from(document.querySelectorAll('#transcripts details.item'))"
        ".filter(d => d.getClientRects().length === 0).map(d => d.dataset.mode)"
    )
    assert len(hidden_groups) == len(default_run.items) - per_mode["mcp"]
    assert "mcp" not in hidden_groups
    choose(browser, "filter-outcome", "runner_error")
    assert visible_rows(browser) == [] and count.text == "0"
    browser.find_element(By.ID, "filter-reset").click()
    assert len(visible_rows(browser)) == len(default_run.items)
    assert count.text == str(len(default_run.items))

    # an item's link opens its transcript, with its tool calls and answer
    link = browser.find_element(By.CSS_SELECTOR, "#items a.open-transcript")
    target = link.get_attribute("href").split("#", 1)[1]
    details = browser.find_element(By.ID, target)
    assert details.get_attribute("open") is None
    link.click()
    assert details.get_attribute("open") == "true"
    attempt = details.find_element(By.CSS_SELECTOR, "section.attempt")
    assert attempt.is_displayed() and "Final answer" in attempt.text
    assert details.find_element(By.CSS_SELECTOR, "ol.tool-calls li").is_displayed()
    browser.save_screenshot(str(tmp_path / "report-transcript.png"))
    # and clicking a transcript's summary expands it too
    other = browser.find_elements(By.CSS_SELECTOR, "#transcripts details.item")[-1]
    other.find_element(By.TAG_NAME, "summary").click()
    assert other.get_attribute("open") == "true"
    assert open_report(browser, report) == []  # reloading logs nothing either


def test_transcript_markup_does_not_run_in_chromium(
    browser: Any, breaking_run: RunFiles, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    report = write_report(
        tmp_path / "report.html",
        breaking_run.summary,
        breaking_run.items,
        breaking_run.transcripts,
    )
    assert open_report(browser, report) == []
    browser.find_element(By.ID, "expand-visible").click()
    assert browser.execute_script("return window.ghxPwned === undefined")
    assert browser.find_elements(By.CSS_SELECTOR, "#transcripts img") == []
    assert HOSTILE in browser.find_element(By.ID, "transcripts").text
    choose(browser, "filter-outcome", "runner_error")
    rows = visible_rows(browser)
    assert len(rows) == 2 and {row["outcome"] for row in rows} == {"runner_error"}
    forest = browser.find_element(By.CSS_SELECTOR, 'figure[data-plot="forest"]')
    assert "No data for this plot" in forest.text
    browser.save_screenshot(str(tmp_path / "breaking.png"))
