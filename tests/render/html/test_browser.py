"""The report in a real browser: Debian's chromium, headless, driven by its chromedriver; opened
as a file, and served by ``ghxbench view``'s server, which its transcript panel reads.

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

from tests.render.html.conftest import HOSTILE, RunFiles, copy_run, serving

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


def open_report(driver: Any, url: str) -> list[dict[str, Any]]:
    """Load the page; returns its SEVERE console entries (the log is drained by reading it)."""
    driver.get_log("browser")  # drop what an earlier page left
    driver.get(url)
    driver.execute_script("return document.readyState")
    return severe(driver)


def severe(driver: Any) -> list[dict[str, Any]]:
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


def open_transcript(driver: Any, item_id: str, wait_for: str = "section.attempt") -> Any:
    """Click the item's link in the item table; the panel once ``wait_for`` shows in it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    row = driver.find_element(By.CSS_SELECTOR, f'#items tr[data-item-id="{item_id}"]')
    row.find_element(By.CSS_SELECTOR, "a.open-transcript").click()
    panel = driver.find_element(By.ID, "transcript")
    WebDriverWait(driver, 30).until(
        lambda d: panel.find_elements(By.CSS_SELECTOR, f"#transcript-body {wait_for}")
    )
    assert panel.is_displayed()
    return panel


def test_the_report_works_in_chromium(browser: Any, default_run: RunFiles, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    run = copy_run(default_run, tmp_path)
    assert open_report(browser, run.report_html.as_uri()) == []
    browser.save_screenshot(str(tmp_path / "report-top.png"))

    # the plots render: each figure's SVG has a real size and drawn content
    for name in ("forest", "distributions", "success"):
        svg = browser.find_element(By.CSS_SELECTOR, f'figure[data-plot="{name}"] svg')
        box = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", svg)
        assert box["width"] > 100 and box["height"] > 100, (name, box)
        assert len(svg.find_elements(By.CSS_SELECTOR, "line, rect, circle, path")) > 5, name
    browser.find_element(By.ID, "plots").screenshot(str(tmp_path / "report-plots.png"))

    # the tables render
    checks = browser.find_elements(By.CSS_SELECTOR, "#checks tbody tr")
    assert len(checks) == len(default_run.summary.gate.checks)
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
    choose(browser, "filter-outcome", "runner_error")
    assert visible_rows(browser) == [] and count.text == "0"
    browser.find_element(By.ID, "filter-reset").click()
    assert len(visible_rows(browser)) == len(default_run.items)
    assert count.text == str(len(default_run.items))

    # opened as a file, the page cannot read transcripts: an item's link says how to
    item_id = str(default_run.transcripts[0]["item_id"])
    panel = open_transcript(browser, item_id, wait_for="p")
    assert f"ghxbench view {run.run_id}" in panel.text
    assert severe(browser) == []

    # served by ghxbench view, an item's link opens its transcript in the panel
    record = default_run.transcripts[0]
    with serving(run) as server:
        assert open_report(browser, server.url + "report.html") == []
        assert browser.find_element(By.ID, "transcript").is_displayed() is False
        panel = open_transcript(browser, item_id)
        assert item_id in panel.find_element(By.ID, "transcript-item").text
        attempt = panel.find_element(By.CSS_SELECTOR, "section.attempt")
        assert "Attempt 1: success, valid output" in attempt.text
        call = panel.find_element(By.CSS_SELECTOR, "ol.tool-calls li")
        assert call.is_displayed() and record["tool_calls"][0]["name"] in call.text
        assert record["final_text"][:40] in attempt.text
        assert "tokens active" in attempt.text
        browser.save_screenshot(str(tmp_path / "report-transcript.png"))
        # the address names the item: loading it again opens the same transcript
        assert "#transcript=" in browser.current_url
        assert open_report(browser, browser.current_url) == []
        panel = open_transcript(browser, item_id)
        assert record["final_text"][:40] in panel.text
        browser.find_element(By.ID, "transcript-close").click()
        assert not panel.is_displayed() and "#transcript=" not in browser.current_url
        # another item, from the table's last row
        last = str(default_run.items[-1]["item_id"])
        panel = open_transcript(browser, last)
        assert last in panel.find_element(By.ID, "transcript-item").text
        assert severe(browser) == []


def test_transcript_markup_does_not_run_in_chromium(
    browser: Any, breaking_run: RunFiles, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    run = copy_run(breaking_run, tmp_path)
    failed = {
        (item["scenario_id"], item["mode"]): str(item["item_id"])
        for item in breaking_run.items
        if not item["success"]
    }
    with serving(run) as server:
        assert open_report(browser, server.url + "report.html") == []
        assert HOSTILE in browser.find_element(By.ID, "failures").text  # reasons, as text
        # an adapter that raised: its runner error and traceback, shown as text
        panel = open_transcript(browser, failed["repo-view-001", "ghx"])
        assert "Runner error:" in panel.text and "adapter_bug" in panel.text
        assert HOSTILE in panel.text
        assert "Traceback" in panel.find_element(By.CSS_SELECTOR, "details[open]").text
        # an answer that is markup: shown as the answer, judged a wrong answer
        panel = open_transcript(browser, failed["pr-view-001", "agent_direct"])
        assert "wrong_answer" in panel.text and HOSTILE in panel.text
        assert panel.find_elements(By.CSS_SELECTOR, "ul.failures li")
        assert browser.execute_script("return window.ghxPwned === undefined")
        assert browser.find_elements(By.CSS_SELECTOR, "img") == []
        browser.find_element(By.ID, "transcript-close").click()
        choose(browser, "filter-outcome", "runner_error")
        rows = visible_rows(browser)
        assert len(rows) == 2 and {row["outcome"] for row in rows} == {"runner_error"}
        forest = browser.find_element(By.CSS_SELECTOR, 'figure[data-plot="forest"]')
        assert "No data for this plot" in forest.text
        browser.save_screenshot(str(tmp_path / "breaking.png"))
        assert severe(browser) == []


def test_transcripts_written_before_the_judgement_was_named_still_show_it(
    browser: Any, breaking_run: RunFiles, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    run = copy_run(breaking_run, tmp_path)
    for path in run.transcript_files():  # as an older version wrote them
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text(
            "".join(line.replace('"judgement":', '"verdict":', 1) + "\n" for line in lines)
        )
    failed = next(
        str(item["item_id"])
        for item in breaking_run.items
        if (item["scenario_id"], item["mode"]) == ("pr-view-001", "agent_direct")
        and not item["success"]
    )
    with serving(run) as server:
        assert open_report(browser, server.url + "report.html") == []
        panel = open_transcript(browser, failed)
        assert "no success" in panel.find_element(By.CSS_SELECTOR, "section.attempt").text
        assert panel.find_elements(By.CSS_SELECTOR, "ul.failures li")
        assert severe(browser) == []
