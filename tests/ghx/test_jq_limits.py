"""``ghx run`` input beyond the JSON limits, as the agent's shell runs it: one usage line naming
the input and the line and column (then the usual pointer to ``--help``), exit 2, no traceback
and nothing sent to GitHub.

A 5,000-digit integer used to end in ``int()``'s ``ValueError`` traceback, a document nested
5,000 deep in "nested too deeply" with no position, and ``NaN`` was accepted as a number.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

DEEP = 5000
GHX = [sys.executable, "-m", "pytest_ghxbench.ghx", "run", "issue.view"]
# An address where nothing listens: input errors must stop ghx before any request.
NO_GITHUB = {"GH_HOST": "127.0.0.1:9", "GITHUB_API_URL": "http://127.0.0.1:9", "GH_TOKEN": "t"}


def _without_github(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if not k.startswith(("GH_", "GITHUB_", "GHX_"))}


@pytest.mark.parametrize("source", ["stdin", "--input"])
@pytest.mark.parametrize(
    ("document", "where", "problem"),
    [
        ('{"issueNumber": ' + "9" * DEEP + "}", "line 1, column 17", "number longer than 40"),
        ('{"owner": "a",\n "x": ' + "[" * DEEP + "]" * DEEP + "}", "line 2, column 106", "nested"),
        ('{"issueNumber": NaN}', "line 1, column 17", "NaN is not a finite JSON number"),
    ],
    ids=["digits", "deep", "nan"],
)
def test_input_beyond_the_limits_is_one_located_usage_line(
    source: str, document: str, where: str, problem: str
) -> None:
    argv = [*GHX, "--input", "-"] if source == "stdin" else [*GHX, "--input", document]
    done = subprocess.run(
        argv,
        input=document if source == "stdin" else "",
        env={**_without_github(os.environ), "LANG": "C.UTF-8", **NO_GITHUB},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and lines[1] == "Run 'ghx --help' for usage.", done.stderr[-2000:]
    assert lines[0].startswith(f"ghx run issue.view: {source} is refused: {problem}")
    assert lines[0].endswith(f"({where})")
    assert done.returncode == 2 and done.stdout == ""


class _DeepGitHub(BaseHTTPRequestHandler):
    """A "GitHub" whose every answer is valid JSON nested 5,000 deep."""

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = ("[" * DEEP + "]" * DEEP).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def deep_github() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _DeepGitHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_deep_answer_from_github_is_an_error_envelope(deep_github: str) -> None:
    done = subprocess.run(
        [*GHX, "--input", '{"owner": "acme", "name": "widgets", "issueNumber": 1}'],
        env={**_without_github(os.environ), "GITHUB_API_URL": deep_github, "GH_TOKEN": "t"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr == ""
    envelope = json.loads(done.stdout)
    assert envelope["ok"] is False
    assert "response refused: nested deeper than 100 levels at line 1 column 101" in str(
        envelope["error"]["message"]
    )
