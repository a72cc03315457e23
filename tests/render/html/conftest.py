"""Real runs of the plugin (the oracle on the sandbox), read back as the report's inputs.

Each run is a ``pytest`` subprocess in its own directory, made once per session: the default
scenario set in all three modes (three repetitions), and a run whose adapter breaks some items
(an exception, a reported stall, an answer that is markup) to show every failure shape.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.paths import REPO_ROOT

if TYPE_CHECKING:
    from pytest_ghxbench.cli.view import RunServer
    from pytest_ghxbench.records.models import RunSummary
    from pytest_ghxbench.records.store import RunDir

# What the breaking adapter puts where the page must show text, not run it.
HOSTILE = '<script>window.ghxPwned = 1</script><img src=x onerror="window.ghxPwned = 2">'

BREAKING_ADAPTER = textwrap.dedent(
    f"""
    from pytest_ghxbench.adapters.oracle.adapter import OracleAdapter
    from pytest_ghxbench.api import RunResult

    HOSTILE = {HOSTILE!r}


    class Breaking(OracleAdapter):
        name = "breaking"

        def run(self, request):
            scenario = request.scenario.id
            if scenario == "repo-view-001" and request.mode == "ghx":
                raise RuntimeError("adapter exploded: " + HOSTILE)
            if scenario == "issue-view-001" and request.mode == "agent_direct":
                return RunResult(error="agent stalled: timed out after 5s")
            if scenario == "pr-view-001":
                return RunResult(final_text=HOSTILE + " is not JSON", model="ghxbench/oracle")
            return super().run(request)


    def pytest_ghxbench_adapters(config):
        return [Breaking()]
    """
)


@dataclass(frozen=True)
class RunFiles:
    """A run's summary and rows, as the report takes them, and its transcript records (which
    the report links to). The summary is shared by every test: copy it before changing it."""

    root: Path
    run_dir: Path
    summary: RunSummary
    items: list[dict[str, Any]]
    transcripts: list[dict[str, Any]]


def read_run(results: Path) -> RunFiles:
    """The latest run under a results directory (``runs/latest``)."""
    from pytest_ghxbench.records.reading import read_items, read_transcripts
    from pytest_ghxbench.records.store import LATEST, resolve_run

    run = resolve_run(results, LATEST)
    summary = run.read_summary()
    assert summary is not None, f"{run.path} has no summary.json"
    return RunFiles(results, run.path, summary, read_items(run), read_transcripts(run))


class PluginRun:
    """A ``pytest`` session of the plugin started in ``directory`` (running in the background
    until :meth:`wait` waits for it)."""

    def __init__(self, directory: Path, *args: str, conftest: str | None = None) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        if conftest is not None:
            (directory / "conftest.py").write_text(conftest, "utf-8")
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("PYTEST_", "GHXBENCH_"))
        }
        self.directory = directory
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-q",
                f"--ghx-scenarios={REPO_ROOT / 'scenarios'}",
                "--scenario-set=default",
                *args,
            ],
            cwd=directory,
            env={**env, "HYPOTHESIS_NO_PLUGINS": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def wait(self) -> Path:
        """The run's results directory, once the run has written its summary."""
        try:
            output, _ = self.process.communicate(timeout=300)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.communicate()
        results = self.directory / ".ghxbench"
        assert list(results.rglob("summary.json")), f"the run wrote no summary:\n{output}"
        return results


# name -> (plugin options, conftest.py of the run)
RUNS: dict[str, tuple[tuple[str, ...], str | None]] = {
    # the default scenario set, all three modes, three repetitions (54 items)
    "default": (("--ghx-mode=agent_direct,mcp,ghx", "--reps=3"), None),
    # the default set in agent_direct and ghx, once each, with some items broken
    "breaking": (
        ("--ghx-mode=agent_direct,ghx", "--reps=1", "--ghx-adapter=breaking"),
        BREAKING_ADAPTER,
    ),
}


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # not POSIX: each worker makes its own runs
        yield
        return
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def plugin_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each run's results directory. The runs are made together (each is mostly one process's
    work); under xdist the workers share them: the first makes them, the others wait for it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's directory, common to its workers
    root = base / "htmlreport-runs"
    root.mkdir(exist_ok=True)
    with _locked(root / ".lock"):
        if not (root / "done").exists():
            started = {
                name: PluginRun(root / name, *args, conftest=conftest)
                for name, (args, conftest) in RUNS.items()
            }
            for run in started.values():
                run.wait()
            (root / "done").write_text("", "utf-8")
    return {name: root / name / ".ghxbench" for name in RUNS}


@pytest.fixture(scope="session")
def default_run(plugin_results: dict[str, Path]) -> RunFiles:
    """The default scenario set, all three modes, three repetitions (54 items)."""
    return read_run(plugin_results["default"])


@pytest.fixture(scope="session")
def breaking_run(plugin_results: dict[str, Path]) -> RunFiles:
    """The default set in agent_direct and ghx, once each, with some items broken."""
    return read_run(plugin_results["breaking"])


def copy_run(run: RunFiles, project: Path) -> RunDir:
    """A copy of ``run``'s directory as the latest run of ``project``, with its report
    rendered by this checkout (the runs above may have been made by an installed copy)."""
    from pytest_ghxbench.records.store import RunDir, point_latest
    from pytest_ghxbench.render.html.run_report import write_run_report

    copy = RunDir(project / ".ghxbench" / "runs" / run.run_dir.name)
    shutil.copytree(run.run_dir, copy.path)
    point_latest(project / ".ghxbench", copy)
    write_run_report(copy)
    return copy


@contextlib.contextmanager
def serving(run: RunDir) -> Iterator[RunServer]:
    """``ghxbench view``'s server for ``run`` on loopback, answering in a thread."""
    from pytest_ghxbench.cli.view import serve_run

    server = serve_run(run)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)
