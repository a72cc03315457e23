"""``gh release``, ``gh label``, ``gh repo`` and ``gh auth`` in the sandbox."""

from __future__ import annotations

import json

from pytest_ghxbench.sandbox.dialects.gh_cli import run_gh
from pytest_ghxbench.sandbox.state import World


def gh(world: World, *argv: str) -> tuple[int, str, str, bool]:
    result = run_gh(world, argv)
    return result.exit_code, result.stdout, result.stderr, result.mutated


def test_release_list_rows_and_json(world: World) -> None:
    assert gh(world, "release", "list")[1] == (
        "v0.4.0 — durable storage\tDraft\tv0.4.0\t2026-02-26T18:00:00Z\n"
        "v0.3.2\tLatest\tv0.3.2\t2026-01-30T10:00:00Z\n"
    )
    data = json.loads(gh(world, "release", "list", "--json", "tagName,isDraft,isLatest")[1])
    assert data == [
        {"isDraft": True, "isLatest": False, "tagName": "v0.4.0"},
        {"isDraft": False, "isLatest": True, "tagName": "v0.3.2"},
    ]


def test_release_view_text_and_default_latest(world: World) -> None:
    out = gh(world, "release", "view")[1]
    assert out.startswith("title:\tv0.3.2\ntag:\tv0.3.2\ndraft:\tfalse\nprerelease:\tfalse\n")
    assert "asset:\ttinykv-0.3.2.tar.gz\n" in out


def test_release_view_unknown(world: World) -> None:
    assert gh(world, "release", "view", "v9")[:3] == (1, "", "release not found\n")


def test_release_create_draft_edit_and_publish(world: World) -> None:
    code, out, _, mutated = gh(
        world, "release", "create", "v0.0.0-bench", "--draft", "--title", "Draft", "--notes", "n"
    )
    assert (code, mutated) == (0, True)
    assert "/releases/tag/untagged-" in out
    draft = world.release_by_tag("v0.0.0-bench")
    assert draft is not None and (draft.draft, draft.name, draft.body) == (True, "Draft", "n")
    assert gh(world, "release", "edit", "v0.0.0-bench", "--notes", "n2")[0] == 0
    assert (draft.draft, draft.body) == (True, "n2")
    code, out, _, _ = gh(world, "release", "edit", "v0.0.0-bench", "--draft=false", "-t", "Pub")
    assert (code, out) == (0, "https://github.com/acme-labs/tinykv/releases/tag/v0.0.0-bench\n")
    assert (draft.draft, draft.name) == (False, "Pub") and draft.published_at


def test_release_create_without_draft_publishes(world: World) -> None:
    assert gh(world, "release", "create", "v0.5.0", "--notes", "x")[0] == 0
    release = world.release_by_tag("v0.5.0")
    assert release is not None and release.draft is False


def test_release_create_needs_tag(world: World) -> None:
    code, _, err, _ = gh(world, "release", "create")
    assert (code, err) == (1, "could not create: no tag name provided\n")


def test_label_list_rows_and_json(world: World) -> None:
    out = gh(world, "label", "list", "-L", "2")[1]
    assert out == (
        "bug\tSomething isn't working\t#d73a4a\n"
        "documentation\tImprovements or additions to documentation\t#0075ca\n"
    )
    names = json.loads(gh(world, "label", "list", "--json", "name", "-q", "map(.name)")[1])
    assert names[:3] == ["bug", "documentation", "enhancement"] and len(names) == 9


def test_repo_view_text_and_json(world: World) -> None:
    assert gh(world, "repo", "view")[1].startswith("name:\tacme-labs/tinykv\ndescription:\t")
    data = json.loads(
        gh(world, "repo", "view", "--json", "nameWithOwner,defaultBranchRef,stargazerCount")[1]
    )
    assert data == {
        "defaultBranchRef": {"name": "main"},
        "nameWithOwner": "acme-labs/tinykv",
        "stargazerCount": 128,
    }


def test_auth_status_names_the_viewer(world: World) -> None:
    out = gh(world, "auth", "status")[1]
    assert "Logged in to github.com account bench-bot" in out


def test_label_create_edit_delete(world: World) -> None:
    code, _, err, mutated = gh(
        world, "label", "create", "flaky", "-c", "#FF0000", "-d", "Flaky test"
    )
    assert (code, mutated) == (0, True)
    assert err == '✓ Label "flaky" created in acme-labs/tinykv\n'
    label = world.label("flaky")
    assert label is not None and (label.color, label.description) == ("ff0000", "Flaky test")
    code, _, err, _ = gh(world, "label", "create", "bug")
    assert code == 1 and err.startswith('label with name "bug" already exists')
    assert gh(world, "label", "edit", "bug", "--name", "defect")[0] == 0
    assert world.issue(3).labels == ["defect", "performance"]  # type: ignore[union-attr]
    code, _, err, _ = gh(world, "label", "delete", "defect")
    assert code == 1 and err.startswith("--yes required")
    assert gh(world, "label", "delete", "defect", "--yes")[0] == 0
    assert world.label("defect") is None
    assert world.issue(3).labels == ["performance"]  # type: ignore[union-attr]


def test_label_bad_color(world: World) -> None:
    code, _, err, mutated = gh(world, "label", "create", "x", "--color", "red")
    assert (code, mutated) == (1, False) and err.startswith("invalid color")
