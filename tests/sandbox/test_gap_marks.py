"""Every fake marked in the sandbox's code (a ``# gap:`` comment) is recorded where it is made:
the lines after the mark call ``record_unsupported`` (or ``record``), so an item that meets the
fake has it in its ``sandbox_gaps``."""

from __future__ import annotations

import re
from pathlib import Path

from tests.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "pytest_ghxbench"
MARK = re.compile(r"^\s*#\s*gap:")
RECORDS = re.compile(r"\brecord(_unsupported)?\(")
WITHIN = 4
"""Lines after a mark where the recording call must be."""


def marks() -> list[tuple[Path, int, list[str]]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for index, line in enumerate(lines):
            if MARK.search(line):
                found.append((path, index + 1, lines[index + 1 : index + 1 + WITHIN]))
    return found


def test_every_marked_fake_is_recorded_as_a_gap() -> None:
    unrecorded = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path, number, after in marks()
        if not any(RECORDS.search(line) for line in after)
    ]
    assert not unrecorded, (
        "these '# gap:' marks are not followed (within "
        f"{WITHIN} lines) by record_unsupported('<what is faked>'): {', '.join(unrecorded)}"
    )
