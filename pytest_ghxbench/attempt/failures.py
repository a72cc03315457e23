"""How a failed item reads: what went wrong, where its transcript is, and the adapter's frames.

An adapter's exception (or pytest-timeout's backstop stopping it) keeps its traceback from the
adapter's ``run`` down; the failure shows it the way pytest shows a test's (``--tb=long``,
``short``, ``native``, ``no``; ``-l`` and ``--full-trace`` too), after the item's failures and
the path of its transcript. Everything shown passes the session's redactor, as rows and
transcripts do.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import CodeType, TracebackType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ghxbench.attempt.redact import Redactor

if TYPE_CHECKING:
    from pytest_ghxbench.attempt.pipeline import AttemptOutcome

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


class ScenarioFailed(Exception):
    """The item ran but its answer or checkpoints did not hold, or the agent could not run."""

    def __init__(self, outcome: AttemptOutcome) -> None:
        super().__init__(f"{outcome.kind}: {outcome.failures[0] if outcome.failures else ''}")
        self.outcome = outcome


class TransientFailure(ScenarioFailed):
    """A failed attempt the retry policy reruns (pytest-rerunfailures' ``only_rerun`` matches
    this class's name)."""


class TransientTimeout(Exception):
    """pytest-timeout's backstop stopped an attempt outside the adapter's ``run`` (opening the
    backend, judging) and the policy reruns it; raised from the backstop's exception."""


def _hidden(frame: Any) -> bool:
    return bool(frame.f_locals.get("__tracebackhide__", False))


def exception_text(exc_info: ExcInfo) -> str:
    """The native traceback (chained exceptions included), without frames that hide
    themselves with ``__tracebackhide__`` (pytest-timeout's signal handler)."""
    kind, value, tb = exc_info
    formatted = traceback.TracebackException(kind, value, tb, capture_locals=False)
    frames = [(f, line) for f, line in traceback.walk_tb(tb) if not _hidden(f)]
    formatted.stack = traceback.StackSummary.extract(iter(frames))
    return "".join(formatted.format())


def starting_at(exc_info: ExcInfo, code: CodeType) -> ExcInfo:
    """``exc_info`` with its traceback from the first frame running ``code`` (unchanged when
    no frame does)."""
    kind, value, tb = exc_info
    entry = tb
    while entry is not None and entry.tb_frame.f_code is not code:
        entry = entry.tb_next
    return (kind, value, entry) if entry is not None else exc_info


def _style(config: pytest.Config) -> str:
    if config.getoption("fulltrace", False):
        return "long"
    style = str(config.getoption("tbstyle", "auto"))
    if style in ("auto", "long"):
        return "long"
    return "native" if style == "native" else "short"


def render_exception(config: pytest.Config, exc_info: ExcInfo) -> str:
    """``exc_info`` as pytest renders a failing test's exception, under the session's
    ``--tb``, ``-l`` and ``--full-trace``."""
    style = _style(config)
    kind, value, tb = exc_info
    if style == "native" or tb is None:
        return exception_text(exc_info).rstrip("\n")
    excinfo = pytest.ExceptionInfo.from_exc_info((kind, value, tb))
    full = bool(config.getoption("fulltrace", False))
    rendered = excinfo.getrepr(
        style=style,  # type: ignore[arg-type]
        showlocals=bool(config.getoption("showlocals", False)),
        funcargs=True,
        tbfilter=False if full else (lambda ei: ei.traceback.filter(ei)),
        truncate_locals=config.get_verbosity() <= 1,
    )
    return str(rendered)


def transcript_line(config: pytest.Config, path: Path, item_id: str, attempt: int) -> str:
    try:
        shown = os.path.relpath(path, config.rootpath)
    except ValueError:  # another drive (Windows)
        shown = str(path)
    if shown.startswith(".." + os.sep):
        shown = str(path)
    return f"transcript: {shown} (item_id {item_id!r}, attempt {attempt})"


def stacks_text(stacks: Sequence[tuple[str, str]]) -> list[str]:
    lines: list[str] = []
    for title, stack in stacks:
        lines.append(f"---- {title} ----")
        lines += stack.rstrip("\n").splitlines()
    return lines


def failure_report(
    config: pytest.Config, name: str, outcome: AttemptOutcome, redactor: Redactor
) -> str:
    """The item's failure text: failures, the answer, the transcript, the adapter's frames."""
    row = outcome.row
    where = transcript_line(config, outcome.transcript_path, outcome.item_id, outcome.attempt)
    if config.getoption("tbstyle", "auto") == "line":
        first = outcome.failures[0] if outcome.failures else "failed"
        return redactor.text(f"{name}: {_short(first, 200)} ({where})")
    lines = [f"{name} failed (success={row.success}, output_valid={row.output_valid}):"]
    lines += [f"  - {failure}" for failure in outcome.failures]
    if outcome.answer_excerpt and row.error and row.error.type != "runner_error":
        lines.append(f"  final answer: {_short(outcome.answer_excerpt)}")
    lines.append(f"  {where}")
    if outcome.exc_info is not None:
        lines += ["", "adapter traceback (from its run()):"]
        lines += render_exception(config, outcome.exc_info).splitlines()
    if outcome.thread_stacks:
        lines += ["", "threads of the attempt when it was stopped:"]
        lines += stacks_text(outcome.thread_stacks)
    return redactor.text("\n".join(lines))


def _short(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
