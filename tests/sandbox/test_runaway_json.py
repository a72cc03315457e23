"""Runaway JSON reaching the sandbox: a request body nested 5,000 deep is GitHub's 400 "Problems
parsing JSON" (not a 500 with a traceback), and a state file nested that deep or holding a
5,000-digit integer is one error line naming the file, line and column."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.api.server import ApiServer
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world

DEEP = 5000
NESTED = "[" * DEEP + "]" * DEEP
GHXBENCH = [sys.executable, "-m", "pytest_ghxbench"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    with ApiServer(tmp_path_factory.mktemp("api")) as running:
        yield running


@pytest.mark.parametrize(
    ("url", "body"),
    [
        (
            "http://api.github.localhost/repos/acme-labs/tinykv/issues",
            '{"title": "deep", "labels": ' + NESTED + "}",
        ),
        (
            "http://api.github.localhost/graphql",
            '{"query": "{ viewer { login } }", "variables": {"x": ' + NESTED + "}}",
        ),
    ],
    ids=["rest", "graphql"],
)
def test_a_deep_request_body_is_a_400_in_githubs_shape(
    server: ApiServer, capfd: pytest.CaptureFixture[str], url: str, body: str
) -> None:
    token, slot = server.registry.register(fresh_world(DEFAULT_SEED))
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(
            "POST", url, body=body.encode(), headers={"Authorization": f"token {token}"}
        )
        answer = connection.getresponse()
        payload = json.loads(answer.read())
    finally:
        connection.close()
        server.registry.unregister(token)
    assert answer.status == 400
    assert payload == {
        "message": "Problems parsing JSON",
        "documentation_url": "https://docs.github.com/rest",
        "status": "400",
    }
    assert "Traceback" not in capfd.readouterr().err
    assert len(slot.world.issues) == len(fresh_world(DEFAULT_SEED).issues)


@pytest.mark.parametrize(
    ("document", "where", "problem"),
    [
        ('{"format": ' + NESTED + "}", "line 1 column 111", "nested deeper than 100 levels"),
        (
            '{\n "version": ' + "9" * DEEP + "}",
            "line 2 column 13",
            "number longer than 40 characters",
        ),
    ],
    ids=["deep", "digits"],
)
def test_a_runaway_state_file_is_one_error_line(
    tmp_path: Path, document: str, where: str, problem: str
) -> None:
    state = tmp_path / "state.json"
    state.write_text(document, encoding="utf-8")
    done = subprocess.run(
        [*GHXBENCH, "sandbox", "serve", "--state", "state.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stderr.splitlines() == [
        f"ghxbench sandbox serve: state.json: {where}: invalid JSON in sandbox state: {problem}"
    ], done.stderr[-2000:]
    assert done.returncode == 2
