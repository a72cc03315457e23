"""Faithfulness cases: loading the corpora (``FORMAT.md``), what a step yields, and checking it.

A corpus file is a YAML list of cases; :func:`load_corpora` reads every one of them and raises
:class:`CorpusError` naming the file and the case on the first bad input. A client module's
``run_step(step, session)`` answers an :class:`Outcome`; :func:`failures` says which of a
case's expectations that outcome misses, each with the actual value.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CLIENTS = ("gh", "git", "mcp", "graphql")
CASE_TIMEOUT = 30.0
"""Seconds a case (its setup and its run) may take; past that it is a divergence."""

_CASE_KEYS = {"id", "client", "why", "setup", "run", "expect"}
_EXPECT_KEYS = {"exit", "output_contains", "output_lacks", "json", "status"}
_CHECK_KINDS = ("equals", "contains", "length", "exists")


class CorpusError(Exception):
    """A corpus file that does not follow FORMAT.md."""


class CaseTimeout(Exception):
    """The case's time ran out while a step was running."""


@dataclass(frozen=True)
class Outcome:
    """What a client answered to one step."""

    exit: int
    output: str
    json: Any | None = None
    """The parsed JSON answer, or None when the answer is not JSON."""
    status: int | None = None
    """The HTTP status, for clients that see it."""


@dataclass(frozen=True)
class JsonCheck:
    path: str
    kind: str
    """One of ``equals``, ``contains``, ``length``, ``exists``."""
    value: Any


@dataclass(frozen=True)
class Expectation:
    exit: int
    output_contains: tuple[str, ...] = ()
    output_lacks: tuple[str, ...] = ()
    json: tuple[JsonCheck, ...] = ()
    status: int | None = None


@dataclass(frozen=True)
class Case:
    id: str
    client: str
    why: str
    run: Any
    expect: Expectation
    setup: tuple[Any, ...] = ()
    source: Path = field(default=Path("."), compare=False)


# -- loading -----------------------------------------------------------------------------------


def file_client(path: Path) -> str | None:
    """The client a corpus file is named for (``<client>-<topic>.yaml``), if any."""
    prefix = path.name.split("-", 1)[0]
    return prefix if prefix in CLIENTS else None


def load_corpora(directory: Path, client: str | None = None) -> list[Case]:
    """Every case of every ``*.yaml`` in ``directory`` (of ``client``'s files only, when given),
    in file order; ids unique across them."""
    cases: list[Case] = []
    seen: dict[str, Path] = {}
    for path in sorted(directory.glob("*.yaml")):
        if client is not None and file_client(path) != client:
            continue
        for case in load_file(path):
            if case.id in seen:
                raise CorpusError(
                    f"{path.name}: case {case.id!r}: id already used in {seen[case.id].name}"
                )
            seen[case.id] = path
            cases.append(case)
    return cases


def load_file(path: Path) -> list[Case]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise CorpusError(f"{path.name}: not YAML: {error}") from error
    if not isinstance(data, list):
        raise CorpusError(f"{path.name}: a corpus is a list of cases")
    cases = []
    for index, raw in enumerate(data):
        label = raw.get("id") if isinstance(raw, dict) else None
        where = (
            f"{path.name}: case {label!r}"
            if isinstance(label, str)
            else f"{path.name}: case #{index + 1}"
        )
        try:
            case = _case(raw, path)
            named = file_client(path)
            if named is not None and case.client != named:
                raise CorpusError(f"client {case.client!r} in a file of {named} cases")
        except CorpusError as error:
            raise CorpusError(f"{where}: {error}") from None
        cases.append(case)
    return cases


def _case(raw: Any, path: Path) -> Case:
    if not isinstance(raw, dict):
        raise CorpusError("a case is a mapping")
    unknown = set(raw) - _CASE_KEYS
    if unknown:
        raise CorpusError(f"unknown keys {sorted(unknown)}")
    for key in ("id", "client", "why", "run", "expect"):
        if key not in raw:
            raise CorpusError(f"missing {key!r}")
    case_id, client, why = raw["id"], raw["client"], raw["why"]
    if not isinstance(case_id, str) or not case_id.strip():
        raise CorpusError("id must be a non-empty string")
    if client not in CLIENTS:
        raise CorpusError(f"client must be one of {list(CLIENTS)}, not {client!r}")
    if not isinstance(why, str) or not why.strip():
        raise CorpusError("why must be a non-empty string")
    setup = raw.get("setup") or []
    if not isinstance(setup, list):
        raise CorpusError("setup must be a list of steps")
    for number, step in enumerate(setup, 1):
        _check_step(client, step, f"setup step {number}")
    _check_step(client, raw["run"], "run")
    expect = _expectation(raw["expect"], client)
    return Case(case_id, client, why, raw["run"], expect, tuple(setup), path)


def _check_step(client: str, step: Any, where: str) -> None:
    if client == "gh":
        if not isinstance(step, list) or not step or not all(isinstance(a, str) for a in step):
            raise CorpusError(f"{where}: a gh step is a non-empty list of strings (gh's argv)")
    elif client == "git":
        if not isinstance(step, str) or not step.strip():
            raise CorpusError(f"{where}: a git step is a shell script (a string)")
    elif client == "mcp":
        if not isinstance(step, dict) or not isinstance(step.get("tool"), str):
            raise CorpusError(f"{where}: an mcp step is {{tool: <name>, arguments: {{...}}}}")
        if set(step) - {"tool", "arguments"} or not isinstance(step.get("arguments", {}), dict):
            raise CorpusError(f"{where}: an mcp step has only tool and arguments (a mapping)")
    elif client == "graphql":
        if not isinstance(step, dict) or not isinstance(step.get("query"), str):
            raise CorpusError(f"{where}: a graphql step is {{query: '...', variables: {{...}}}}")
        if set(step) - {"query", "variables"} or not isinstance(step.get("variables", {}), dict):
            raise CorpusError(f"{where}: a graphql step has only query and variables (a mapping)")


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise CorpusError(f"expect.{name} must be a list of strings")
    return tuple(value)


def _expectation(raw: Any, client: str) -> Expectation:
    if not isinstance(raw, dict):
        raise CorpusError("expect must be a mapping")
    unknown = set(raw) - _EXPECT_KEYS
    if unknown:
        raise CorpusError(f"unknown expect keys {sorted(unknown)}")
    exit_status = raw.get("exit")
    if not isinstance(exit_status, int) or isinstance(exit_status, bool):
        raise CorpusError("expect.exit (an integer) is required")
    status = raw.get("status")
    if status is not None:
        if not isinstance(status, int) or isinstance(status, bool):
            raise CorpusError("expect.status must be an integer")
        if client in ("gh", "git"):
            raise CorpusError(f"expect.status: {client} steps report no HTTP status")
    checks = raw.get("json") or []
    if not isinstance(checks, list):
        raise CorpusError("expect.json must be a list of checks")
    return Expectation(
        exit=exit_status,
        output_contains=_strings(raw.get("output_contains", []), "output_contains"),
        output_lacks=_strings(raw.get("output_lacks", []), "output_lacks"),
        json=tuple(_json_check(check) for check in checks),
        status=status,
    )


def _json_check(raw: Any) -> JsonCheck:
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
        raise CorpusError(f"a json check is {{path: <string>, <kind>: <value>}}, not {raw!r}")
    kinds = [kind for kind in _CHECK_KINDS if kind in raw]
    unknown = set(raw) - {"path", *_CHECK_KINDS}
    if len(kinds) != 1 or unknown:
        raise CorpusError(f"json check {raw!r}: exactly one of {list(_CHECK_KINDS)} besides path")
    kind, value = kinds[0], raw[kinds[0]]
    if kind == "length" and (not isinstance(value, int) or isinstance(value, bool)):
        raise CorpusError(f"json check {raw!r}: length is an integer")
    if kind == "exists" and not isinstance(value, bool):
        raise CorpusError(f"json check {raw!r}: exists is true or false")
    return JsonCheck(raw["path"], kind, value)


# -- checking ----------------------------------------------------------------------------------

_MISSING = object()


def resolve(document: Any, path: str) -> Any:
    """The value at a dot-separated ``path`` (keys and integer indexes), or ``_MISSING``."""
    if path == "":
        return document
    value = document
    for part in path.split("."):
        if isinstance(value, dict):
            if part not in value:
                return _MISSING
            value = value[part]
        elif isinstance(value, list):
            try:
                index = int(part)
            except ValueError:
                return _MISSING
            if not -len(value) <= index < len(value):
                return _MISSING
            value = value[index]
        else:
            return _MISSING
    return value


def same(left: Any, right: Any) -> bool:
    """JSON equality: ``true`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and bool(left == right)


def show(value: Any, limit: int = 160) -> str:
    """``value`` as short JSON, for reports."""
    text = json.dumps(value, ensure_ascii=False) if value is not _MISSING else "(missing)"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_failure(check: JsonCheck, document: Any) -> str | None:
    actual = resolve(document, check.path)
    where = f"json {check.path or '(root)'}"
    if check.kind == "exists":
        present = actual is not _MISSING
        return None if present == check.value else f"{where}: exists is {str(present).lower()}"
    if actual is _MISSING:
        return f"{where}: missing, expected {check.kind} {show(check.value)}"
    if check.kind == "equals":
        ok = same(actual, check.value)
    elif check.kind == "length":
        ok = isinstance(actual, (list, dict, str)) and len(actual) == check.value
        if not ok and isinstance(actual, (list, dict, str)):
            return f"{where}: length {len(actual)}, expected {check.value} ({show(actual)})"
    elif isinstance(actual, str):
        ok = isinstance(check.value, str) and check.value in actual
    else:
        ok = isinstance(actual, list) and any(same(item, check.value) for item in actual)
    return None if ok else f"{where}: {show(actual)}, expected {check.kind} {show(check.value)}"


def failures(expect: Expectation, outcome: Outcome) -> list[str]:
    """Each expectation ``outcome`` misses, with the actual value."""
    found: list[str] = []
    if outcome.exit != expect.exit:
        found.append(f"exit {outcome.exit}, expected {expect.exit}")
    if expect.status is not None and outcome.status != expect.status:
        found.append(f"status {outcome.status}, expected {expect.status}")
    found += [
        f"output lacks {text!r}" for text in expect.output_contains if text not in outcome.output
    ]
    found += [f"output contains {text!r}" for text in expect.output_lacks if text in outcome.output]
    if expect.json and outcome.json is None:
        found.append(f"output is not JSON: {show(outcome.output.strip())}")
    elif expect.json:
        found += [f for f in (_json_failure(c, outcome.json) for c in expect.json) if f]
    return found


# -- the case's time and its processes ---------------------------------------------------------

_clock = threading.local()


def start_clock(seconds: float = CASE_TIMEOUT) -> None:
    """Start the running thread's case clock (the runner does, before a case's first step)."""
    _clock.deadline = time.monotonic() + seconds


def time_left() -> float:
    """Seconds left to the running case; raises :class:`CaseTimeout` when there are none."""
    deadline: float | None = getattr(_clock, "deadline", None)
    if deadline is None:
        return CASE_TIMEOUT
    left = deadline - time.monotonic()
    if left <= 0:
        raise CaseTimeout(f"the case ran past {CASE_TIMEOUT:.0f} s")
    return left


def parse_json(text: str) -> Any | None:
    """``text`` parsed as one JSON document, or None."""
    stripped = text.strip()
    if not stripped:
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def run_process(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> Outcome:
    """Run ``argv`` within the case's time (its whole process group is killed past it).

    The outcome's output is stdout then stderr; its JSON is stdout's."""
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=time_left())
    except (subprocess.TimeoutExpired, CaseTimeout):
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise CaseTimeout(
            f"the case ran past {CASE_TIMEOUT:.0f} s: {' '.join(argv)[:120]}"
        ) from None
    stdout = out.decode("utf-8", "replace")
    stderr = err.decode("utf-8", "replace")
    return Outcome(process.returncode, stdout + stderr, parse_json(stdout))
