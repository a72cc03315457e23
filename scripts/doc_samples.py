#!/usr/bin/env python3
"""Regenerate, or check, the sample output shown in README.md and docs/*.md.

A sample is a fenced code block right after a line ``<!-- sample: ID -->`` (GitHub does not
show the comment). ``SAMPLES`` below says how each one is produced from a real run: what to set
up in a fresh temporary directory, what to run, which part of the output the doc keeps and how
the rest is elided. A ``console`` block is run from the doc's own text: its ``$ `` lines are run
in order, in one temporary directory, by the shell, and each command's (shaped) output is put
under it. ``FACTS`` are figures inside sentences ("the 85 tools the real MCP server lists"),
each found by a pattern and computed from the code or a run.

    python scripts/doc_samples.py            # --check: exit 1 and a diff per stale sample
    python scripts/doc_samples.py --write    # rewrite the stale samples in place
    python scripts/doc_samples.py --only ID  # one sample (repeatable); --list shows them all

Numbers that move between runs and machines (the oracle's latency includes real tool time;
pytest prints its duration) are declared per sample as a ``tolerance``: those timings are
regenerated with the block and not compared (a timing cell must still hold a number), and
everything else is compared exactly, after collapsing runs of spaces (column widths follow
number widths). ``--write`` leaves a sample alone while the rest matches, so rerunning it
does not churn the docs.

docs/performance.md is not covered: its measurements are documented with their machine.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

REPO = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- sample: ([A-Za-z0-9_.-]+) -->\s*$")
FENCE = re.compile(r"^(`{3,})(.*)$")
ELIDED = "..."
COMMAND_TIMEOUT_S = 300


class SampleError(Exception):
    """A sample cannot be produced (its run did not print what the definition expects) or its
    doc markup is broken."""


class Skip(Exception):
    """The sample needs a program this machine lacks."""


# --------------------------------------------------------------------------------------------
# The documents


def doc_paths() -> list[Path]:
    """README.md and docs/*.md, without docs/performance.md (measurements of one machine)."""
    docs = sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "performance.md")
    return [REPO / "README.md", *docs]


@dataclass(frozen=True)
class Block:
    """One marked code block of a doc."""

    doc: str  # path relative to the repository
    id: str
    marker: int  # 1-based line of the marker
    first: int  # 0-based index of the first body line
    end: int  # 0-based index of the closing fence
    info: str  # the fence's info string ("console", "text", ...)
    text: str  # the body

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.marker}"


def relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)


def read_blocks(path: Path) -> list[Block]:
    """Every marked block of ``path``; a marker not followed by a fence is an error."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks = []
    for index, line in enumerate(lines):
        marker = MARKER.match(line)
        if not marker:
            continue
        where = f"{relative(path)}:{index + 1}"
        opening = FENCE.match(lines[index + 1]) if index + 1 < len(lines) else None
        if opening is None:
            raise SampleError(f"{where}: the sample marker is not followed by a code fence")
        fence = opening.group(1)
        for end in range(index + 2, len(lines)):
            if lines[end].rstrip() == fence:
                break
        else:
            raise SampleError(f"{where}: the sample's code block is not closed")
        blocks.append(
            Block(
                doc=relative(path),
                id=marker.group(1),
                marker=index + 1,
                first=index + 2,
                end=end,
                info=opening.group(2).strip(),
                text="\n".join(lines[index + 2 : end]),
            )
        )
    return blocks


def find_block(sample: Sample) -> Block:
    found = [block for block in read_blocks(REPO / sample.doc) if block.id == sample.id]
    if len(found) != 1:
        what = "no" if not found else f"{len(found)}"
        raise SampleError(f"{sample.doc}: {what} block marked <!-- sample: {sample.id} -->")
    return found[0]


def replace_block(block: Block, text: str) -> None:
    path = REPO / block.doc
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[block.first : block.end] = text.split("\n") if text else []
    path.write_text("\n".join(lines), encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Running things


def sample_env() -> dict[str, str]:
    """The environment of a sample's commands: this one, with this interpreter's scripts first
    on PATH and without what would make a run differ from a user's plain terminal (CI, xdist,
    pytest options, a GitHub step summary to append to, the caller's terminal width)."""
    dropped = ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "COLUMNS", "LINES", "NO_COLOR")
    dropped_prefixes = ("PYTEST_", "GHXBENCH_", "GH_", "GITHUB_TOKEN", "FORCE_COLOR", "PY_COLORS")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in dropped and not key.startswith(dropped_prefixes)
    }
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["COLUMNS"] = "80"  # pytest's rules (==== ... ====) are as wide as the terminal
    env["PYTHONIOENCODING"] = "utf-8"
    # trio (installed with the dev extras) registers a Hypothesis plugin that makes every
    # pytest session warn about its PRNG; a user without the dev extras sees no such warning.
    env["HYPOTHESIS_NO_PLUGINS"] = "1"
    return env


@dataclass
class Run:
    """One sample's run: a fresh temporary directory and the doc's current block text."""

    tmp: Path
    block: str
    env: dict[str, str] = field(default_factory=sample_env)

    def sh(self, command: str) -> str:
        """Run ``command`` with the shell in the temporary directory: stdout and stderr
        together, as a terminal shows them."""
        done = subprocess.run(
            command,
            shell=True,
            cwd=self.tmp,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )
        text = done.stdout.decode("utf-8", errors="replace")
        if done.returncode in (126, 127):
            raise SampleError(f"`{command}` could not run (exit {done.returncode}):\n{text}")
        return text

    def pytest(self, *args: str) -> str:
        """pytest in the temporary directory (without a .pytest_cache left behind)."""
        return self.sh(shlex.join(["pytest", *args, "-p", "no:cacheprovider"]))

    def until_quiet(self, command: str, quiet_s: float = 1.0, limit_s: float = 60.0) -> str:
        """Start a long-running command, collect what it prints until it has been quiet for
        ``quiet_s``, then stop it with SIGTERM (which it must obey)."""
        process = subprocess.Popen(
            shlex.split(command),
            cwd=self.tmp,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
        )
        assert process.stdout is not None
        lines: list[str] = []
        last = [time.monotonic()]

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                lines.append(line)
                last[0] = time.monotonic()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        started = time.monotonic()
        while time.monotonic() - started < limit_s and process.poll() is None:
            time.sleep(0.05)
            if lines and time.monotonic() - last[0] >= quiet_s:
                break
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise SampleError(f"`{command}` did not stop on SIGTERM") from None
        reader.join(timeout=5)
        return "".join(lines)


def write_files(root: Path, files: Mapping[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def copy_suite(root: Path) -> None:
    """The shipped suite as ``scenarios/`` of ``root``."""
    shutil.copytree(REPO / "scenarios", root / "scenarios")


def files_from_doc(doc: str, names: Sequence[str]) -> Callable[[Path], None]:
    """A setup writing the code blocks of ``doc`` that follow a line "`NAME`:" (the way the
    docs introduce a file) as those files."""

    def setup(root: Path) -> None:
        lines = (REPO / doc).read_text(encoding="utf-8").split("\n")
        for name in names:
            label = [i for i, line in enumerate(lines) if line.strip() == f"`{name}`:"]
            if len(label) != 1:
                raise SampleError(f"{doc}: expected one line `{name}`: introducing the file")
            start = next(i for i in range(label[0] + 1, len(lines)) if FENCE.match(lines[i]))
            fence = FENCE.match(lines[start])
            assert fence is not None
            end = next(i for i in range(start + 1, len(lines)) if lines[i] == fence.group(1))
            write_files(root, {name: "\n".join(lines[start + 1 : end]) + "\n"})

    return setup


# --------------------------------------------------------------------------------------------
# Shaping output: what part of it a doc shows, and how the rest is elided

Shape = Callable[[str], str]


def whole(text: str) -> str:
    return text


def chain(*shapes: Shape) -> Shape:
    def shape(text: str) -> str:
        for step in shapes:
            text = step(text)
        return text

    return shape


def head(count: int, marker: str = ELIDED) -> Shape:
    """The first ``count`` lines, then ``marker`` if there were more."""

    def shape(text: str) -> str:
        lines = text.split("\n")
        return "\n".join(lines[:count] + ([marker] if len(lines) > count else []))

    return shape


def between(start: str, end: str) -> Shape:
    """From the first line matching ``start`` to the next one matching ``end``, both kept."""

    def shape(text: str) -> str:
        lines = text.split("\n")
        first = _index(lines, start, 0)
        last = _index(lines, end, first)
        return "\n".join(lines[first : last + 1])

    return shape


def until(pattern: str, marker: str = ELIDED) -> Shape:
    """The lines up to the first one matching ``pattern``, then ``marker``."""

    def shape(text: str) -> str:
        lines = text.split("\n")
        return "\n".join([*lines[: _index(lines, pattern, 0) + 1], marker])

    return shape


def line(pattern: str) -> Shape:
    """The first line matching ``pattern``; its group 1, if the pattern has one."""

    def shape(text: str) -> str:
        for candidate in text.split("\n"):
            found = re.search(pattern, candidate)
            if found:
                return found.group(1) if found.groups() else candidate
        raise SampleError(f"no line matches {pattern!r} in:\n{text}")

    return shape


def _index(lines: Sequence[str], pattern: str, start: int) -> int:
    for index in range(start, len(lines)):
        if re.search(pattern, lines[index]):
            return index
    raise SampleError(f"no line matches {pattern!r} in:\n" + "\n".join(lines))


def drop(*patterns: str, marker: str = ELIDED) -> Shape:
    """Without the lines matching any of ``patterns``; each run of dropped lines becomes one
    ``marker`` line. A blank line stays only between two kept lines."""
    return _elide(lambda text: any(re.search(p, text) for p in patterns), marker)


def keep(*patterns: str, marker: str = ELIDED) -> Shape:
    """Only the lines matching one of ``patterns``, with ``marker`` for each run of others."""
    return _elide(lambda text: not any(re.search(p, text) for p in patterns), marker)


def _elide(dropped: Callable[[str], bool], marker: str) -> Shape:
    def shape(text: str) -> str:
        lines = text.split("\n")
        gone = [bool(line.strip()) and dropped(line) for line in lines]
        for index, text_line in enumerate(lines):
            if not text_line.strip():  # a blank line goes with a dropped neighbour
                before = _neighbour(lines, gone, index, -1)
                after = _neighbour(lines, gone, index, +1)
                gone[index] = before or after
        shown: list[str] = []
        for text_line, is_gone in zip(lines, gone, strict=True):
            if not is_gone:
                shown.append(text_line)
            elif not shown or shown[-1] != marker:
                shown.append(marker)
        return "\n".join(shown)

    return shape


def _neighbour(lines: Sequence[str], gone: Sequence[bool], index: int, step: int) -> bool:
    index += step
    while 0 <= index < len(lines):
        if lines[index].strip():
            return gone[index]
        index += step
    return False


def substitute(pattern: str, replacement: str) -> Shape:
    """Replace what changes on every run (a port, a temporary path, a token) by a fixed
    text."""
    return lambda text: re.sub(pattern, replacement, text)


def list_head(after: str, count: int, marker: str = ELIDED) -> Shape:
    """On the line containing ``after``, keep the first ``count`` items of the comma-separated
    list that follows it, then ``marker``."""

    def shape(text: str) -> str:
        lines = text.split("\n")
        for index, text_line in enumerate(lines):
            if after in text_line:
                prefix, items = text_line.split(after, 1)
                parts = items.split(", ")
                if len(parts) > count:
                    parts = [*parts[:count], marker]
                lines[index] = prefix + after + ", ".join(parts)
        return "\n".join(lines)

    return shape


def json_fields(
    at: Sequence[str] = (),
    *,
    first: int | None = None,
    only: Sequence[str] = (),
    hide: Sequence[str] = (),
) -> Shape:
    """Each line is one compact JSON value; the object at key path ``at`` keeps its ``first``
    N keys or the keys in ``only`` (each run of others is written ``...``), and the values of
    ``hide`` are written ``"..."``. The rest is reprinted exactly as the program printed it
    (checked: a line whose compact JSON does not round-trip is an error)."""

    def shape(text: str) -> str:
        return "\n".join(_json_line(line) for line in text.split("\n") if line.strip())

    def _json_line(text_line: str) -> str:
        value = json.loads(text_line)
        for ascii_only in (False, True):
            if _dumps(value, ascii_only) == text_line.strip():
                return _render(value, list(at), ascii_only)
        raise SampleError(f"not compact JSON, so it cannot be elided exactly: {text_line}")

    def _render(value: Any, path: list[str], ascii_only: bool) -> str:
        if not isinstance(value, dict):
            raise SampleError(f"no object at {'.'.join(at)} in the JSON output")
        if path:
            rendered = {
                key: _render(item, path[1:], ascii_only)
                if key == path[0]
                else _dumps(item, ascii_only)
                for key, item in value.items()
            }
            return "{" + ",".join(f"{_dumps(k, ascii_only)}:{v}" for k, v in rendered.items()) + "}"
        shown = set(list(value)[:first] if first is not None else only)
        parts, skipping = [], False
        for key, item in value.items():
            if key not in shown:
                skipping = True
                continue
            if skipping:
                parts.append(ELIDED)
                skipping = False
            text = '"..."' if key in hide else _dumps(item, ascii_only)
            parts.append(f"{_dumps(key, ascii_only)}:{text}")
        if skipping:
            parts.append(ELIDED)
        return "{" + ",".join(parts) + "}"

    return shape


def _dumps(value: Any, ascii_only: bool) -> str:
    return json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))


# --------------------------------------------------------------------------------------------
# Comparing a doc's block with its regenerated text


def cells(text_line: str) -> list[str]:
    """The cells of an aligned table line: separated by two or more spaces."""
    return re.split(r" {2,}", text_line.strip())


def collapse(text_line: str) -> str:
    return re.sub(r" +", " ", text_line).strip()


def number(cell: str) -> float | None:
    """The number in a cell such as "4,982", "-12.1%", "+0.0 pp", "$0.0072"."""
    found = re.fullmatch(r"\$?([-+]?)\$?([\d,]*\.?\d+)\s*(%|pp|ms|s)?", cell.strip())
    if not found:
        return None
    return float(found.group(1) + found.group(2).replace(",", ""))


class Tolerance(Protocol):
    def normalize(self, text_line: str) -> str: ...

    def slots(self, table: Sequence[Sequence[str]]) -> Mapping[tuple[int, int], Close]: ...


Close = Callable[[str, str], bool]


@dataclass(frozen=True)
class Timing:
    """The timings of one column of an aligned table (found by its heading), or of one row of
    it (the row with a cell equal to ``row``): regenerated with the block, never compared. Any
    number matches (a cell that is not a number does not): how long a run takes is the
    machine's business, and bench/ measures it."""

    heading: str
    row: str | None = None

    def normalize(self, text_line: str) -> str:
        return text_line

    def slots(self, table: Sequence[Sequence[str]]) -> Mapping[tuple[int, int], Close]:
        found: dict[tuple[int, int], Close] = {}
        header: Sequence[str] | None = None
        column = -1
        for index, row in enumerate(table):
            if self.heading in row:
                header, column = row, list(row).index(self.heading)
                continue
            if header is None:
                continue
            if row == [""]:  # a table ends at a blank line (an elided line does not end it)
                header = None
                continue
            if len(row) == len(header) and (self.row is None or self.row in row):
                found[(index, column)] = self.close
        return found

    @staticmethod
    def close(expected: str, actual: str) -> bool:
        return number(expected) is not None and number(actual) is not None


@dataclass(frozen=True)
class PytestDuration:
    """pytest's closing line, "==== 12 passed in 0.60s ====": the duration (and so the width
    of the ==== rules around it) is not compared."""

    def normalize(self, text_line: str) -> str:
        return re.sub(
            r"^=+ (.*) in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))? =+$",
            r"= \1 in (duration) =",
            text_line,
        )

    def slots(self, table: Sequence[Sequence[str]]) -> Mapping[tuple[int, int], Close]:
        return {}


def compare(expected: str, actual: str, tolerance: Iterable[Tolerance] = ()) -> list[str]:
    """What differs between a doc's block (``expected``) and the regenerated text, beyond the
    tolerance: an empty list when they match."""
    rules = list(tolerance)

    def lines(text: str) -> list[str]:
        out = []
        for text_line in text.split("\n"):
            for rule in rules:
                text_line = rule.normalize(text_line)
            out.append(text_line.rstrip())
        return out

    want, got = lines(expected), lines(actual)
    if len(want) != len(got):
        return [f"{len(want)} lines in the doc, {len(got)} regenerated"]
    table = [cells(text_line) for text_line in got]
    slots: dict[tuple[int, int], Close] = {}
    for rule in rules:
        slots.update(rule.slots(table))
    problems = []
    for index, (doc_line, new_line) in enumerate(zip(want, got, strict=True)):
        if collapse(doc_line) == collapse(new_line):
            continue
        doc_cells, new_cells = cells(doc_line), table[index]
        tolerated = len(doc_cells) == len(new_cells) and all(
            collapse(a) == collapse(b) or ((index, j) in slots and slots[(index, j)](a, b))
            for j, (a, b) in enumerate(zip(doc_cells, new_cells, strict=True))
        )
        if not tolerated:
            doc_part, new_part = _where_they_differ(collapse(doc_line), collapse(new_line))
            problems.append(f"line {index + 1}: doc {doc_part!r}, regenerated {new_part!r}")
    return problems


def _where_they_differ(doc: str, new: str, context: int = 30) -> tuple[str, str]:
    """The two texts around their first difference (long JSON lines stay readable)."""
    pairs = enumerate(zip(doc, new, strict=False))
    start = next((i for i, (a, b) in pairs if a != b), min(len(doc), len(new)))
    begin = max(0, start - context)
    lead = "..." if begin else ""
    return (
        lead + doc[begin : start + context] + ("..." if len(doc) > start + context else ""),
        lead + new[begin : start + context] + ("..." if len(new) > start + context else ""),
    )


# --------------------------------------------------------------------------------------------
# Sample and fact definitions

Make = Callable[[Run], str]


@dataclass(frozen=True)
class Sample:
    """How one marked block is produced."""

    id: str
    doc: str
    make: Make
    tolerance: tuple[Tolerance, ...] = ()
    needs: tuple[str, ...] = ()  # programs that must be on PATH

    def produce(self, block: str) -> str:
        for program in self.needs:
            if shutil.which(program) is None:
                raise Skip(f"{self.id} needs {program}, which is not on PATH")
        with tempfile.TemporaryDirectory(prefix=f"doc-sample-{self.id}-") as tmp:
            text = self.make(Run(Path(tmp), block))
        return "\n".join(text_line.rstrip() for text_line in text.strip("\n").split("\n"))


@dataclass(frozen=True)
class Fact:
    """A figure inside sentences: each pattern's group 1, in its doc, must be ``value()``. A
    space in a pattern matches any whitespace, line breaks included (sentences wrap)."""

    id: str
    value: Callable[[], str]
    places: tuple[tuple[str, str], ...]  # (doc, pattern)


def console(
    *,
    setup: Callable[[Path], None] | None = None,
    prefix: str = "",
    shapes: Mapping[str, Shape] | None = None,
    long_running: Sequence[str] = (),
) -> Make:
    """A ``console`` block run from the doc's text: every ``$ `` line (``\\`` continues it) is
    run in order with the shell, after ``prefix``; the output of the first ``shapes`` key found
    in the command is shaped by it (otherwise kept whole). A command containing one of
    ``long_running`` runs until it has printed everything, then gets SIGTERM."""

    def make(run: Run) -> str:
        if setup is not None:
            setup(run.tmp)
        shown: list[str] = []
        for source, command in console_commands(run.block):
            shown.extend(source)
            full = prefix + command
            if any(part in command for part in long_running):
                output = run.until_quiet(full)
            else:
                output = run.sh(full)
            shape = next((s for key, s in (shapes or {}).items() if key in command), whole)
            text = shape(output.rstrip("\n"))
            if text:
                shown.extend(text.split("\n"))
        if not shown:
            raise SampleError("the console block has no `$ ` command")
        return "\n".join(shown)

    return make


def console_commands(block: str) -> list[tuple[list[str], str]]:
    """The commands of a console block: (their doc lines, the command)."""
    commands: list[tuple[list[str], str]] = []
    lines = block.split("\n")
    index = 0
    while index < len(lines):
        if lines[index].startswith("$ "):
            source = [lines[index]]
            while source[-1].endswith("\\") and index + 1 < len(lines):
                index += 1
                source.append(lines[index])
            command = " ".join(part.rstrip("\\").strip() for part in source)[2:]
            commands.append((source, command))
        index += 1
    return commands


# The per-mode table, checks and verdict of a comparison run. The table's latency columns and
# the latency check's value carry the oracle's real tool wall time.
LATENCY = (
    Timing("med latency ms"),
    Timing("p90 latency ms"),
    Timing("value", row="efficiency_latency_reduction"),
)
# The checks the README shows besides the failing ones: the reliability headline and tokens.
README_CHECKS = ("reliability_success_rate_non_inferior", "efficiency_tokens_active_reduction")


# The command the README names under the sample (run here against the repository's scenarios/,
# as it would be from the checkout's root).
README_GATE_ARGS = (
    "--ghx-mode=agent_direct,mcp,ghx",
    "--reps=4",
    "--gate-profile",
    "verify_pr",
    "--scenario-set=default",
)


README_SHAPE = chain(
    between(r"^mode\s", r"^ghxbench verdict:"),
    drop(
        r"^PASS\s+(?!(?:" + "|".join(README_CHECKS) + r")\s)\S",  # the other passing checks
        r"^[a-z ]+: /",  # where the run's files went ("rows: /tmp/..."): a temporary directory
    ),
)


def readme_gate(run: Run) -> str:
    return README_SHAPE(run.pytest(*README_GATE_ARGS, f"--ghx-scenarios={REPO / 'scenarios'}"))


# The TypeScript harness's issue-delete-001 (as in shared/external/ghx-scenarios), in YAML.
ISSUE_DELETE_SCENARIO = """\
id: issue-delete-001
name: Delete an issue
task: issue.delete
input: {issueId: ISSUE_ID_PLACEHOLDER}
prompt_template: >-
  Execute task {{task}} using input {{input_json}}. Return only valid JSON matching this
  envelope: {"ok": boolean, "data": any, "error": object|null, "meta": object}.
timeout_ms: 60000
allowed_retries: 0
fixture:
  bindings: {input.issueId: resources.issue.id}
assertions:
  require_tool_calls: true
  min_tool_calls: 1
  required_fields: [ok, data, error, meta]
  expected_outcome: success
tags: [issues, issue, mutation, destructive]
"""


def oracle_issue_delete(run: Run) -> str:
    write_files(run.tmp, {"scenarios/issue-delete-001.yaml": ISSUE_DELETE_SCENARIO})
    output = run.pytest("--ghx-mode=mcp", "-k", "issue-delete-001")
    return line(r"^\s*final answer: (.*)$")(output)


def metrics_profile_error(run: Run) -> str:
    write_files(
        run.tmp, {"pyproject.toml": "[tool.ghxbench.profiles.verify_pr]\nefficiency_covrage = 60\n"}
    )
    output = run.pytest("--ghx-mode=ghx")
    return chain(line(r"^ERROR: ghxbench: (profile .*)$"), list_head("valid keys: ", 3))(output)


HOOK_ERROR_CONFTEST = """\
def pytest_ghxbench_row(row, item):
    raise ValueError("dashboard down")
"""


def extending_hook_error(run: Run) -> str:
    write_files(run.tmp, {"conftest.py": HOOK_ERROR_CONFTEST})
    output = run.pytest(
        "--ghx-mode=ghx", "-k", "repo-view-001", f"--ghx-scenarios={REPO / 'scenarios'}"
    )
    return line(r"^hook error: ")(output)


FAILING_ADAPTER_CONFTEST = """\
class MyAgent:
    name = "my-agent"
    modes = ("ghx",)

    def run(self, request):
        reply = {"output": "..."}  # what the runtime answered, without the usage it should have
        return reply["usage"]


def pytest_ghxbench_adapters(config):
    return [MyAgent()]
"""


def methodology_failure(run: Run) -> str:
    copy_suite(run.tmp)
    write_files(run.tmp, {"conftest.py": FAILING_ADAPTER_CONFTEST})
    output = run.pytest("--ghx-mode=ghx", "--ghx-adapter=my-agent", "-k", "pr-view-001")
    return chain(
        between(r"\] failed \(success=", r"^adapter traceback"),
        until(r"^adapter traceback", marker="…"),
        # the run id is new on every run; the docs' example run id stands for it
        substitute(r"run_\d{8}T\d{6}Z_[0-9a-f]{6}", "run_20250101T120000Z_3fa2c1"),
    )(output)


def suite_with_mistakes(root: Path) -> None:
    """The shipped suite with the mistakes docs/scenarios.md lists."""
    copy_suite(root)
    scenarios = root / "scenarios"
    pr_view = scenarios / "prs" / "pr-view-001.yaml"
    text = pr_view.read_text(encoding="utf-8")
    bounds = "  min_tool_calls: 1\n  max_tool_calls: 3\n"
    if bounds not in text:
        raise SampleError(f"{pr_view.name} changed: the sample edits {bounds!r}")
    mistakes = "  min_tool_calls: 2\n  max_tool_calls: 1\n  must_succed: true\n"
    pr_view.write_text(text.replace(bounds, mistakes), encoding="utf-8")
    sets = scenarios / "scenario-sets.yaml"
    text = sets.read_text(encoding="utf-8")
    sets.write_text(text.replace("  - issue-view-001\n", "  - issue-veiw-001\n", 1), "utf-8")
    write_files(
        scenarios,
        {
            "issues/broken.yaml": "id: broken-001\nname: Broken\ntask: issue.view: 3\n",
            "repo/old.json": b'{\n "id":\xff"old-001"}\n',
        },
    )


SERVE_PORT = "36939"  # the port is new on every run; the doc shows this one
SERVE_SHAPE = chain(
    substitute(r"127\.0\.0\.1:\d+", f"127.0.0.1:{SERVE_PORT}"),
    substitute(r"(?:/[^/\s=]+)*/ghxbench-serve-[^/\s]+/", "/tmp/ghxbench-serve-.../"),
    substitute(r"ghs_sbx_\w+", "ghs_sbx_..."),
    drop(
        r"^export (HTTPS_PROXY|http_proxy|https_proxy|NO_PROXY|no_proxy)=",
        r"^export (REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|NODE_EXTRA_CA_CERTS)=",
    ),
)

SAMPLES: dict[str, Sample] = {
    sample.id: sample
    for sample in (
        Sample("readme-gate", "README.md", readme_gate, tolerance=LATENCY),
        Sample(
            "ghx-sandbox",
            "docs/ghx.md",
            console(
                prefix="ghxbench sandbox run --mode ghx -- ",
                shapes={"run pr.view": json_fields(["data"], first=4)},
            ),
        ),
        Sample(
            "sandbox-run",
            "docs/sandbox.md",
            console(
                shapes={
                    "gh pr view 7": head(13),
                    "issue.view": json_fields(["data"], first=13, hide=["body"]),
                }
            ),
        ),
        Sample("sandbox-proxy", "docs/sandbox.md", console(), needs=("curl",)),
        Sample(
            "sandbox-state",
            "docs/sandbox.md",
            console(
                shapes={
                    "issue.view": json_fields(
                        ["data"], only=["number", "state", "stateReason", "closedAt"]
                    )
                }
            ),
        ),
        Sample(
            "sandbox-serve",
            "docs/sandbox.md",
            console(long_running=["sandbox serve"], shapes={"sandbox serve": SERVE_SHAPE}),
        ),
        Sample("scenarios-check", "docs/scenarios.md", console(setup=copy_suite)),
        Sample("scenarios-check-mistakes", "docs/scenarios.md", console(setup=suite_with_mistakes)),
        Sample("oracle-issue-delete", "docs/oracle.md", oracle_issue_delete),
        Sample("metrics-profile-error", "docs/metrics.md", metrics_profile_error),
        Sample(
            "extending-toy-run",
            "docs/extending.md",
            console(
                setup=files_from_doc(
                    "docs/extending.md",
                    [
                        "conftest.py",
                        "scenarios/repo-view-001.yaml",
                        "scenarios/workflows/issue-close-wf-001.yaml",
                    ],
                ),
                shapes={"pytest": keep(r"^ghxbench verdict:", r"^=+ .* in [\d.]+s")},
            ),
            tolerance=(PytestDuration(),),
        ),
        Sample("extending-hook-error", "docs/extending.md", extending_hook_error),
        Sample("methodology-failure", "docs/methodology.md", methodology_failure),
    )
}


@cache
def mcp_tool_count() -> str:
    """How many tools the pinned MCP server lists (what the oracle puts in front of an agent in
    the mcp mode), asked of the real server."""
    code = (
        "from pytest_ghxbench.adapters.oracle.adapter import tool_definitions;"
        "print(len(tool_definitions('mcp')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=sample_env(),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise SampleError(f"listing the MCP server's tools failed:\n{done.stderr}")
    return done.stdout.strip()


@cache
def suite_counts() -> dict[str, str]:
    from pytest_ghxbench.scenario import load_catalog

    catalog = load_catalog(REPO / "scenarios")
    if catalog.errors:
        raise SampleError(f"the shipped suite does not load: {catalog.errors[0]}")
    kinds = [loaded.scenario.kind for loaded in catalog.scenarios.values()]
    return {
        "scenarios": str(len(catalog.scenarios)),
        "atomic": str(kinds.count("atomic")),
        "workflow": str(kinds.count("workflow")),
        "sets": str(len(catalog.sets)),
    }


FACTS: dict[str, Fact] = {
    fact.id: fact
    for fact in (
        Fact(
            "mcp-tool-count",
            mcp_tool_count,
            (
                ("README.md", r"the (\d+) tools the real MCP server lists"),
                ("docs/oracle.md", r"the (\d+) tools the real server lists"),
            ),
        ),
        Fact(
            "readme-gate-command",
            lambda: shlex.join(["pytest", *README_GATE_ARGS]),
            (("README.md", r"\(That is `(pytest [^`]+)`"),),
        ),
        Fact(
            "suite-scenarios",
            lambda: suite_counts()["scenarios"],
            (
                ("README.md", r"(\d+) scenarios in \d+ sets"),
                ("docs/scenarios.md", r"holds (\d+) scenarios \("),
            ),
        ),
        Fact(
            "suite-kinds",
            lambda: f"{suite_counts()['atomic']} atomic, {suite_counts()['workflow']} workflows",
            (("docs/scenarios.md", r"\((\d+ atomic, \d+ workflows)\)"),),
        ),
        Fact(
            "suite-sets",
            lambda: suite_counts()["sets"],
            (
                ("README.md", r"\d+ scenarios in (\d+) sets"),
                ("docs/scenarios.md", r"names (\d+) sets"),
                ("docs/scenarios.md", r"has the (\d+) sets"),
            ),
        ),
    )
}


# --------------------------------------------------------------------------------------------
# Checking and writing


@dataclass
class Finding:
    """A stale sample (``problems`` and ``diff``), or one skipped on this machine."""

    id: str
    where: str
    problems: list[str] = field(default_factory=list)
    diff: str = ""
    skipped: str = ""

    def report(self) -> str:
        if self.skipped:
            return f"{self.where}: sample {self.id} skipped: {self.skipped}"
        lines = [f"{self.where}: sample {self.id} is stale", *self.problems]
        return "\n".join(lines + ([self.diff] if self.diff else []))


def all_ids() -> list[str]:
    ids = [*SAMPLES, *FACTS]
    if len(set(ids)) != len(ids):
        raise SampleError("a sample and a fact share an id")
    return ids


def markup_problems() -> list[str]:
    """Markers naming no sample, and samples with no marker (or one in another doc)."""
    problems = []
    seen: dict[str, str] = {}
    for path in doc_paths():
        for block in read_blocks(path):
            sample = SAMPLES.get(block.id)
            if sample is None:
                problems.append(f"{block.where}: no sample is defined as {block.id!r}")
            elif sample.doc != block.doc:
                problems.append(f"{block.where}: sample {block.id} is defined for {sample.doc}")
            elif block.id in seen:
                problems.append(f"{block.where}: sample {block.id} is also at {seen[block.id]}")
            seen.setdefault(block.id, block.where)
    problems.extend(
        f"{sample.doc}: no block is marked <!-- sample: {sample.id} -->"
        for sample in SAMPLES.values()
        if sample.id not in seen
    )
    return problems


def check_sample(sample_id: str, write: bool = False) -> Finding | None:
    """None when the sample matches its doc; otherwise what is stale (rewritten if
    ``write``)."""
    if sample_id in FACTS:
        return _check_fact(FACTS[sample_id], write)
    sample = SAMPLES[sample_id]
    block = find_block(sample)
    try:
        new = sample.produce(block.text)
    except Skip as skip:
        return Finding(sample.id, block.where, skipped=str(skip))
    problems = compare(block.text, new, sample.tolerance)
    if not problems:
        return None
    diff = "\n".join(
        difflib.unified_diff(
            block.text.split("\n"),
            new.split("\n"),
            fromfile=f"{block.where} ({sample.id}, in the doc)",
            tofile=f"{block.where} ({sample.id}, regenerated)",
            lineterm="",
        )
    )
    if write:
        replace_block(block, new)
    return Finding(sample.id, block.where, problems, diff)


def _check_fact(fact: Fact, write: bool) -> Finding | None:
    value = fact.value()
    finding = Finding(fact.id, ", ".join(doc for doc, _ in fact.places))
    diffs = []
    for doc, pattern in fact.places:
        path = REPO / doc
        text = path.read_text(encoding="utf-8")
        matches = list(re.finditer(pattern.replace(" ", r"\s+"), text))
        if not matches:
            finding.problems.append(f"{doc}: no sentence matches {pattern!r} (reworded?)")
            continue
        for found in reversed(matches):
            said = " ".join(found.group(1).split())  # the sentence may wrap inside the figure
            if said == value:
                continue
            line_no = text.count("\n", 0, found.start()) + 1
            finding.problems.append(f"{doc}:{line_no}: says {said!r}, the code says {value!r}")
            fixed = found.group(0).replace(found.group(1), value)
            diffs.append(f"--- {doc}:{line_no}\n-{found.group(0)}\n+{fixed}")
            text = text[: found.start(1)] + value + text[found.end(1) :]
        if write and diffs:
            path.write_text(text, encoding="utf-8")
    finding.diff = "\n".join(diffs)
    return finding if finding.problems else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="report stale samples (default)")
    mode.add_argument("--write", action="store_true", help="rewrite stale samples in place")
    mode.add_argument("--list", action="store_true", help="list the sample ids and places")
    parser.add_argument("--only", action="append", metavar="ID", help="only this sample")
    args = parser.parse_args(argv)

    if args.list:
        for sample in SAMPLES.values():
            print(f"{sample.id}\t{find_block(sample).where}")
        for fact in FACTS.values():
            print(f"{fact.id}\t" + ", ".join(doc for doc, _ in fact.places))
        return 0
    ids = args.only or all_ids()
    unknown = [sample_id for sample_id in ids if sample_id not in all_ids()]
    if unknown:
        parser.error(f"unknown sample id {unknown[0]!r}; --list shows them")
    problems = markup_problems() if not args.only else []
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 2
    stale = 0
    for sample_id in ids:
        try:
            finding = check_sample(sample_id, write=args.write)
        except SampleError as error:
            print(f"sample {sample_id}: cannot be produced: {error}", file=sys.stderr)
            return 2
        if finding is None:
            print(f"ok       {sample_id}")
            continue
        if finding.skipped:
            print(finding.report(), file=sys.stderr)
            continue
        stale += 1
        print(("rewrote  " if args.write else "STALE    ") + sample_id)
        if not args.write:
            print(finding.report())
    return 1 if stale and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
