"""Run directories: ``<results>/runs/<run_id>/``, one per run, never overwritten.

Layout of one run directory::

    run.json             the RunSpec (written when the session starts)
    rows.jsonl           one ItemRecord per item, appended as items finish
    transcripts/         one JSONL file per process (main.jsonl, gw0.jsonl, ...)
    summary.json         the RunSummary; summary.md, the same as Markdown
    report.html          the HTML report

``<results>/runs/latest`` points at the last run that finished: a symlink, or where symlinks
cannot be made, a one-line file holding the run id.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from pytest_ghxbench.records.models import RunSpec, RunSummary

__all__ = [
    "LATEST",
    "RUNS",
    "RunDir",
    "RunNotFound",
    "list_runs",
    "new_run_id",
    "point_latest",
    "resolve_run",
    "runs_root",
    "write_text_atomic",
]

RUNS = "runs"
LATEST = "latest"


class RunNotFound(LookupError):
    """A run reference (an id, ``latest`` or a path) names no run directory."""


@dataclass(frozen=True)
class RunDir:
    """One run's directory and the files in it."""

    path: Path

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def spec_path(self) -> Path:
        return self.path / "run.json"

    @property
    def rows_path(self) -> Path:
        return self.path / "rows.jsonl"

    @property
    def transcripts_dir(self) -> Path:
        return self.path / "transcripts"

    @property
    def summary_json(self) -> Path:
        return self.path / "summary.json"

    @property
    def summary_md(self) -> Path:
        return self.path / "summary.md"

    @property
    def report_html(self) -> Path:
        return self.path / "report.html"

    @classmethod
    def create(cls, results_dir: Path, run_id: str) -> RunDir:
        """A new, empty run directory; ``FileExistsError`` if the run id is taken."""
        root = runs_root(results_dir)
        root.mkdir(parents=True, exist_ok=True)
        path = root / run_id
        path.mkdir()
        return cls(path)

    def write_spec(self, spec: RunSpec) -> None:
        write_text_atomic(self.spec_path, spec.model_dump_json(indent=2) + "\n")

    def read_spec(self) -> RunSpec | None:
        """The run's spec; ``None`` for a run without one. A spec that is not valid raises
        ``ValueError`` naming the file."""
        return _read_model(self.spec_path, RunSpec)

    def write_summary(self, summary: RunSummary) -> None:
        text = json.dumps(summary.to_json_dict(), indent=2, ensure_ascii=False) + "\n"
        write_text_atomic(self.summary_json, text)

    def read_summary(self) -> RunSummary | None:
        return _read_model(self.summary_json, RunSummary)

    def transcript_files(self) -> list[Path]:
        return sorted(self.transcripts_dir.glob("*.jsonl"))


_Model = TypeVar("_Model", bound=BaseModel)


def _read_model(path: Path, model: type[_Model]) -> _Model | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from exc
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "document"
        raise ValueError(f"{path}: {where}: {first['msg']}") from None


def new_run_id() -> str:
    """``run_<UTC time>_<6 hex>``: ids sort by when the run started."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"run_{stamp}_{uuid.uuid4().hex[:6]}"


def runs_root(results_dir: Path) -> Path:
    return Path(results_dir) / RUNS


def list_runs(results_dir: Path) -> list[RunDir]:
    """Every run directory under ``results_dir``, oldest first (run ids start with the time)."""
    root = runs_root(results_dir)
    if not root.is_dir():
        return []
    return [
        RunDir(entry)
        for entry in sorted(root.iterdir(), key=lambda p: p.name)
        if entry.name != LATEST and not entry.is_symlink() and entry.is_dir()
    ]


def _latest_id(root: Path) -> str | None:
    pointer = root / LATEST
    if pointer.is_symlink():
        return Path(os.readlink(pointer)).name
    if pointer.is_file():
        return pointer.read_text(encoding="utf-8").strip() or None
    return None


def resolve_run(results_dir: Path, ref: str) -> RunDir:
    """The run a reference names: ``latest``, a run id under ``results_dir``, or the path of a
    run directory. :class:`RunNotFound` says which runs there are."""
    root = runs_root(results_dir)
    if ref == LATEST:
        run_id = _latest_id(root)
        if run_id is None:
            raise RunNotFound(f"no finished run under {root} (nothing points at 'latest')")
        ref = run_id
    candidate = Path(ref)
    for path in (root / ref, candidate):
        if path.is_dir() and ((path / "rows.jsonl").exists() or (path / "run.json").exists()):
            return RunDir(path)
    known = [run.run_id for run in list_runs(results_dir)]
    hint = f"; runs: {', '.join(known[-5:])}" if known else f"; there are no runs under {root}"
    raise RunNotFound(f"no run {ref!r} under {root}{hint}")


def point_latest(results_dir: Path, run: RunDir) -> None:
    """Point ``runs/latest`` at ``run``, replacing the pointer atomically."""
    root = runs_root(results_dir)
    pointer = root / LATEST
    temporary = root / f".{LATEST}.{os.getpid()}"
    try:
        temporary.unlink(missing_ok=True)
        os.symlink(run.run_id, temporary, target_is_directory=True)
    except OSError:  # no symlinks here: a file holding the id
        write_text_atomic(temporary, run.run_id + "\n")
    if pointer.is_dir() and not pointer.is_symlink():
        raise RunNotFound(f"{pointer} is a directory, not a pointer to a run; remove it")
    os.replace(temporary, pointer)


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """Write ``path`` so that it holds either its old content or all of ``text``, never a part:
    a temporary file in the same directory, then renamed over it. ``durable`` flushes it to
    disk first (what outlives the run); a file only other processes of the run read can skip
    that."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide the file from the user's tools
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
