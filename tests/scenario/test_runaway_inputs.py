"""Runaway YAML and JSON in scenario files, fixture manifests and sandbox seeds: one clear error
line naming the file and position, in bounded time and memory, never a traceback.

Each document below used to hang or crash: the alias bomb expands to 10^10 nodes (``ghxbench
check`` grew to gigabytes), deep nesting overflowed PyYAML's recursive composer or ``json``'s
decoder, a 5,000-digit integer tripped ``int()``'s digit limit. Every run is a real process with
a memory ceiling and a timeout, so the old behaviour fails fast instead of eating the machine.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.plugin.support import atomic, setup_project

MEMORY_CEILING = 2 * 1024**3
TIMEOUT_S = 60
GHXBENCH = [sys.executable, "-m", "pytest_ghxbench"]
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]


def alias_bomb(first_line: str) -> str:
    """Nine levels of ten aliases each: 10^10 ``x`` once expanded (the "billion laughs")."""
    lines = [first_line, "a: &a [x, x, x, x, x, x, x, x, x, x]"]
    previous = "a"
    for name in "bcdefghij":
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
        previous = name
    return "\n".join(lines) + "\n"


DEEP = 5000
DOCUMENTS = {
    # name: (text, line, column, message)
    "bomb.yaml": (
        alias_bomb("id: bomb-001"),
        3,
        8,
        "YAML aliases (*a) are not allowed in scenario files",
    ),
    "flow.yaml": (
        "id: flow-001\nx: " + "[" * DEEP + "]" * DEEP + "\n",
        2,
        103,  # the 100th bracket: the top-level mapping is the first level
        "YAML nested deeper than 100 levels",
    ),
    "block.yaml": (
        "id: block-001\n" + "".join("  " * i + "a:\n" for i in range(1000)),
        102,
        201,
        "YAML nested deeper than 100 levels",
    ),
    "digits.yaml": (
        "id: digits-001\ntimeout_ms: " + "9" * DEEP + "\n",
        2,
        13,
        "number longer than 40 characters",
    ),
    "deep.json": (
        '{"id": "deep-001", "x": ' + "[" * DEEP + "]" * DEEP + "}",
        1,
        124,
        "JSON refused: nested deeper than 100 levels",
    ),
    "digits.json": (
        '{"id": "digits-001",\n "timeout_ms": ' + "9" * DEEP + "}",
        2,
        16,
        "JSON refused: number longer than 40 characters",
    ),
}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CEILING, MEMORY_CEILING))


def bounded_run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` as a process under the memory ceiling; a hang fails the test on the
    timeout."""
    return subprocess.run(
        command,
        cwd=cwd,
        preexec_fn=_limit_memory,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_check_reports_one_located_line(tmp_path: Path, name: str) -> None:
    text, line, column, message = DOCUMENTS[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    done = bounded_run([*GHXBENCH, "check", name], tmp_path)
    assert done.stdout.splitlines() == [
        f"{name}:{line}:{column}: {message}",
        "0 scenarios, 0 sets, 1 problem",
    ], done.stdout + done.stderr[-2000:]
    assert done.returncode == 1
    assert done.stderr == ""


def test_a_run_with_the_bomb_in_its_scenarios_is_a_collection_error(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    text = DOCUMENTS["bomb.yaml"][0]
    (pytester.path / "scenarios" / "bomb.yaml").write_text(text, encoding="utf-8")
    done = bounded_run([*PYTEST, "--ghx-mode=ghx"], pytester.path)
    out = done.stdout + done.stderr
    assert "bomb.yaml:3:8: YAML aliases (*a) are not allowed in scenario files" in out, out[-3000:]
    assert done.returncode == pytest.ExitCode.INTERRUPTED
    assert "Traceback" not in out and "INTERNALERROR" not in out


@pytest.mark.parametrize(
    ("name", "text", "where", "message"),
    [
        ("manifest.yaml", alias_bomb("repo: {}"), "3:8", "YAML aliases (*a) are not allowed"),
        ("manifest.yaml", "x: " + "[" * DEEP + "]" * DEEP, "1:103", "nested deeper than 100"),
        ("manifest.yaml", "n: " + "9" * DEEP, "1:4", "number longer than 40 characters"),
        ("manifest.json", '{"x": ' + "[" * DEEP + "]" * DEEP + "}", "1:106", "nested deeper"),
        ("manifest.json", '{"n": ' + "9" * DEEP + "}", "1:7", "number longer than 40"),
    ],
)
def test_a_runaway_fixture_manifest_is_one_usage_error(
    pytester: pytest.Pytester, name: str, text: str, where: str, message: str
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    (pytester.path / name).write_text(text, encoding="utf-8")
    done = bounded_run(
        [*PYTEST, "--ghx-mode=ghx", f"--fixture-manifest={name}"],
        pytester.path,
    )
    errors = [line for line in done.stderr.splitlines() if name in line]
    assert len(errors) == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"{name}:{where}:" in errors[0] and message in errors[0]
    assert done.returncode == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (alias_bomb("resources: {}"), "3:8", "YAML aliases (*a) are not allowed in sandbox seeds"),
        ("world: " + "[" * 100_000 + "]" * 100_000, "1:107", "YAML nested deeper than 100 levels"),
        (
            "world: {issues: [{number: " + "9" * DEEP + "}]}",
            "1:27",
            "number longer than 40 characters",
        ),
    ],
)
def test_a_runaway_sandbox_seed_is_one_error(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    (tmp_path / "seed.yaml").write_text(text, encoding="utf-8")
    done = bounded_run(
        [*GHXBENCH, "sandbox", "init", "state.json", "--seed", "seed.yaml"], tmp_path
    )
    # libyaml in PyYAML >= 6.0.4 stops deep flow nesting while scanning ahead, so where a depth
    # refusal is found depends on the PyYAML build; the line and the message do not
    line, column = where.split(":")
    found = re.fullmatch(
        rf"ghxbench sandbox init: seed\.yaml:{line}:(\d+): {re.escape(message)}\n", done.stderr
    )
    assert found is not None, done.stderr
    assert found.group(1) == column or "nested" in message
    assert done.returncode == 2
    assert not (tmp_path / "state.json").exists()
