"""State files: round trips, clear errors, atomic saves and the exclusive lock."""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
import time
from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.manifest import fresh_world
from pytest_ghxbench.sandbox.state import Comment
from pytest_ghxbench.sandbox.statefile import (
    StateFileError,
    init_state,
    load_world,
    lock_path,
    locked_state,
    repo_path,
    save_world,
)
from tests.code import commit_on


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    init_state(path)
    return path


def test_init_writes_the_seeded_world(state: Path) -> None:
    assert load_world(state).model_dump() == fresh_world().model_dump()
    document = json.loads(state.read_text(encoding="utf-8"))
    assert document["format"] == "ghxbench-sandbox-state" and document["version"] == 2
    assert stat.S_IMODE(state.stat().st_mode) == 0o644


def test_the_state_keeps_its_code_in_a_repository_beside_it(state: Path) -> None:
    world = load_world(state)
    assert world.git.branches() == fresh_world().git.branches()
    assert world.git.path == repo_path(state)
    sha = commit_on(world, "main", {"NOTES.md": "kept\n"}, "Keep a note")
    save_world(state, world)
    again = load_world(state)
    assert again.git.branches()["main"] == sha
    assert again.git.read(sha, "NOTES.md") == b"kept\n"
    # the repository stands alone: nothing in it points at this process's scratch copies
    assert not (repo_path(state) / "objects" / "info" / "alternates").exists()


def test_a_state_without_its_repository_is_refused(state: Path) -> None:
    shutil.rmtree(repo_path(state))
    with pytest.raises(StateFileError, match=r"state.json.git is missing"):
        load_world(state)


def test_save_then_load_keeps_every_change(state: Path) -> None:
    world = load_world(state)
    issue = world.issue(3)
    assert issue is not None
    issue.comments.append(Comment(id=world.next_id(), author="mona", body="é ✓", created_at="x"))
    world.tick()
    save_world(state, world)
    again = load_world(state)
    assert again.model_dump() == world.model_dump()
    assert again.issue(3).comments[-1].body == "é ✓"  # type: ignore[union-attr]


def test_save_replaces_the_file_so_open_readers_keep_a_whole_old_state(state: Path) -> None:
    before = state.read_text(encoding="utf-8")
    world = load_world(state)
    world.issues.clear()
    with state.open(encoding="utf-8") as reader:  # opened before the save
        save_world(state, world)
        assert reader.read() == before
    assert load_world(state).issues == []
    assert sorted(p.name for p in state.parent.iterdir()) == [
        "state.json",
        "state.json.git",
        "state.json.lock",
    ]


def test_a_failed_save_leaves_the_old_state_and_no_temporary_file(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = state.read_bytes()
    world = load_world(state)
    world.issues.clear()

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(StateFileError, match=r"cannot write sandbox state.*Permission denied"):
        save_world(state, world)
    assert state.read_bytes() == before
    assert sorted(p.name for p in state.parent.iterdir()) == [
        "state.json",
        "state.json.git",
        "state.json.lock",
    ]


def test_save_keeps_the_mode_of_the_file_it_replaces(state: Path) -> None:
    state.chmod(0o600)
    save_world(state, load_world(state))
    assert stat.S_IMODE(state.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            '{"format": "ghxbench-sandbox-state",\n "version": 1,, }',
            "line 2 column 15: invalid JSON",
        ),
        ('{"world": {}}', "not a sandbox state file"),
        ("[1, 2]", "not a sandbox state file"),
        ('{"format": "ghxbench-sandbox-state", "version": 7, "world": {}}', "version 7"),
        (
            '{"format": "ghxbench-sandbox-state", "version": 2, "world": {"viewer": "me"}}',
            "world.repository: Field required",
        ),
    ],
)
def test_load_errors_name_the_file_and_the_problem(
    tmp_path: Path, content: str, expected: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(StateFileError) as caught:
        load_world(path)
    assert str(caught.value).startswith(f"{path}: ") and expected in str(caught.value)


def test_missing_state_says_how_to_create_one(tmp_path: Path) -> None:
    with pytest.raises(StateFileError, match=r"not found.*ghxbench sandbox init"):
        load_world(tmp_path / "nope.json")


def test_the_lock_is_exclusive_and_released_on_exit(state: Path) -> None:
    holding = threading.Event()
    events: list[str] = []

    def holder() -> None:
        with locked_state(state):
            holding.set()
            time.sleep(0.2)
            events.append("holder releases")

    thread = threading.Thread(target=holder)
    thread.start()
    assert holding.wait(600)  # the holder has the lock (its sleep is the window to take it)
    with locked_state(state):  # flock locks open file descriptions: threads exclude each other
        events.append("second acquires")
    thread.join()
    assert events == ["holder releases", "second acquires"]
    assert lock_path(state).exists()


def test_the_lock_is_released_when_the_body_raises(state: Path) -> None:
    with pytest.raises(RuntimeError), locked_state(state):
        raise RuntimeError("boom")
    done = threading.Event()

    def take() -> None:
        with locked_state(state):
            done.set()

    threading.Thread(target=take, daemon=True).start()
    assert done.wait(600)  # a hang guard: a lock still held would never let it


def test_lock_in_a_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with (
        pytest.raises(StateFileError, match="cannot open lock file"),
        locked_state(tmp_path / "no" / "state.json"),
    ):
        pass
