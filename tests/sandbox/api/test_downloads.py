"""Downloads beside the API, through the server as clients reach it: raw files (on
``raw.githubusercontent.com``, ``raw.<host>`` and an Enterprise Server's ``/raw/``, where
GitHub's MCP server reads files) and source archives behind the API's redirect."""

from __future__ import annotations

import http.client
import io
import json
import zipfile
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from pytest_ghxbench.sandbox.api.server import ApiServer
from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, fresh_world, seeded
from tests.sandbox.api.test_server import proxied

MAIN = seeded().seed.commits["bench"]
LOCK = seeded().seed.commits["lock-3"]
TAGGED = seeded().seed.commits["release-032"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    with ApiServer(tmp_path_factory.mktemp("api")) as running:
        yield running


@pytest.fixture
def token(server: ApiServer) -> str:
    return server.registry.register(fresh_world(DEFAULT_SEED))[0]


def _text(commit: str, path: str) -> bytes:
    found = seeded().repo.read(commit, path)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("url", "commit", "path"),
    [
        ("http://raw.githubusercontent.com/acme-labs/tinykv/main/README.md", MAIN, "README.md"),
        (
            "http://raw.github.localhost/acme-labs/tinykv/fix/compaction-lock/src/tinykv/compaction.py",
            LOCK,
            "src/tinykv/compaction.py",
        ),
        (
            f"http://github.localhost/raw/acme-labs/tinykv/{MAIN}/src/tinykv/wal.py",
            MAIN,
            "src/tinykv/wal.py",
        ),
        (
            "http://github.localhost/raw/acme-labs/tinykv/refs/heads/main/README.md",
            MAIN,
            "README.md",
        ),
        (
            "http://github.localhost/raw/acme-labs/tinykv/refs/tags/v0.3.2/README.md",
            TAGGED,
            "README.md",
        ),
        ("http://github.localhost/raw/acme-labs/tinykv/HEAD/LICENSE", MAIN, "LICENSE"),
    ],
)
def test_raw_files_at_a_ref(
    server: ApiServer, token: str, url: str, commit: str, path: str
) -> None:
    status, headers, body = proxied(server, "GET", url, token)
    assert (status, body) == (200, _text(commit, path))
    assert headers["content-type"].startswith("text/plain")


def test_raw_githubusercontent_com_through_tls_interception(server: ApiServer, token: str) -> None:
    """What a client that hard-codes GitHub's raw host (curl, a script) reaches."""
    tunnel = http.client.HTTPSConnection(
        "127.0.0.1", server.port, timeout=60, context=server.ca.client_context()
    )
    tunnel.set_tunnel("raw.githubusercontent.com", 443)
    path = "/acme-labs/tinykv/v0.3.2/src/tinykv/store.py"
    tunnel.request("GET", path, headers={"Authorization": f"token {token}"})
    answer = tunnel.getresponse()
    assert (answer.status, answer.read()) == (200, _text(TAGGED, "src/tinykv/store.py"))
    tunnel.close()


def test_raw_files_that_are_not_there(server: ApiServer, token: str) -> None:
    for url in (
        "http://raw.githubusercontent.com/acme-labs/tinykv/main/nope.md",
        "http://raw.githubusercontent.com/acme-labs/tinykv/nope/README.md",
        "http://raw.githubusercontent.com/acme-labs/other/main/README.md",
        "http://github.localhost/raw/acme-labs/tinykv/main/src",
    ):
        assert proxied(server, "GET", url, token)[::2] == (404, b"404: Not Found"), url
    # without a token no world is known: GitHub's answer for a private repository
    anonymous = proxied(
        server, "GET", "http://raw.githubusercontent.com/acme-labs/tinykv/main/README.md", None
    )
    assert anonymous[::2] == (404, b"404: Not Found")


def test_download_url_is_served(server: ApiServer, token: str) -> None:
    for api in ("http://api.github.localhost", "http://github.localhost/api/v3"):
        status, _, body = proxied(
            server, "GET", f"{api}/repos/acme-labs/tinykv/contents/README.md", token
        )
        assert status == 200
        link = json.loads(body)["download_url"]
        assert proxied(server, "GET", link, token)[::2] == (200, _text(MAIN, "README.md"))


def test_a_release_s_source_archive_as_gh_downloads_it(server: ApiServer, token: str) -> None:
    """gh follows the API's redirect, rewriting codeload's ``legacy.zip`` to ``zip``."""
    api = "http://api.github.localhost/repos/acme-labs/tinykv/zipball/v0.3.2"
    status, headers, _ = proxied(server, "GET", api, token)
    assert status == 302
    link = headers["location"]
    legacy = proxied(server, "GET", link, None)
    assert legacy[0] == 200 and legacy[1]["content-disposition"].endswith(
        f"acme-labs-tinykv-v0.3.2-0-g{TAGGED[:7]}.zip"
    )
    assert (
        f"acme-labs-tinykv-{TAGGED[:7]}/README.md"
        in zipfile.ZipFile(io.BytesIO(legacy[2])).namelist()
    )
    parts = urlsplit(link)
    path = parts.path.replace("/legacy.zip/", "/zip/")
    web_link = f"{parts.scheme}://{parts.netloc}{path}?{parts.query}"
    web = proxied(server, "GET", web_link, None)
    assert web[0] == 200 and web[1]["content-disposition"].endswith("filename=tinykv-0.3.2.zip")
    names = zipfile.ZipFile(io.BytesIO(web[2])).namelist()
    assert "tinykv-0.3.2/README.md" in names
