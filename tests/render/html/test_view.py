"""``ghxbench view``: the run directory served on loopback, the report and any item's
transcript read through it, the browser opened, Ctrl-C stopping it cleanly."""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from pytest_ghxbench.cli.main import main
from pytest_ghxbench.cli.view import RunServer, run_view, serve_run
from pytest_ghxbench.records.reading import item_transcript
from pytest_ghxbench.records.store import RunDir
from tests.paths import REPO_ROOT
from tests.render.html.conftest import RunFiles, copy_run, serving
from tests.render.html.dom import parse


@pytest.fixture
def run_copy(default_run: RunFiles, tmp_path: Path) -> RunDir:
    return copy_run(default_run, tmp_path)


@pytest.fixture
def served(run_copy: RunDir) -> Iterator[RunServer]:
    with serving(run_copy) as server:
        yield server


def get(url: str, host: str | None = None) -> tuple[int, str, str]:
    """Status, content type and body of a GET (errors included), redirects not followed."""
    parts = url.split("/", 3)
    connection = http.client.HTTPConnection(parts[2], timeout=30)
    headers = {"Host": host} if host else {}
    connection.request("GET", "/" + parts[3], headers=headers)
    response = connection.getresponse()
    body = response.read().decode("utf-8")
    connection.close()
    return response.status, response.getheader("Content-Type") or "", body


def transcript_href(page: str, item_id: str) -> str:
    """The item's transcript link in the report (relative to the report)."""
    (row,) = parse(page).by_id("items").find_all("tr", data_item_id=item_id)
    (link,) = row.find_all("a", **{"class": "open-transcript"})
    return str(link.attrs["href"])


def test_the_server_serves_the_report_and_any_items_transcript(
    served: RunServer, default_run: RunFiles
) -> None:
    assert served.url.startswith("http://127.0.0.1:")
    status, _, body = get(served.url)
    assert status == 302
    with urllib.request.urlopen(served.url, timeout=30) as response:  # follows to the report
        assert response.url.endswith("/report.html")
        page = response.read().decode("utf-8")
    assert parse(page).by_id("verdict").attrs["data-status"] in {"passed", "failed"}

    by_item: dict[str, list[dict[str, object]]] = {}
    for record in default_run.transcripts:
        by_item.setdefault(str(record["item_id"]), []).append(record)
    for item_id in (next(iter(by_item)), list(by_item)[-1]):
        status, content_type, body = get(served.url + transcript_href(page, item_id))
        assert status == 200 and content_type.startswith("text/plain")
        records = [json.loads(line) for line in body.splitlines()]
        assert records == by_item[item_id]  # every attempt of that item, and nothing else
        assert records[0]["tool_calls"] and records[0]["final_text"]


def test_the_server_answers_loopback_names_only_and_stays_in_the_run(
    served: RunServer, run_copy: RunDir
) -> None:
    assert get(served.url + "report.html", host="evil.example:80")[0] == 403
    assert get(served.url + "report.html", host=f"localhost:{served.server_address[1]}")[0] == 200
    assert get(served.url + "../../../etc/passwd")[0] == 404
    status, _, body = get(served.url + "transcripts/main.jsonl?item=" + quote("no such item"))
    assert (status, body) == (200, "")
    status, _, body = get(served.url + "summary.json")
    assert status == 200 and json.loads(body)["run"]["run_id"] == run_copy.run_id


def test_item_transcript_finds_an_items_records_in_every_file(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    (tmp_path / "transcripts").mkdir()
    lines = {
        "main": ['{"item_id":"a[ghx-r1]","attempt":1}', '{"item_id":"a[ghx-r10]","attempt":1}'],
        "gw0": ['{"item_id":"a[ghx-r1]","attempt":2}', '{"item_id":"é\\"x","attempt":1}'],
        "gw1": ['{ "item_id": "a[ghx-r1]", "attempt": 3 }', "not json", ""],  # written otherwise
        "gw2": [],
    }
    for name, content in lines.items():
        (tmp_path / "transcripts" / f"{name}.jsonl").write_text("\n".join(content))
    found = item_transcript(run, "a[ghx-r1]").decode().splitlines()
    assert [json.loads(line)["attempt"] for line in found] == [2, 3, 1]  # gw0, gw1, main
    assert item_transcript(run, 'é"x').decode() == '{"item_id":"é\\"x","attempt":1}\n'
    assert item_transcript(run, "a") == b""


def _args(run: RunDir, *extra: str) -> argparse.Namespace:
    from pytest_ghxbench.cli.main import build_parser

    return build_parser().parse_args(["view", str(run.path), *extra])


def test_view_opens_the_browser_at_the_served_report_and_stops_on_ctrl_c(
    run_copy: RunDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []

    def interrupted(self: RunServer, poll_interval: float = 0.5) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(RunServer, "serve_forever", interrupted)
    monkeypatch.setenv("DISPLAY", ":0")
    out = io.StringIO()
    assert run_view(_args(run_copy), out=out, open_browser=opened.append) == 0
    (url,) = opened
    assert url.startswith("http://127.0.0.1:") and url.endswith("/report.html")
    assert out.getvalue().splitlines() == [
        f"serving {run_copy.path.resolve()} at {url} (Ctrl-C stops)",
        "stopped",
    ]
    opened.clear()
    no_browser = _args(run_copy, "--no-browser")
    assert run_view(no_browser, out=io.StringIO(), open_browser=opened.append) == 0
    assert opened == []


def test_view_print_prints_the_path_and_serves_nothing(
    run_copy: RunDir, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RunServer, "serve_forever", lambda *a: pytest.fail("served"))
    assert main(["view", "--print", str(run_copy.path)]) == 0
    assert capsys.readouterr().out.strip() == str(run_copy.report_html.resolve())


def test_view_errors_are_usage_errors(
    run_copy: RunDir, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["view", "--results", str(tmp_path / "none"), "--no-browser"]) == 4
    assert "no finished run under" in capsys.readouterr().err
    taken = serve_run(run_copy)
    try:
        port = str(taken.server_address[1])
        assert main(["view", str(run_copy.path), "--no-browser", "--port", port]) == 4
        assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err
    finally:
        taken.server_close()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_the_view_command_serves_until_ctrl_c(run_copy: RunDir, default_run: RunFiles) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}  # this checkout's package
    env.pop("DISPLAY", None)
    process = subprocess.Popen(
        # faulthandler: a view that does not stop says where it is (SIGABRT below)
        [sys.executable, "-X", "faulthandler", "-m", "pytest_ghxbench", "view", "--no-browser"],
        cwd=run_copy.path.parents[2],  # the project, whose latest run it is
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as a terminal starts it: a test run started in the background (a CI step's `&`, a
        # script's job) ignores SIGINT, and a process inherits that, so Ctrl-C would do nothing
        preexec_fn=_default_sigint,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(f"serving {run_copy.path.resolve()} at http://127.0.0.1:"), line + (
            process.stderr.read() if process.poll() is not None and process.stderr else ""
        )
        url = line.split(" at ", 1)[1].split(" ", 1)[0]
        with urllib.request.urlopen(url, timeout=30) as response:
            page = response.read().decode("utf-8")
        item_id = str(default_run.transcripts[0]["item_id"])
        server_root = url.rsplit("/", 1)[0] + "/"
        href = transcript_href(page, item_id)
        with urllib.request.urlopen(server_root + href, timeout=30) as response:
            records = [json.loads(line) for line in response.read().decode().splitlines()]
        assert records and {record["item_id"] for record in records} == {item_id}
        assert records[0]["final_text"] == default_run.transcripts[0]["final_text"]
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)
            out, err = process.communicate(timeout=30)
            pytest.fail(f"ghxbench view did not stop on SIGINT; its threads:\n{err}\n{out}")
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out.strip() == "stopped" and "Traceback" not in err
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=5)
