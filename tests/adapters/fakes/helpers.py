"""Building requests that run the fake ``claude``/``codex`` executables of this folder."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_ghxbench.api import RunRequest

FAKES = Path(__file__).resolve().parent


def fake_env(tmp_path: Path, steps: Sequence[Mapping[str, Any]], **extra: str) -> dict[str, str]:
    """The env for a request: the fakes first on PATH and a script with ``steps``."""
    script = tmp_path / "script.json"
    record = tmp_path / "record.json"
    script.write_text(json.dumps({"record": str(record), "steps": list(steps)}), encoding="utf-8")
    return {
        "PATH": f"{FAKES}{os.pathsep}{os.environ.get('PATH', '')}",
        "GHXBENCH_FAKE_SCRIPT": str(script),
        "GHXBENCH_FAKE_PYTHON": sys.executable,
        "GHXBENCH_FAKE_STARTED": str(tmp_path / "started.pid"),
        **extra,
    }


def started_group(tmp_path: Path) -> int:
    """The process group of the fake started last (written by its shell wrapper, before
    Python starts)."""
    return int((tmp_path / "started.pid").read_text())


def fake_request(
    tmp_path: Path,
    steps: Sequence[Mapping[str, Any]],
    *,
    mode: str = "ghx",
    timeout_s: float = 20.0,
    model: str | None = None,
    env: Mapping[str, str] | None = None,
) -> RunRequest:
    """A request for one item whose agent prints ``steps`` (see fake_agent.py)."""
    return RunRequest(
        scenario=None,
        mode=mode,
        prompt="List the open PRs of acme/widgets.",
        instructions="Use the tools you are given.",
        timeout_s=timeout_s,
        iteration=1,
        workdir=tmp_path,
        env=env if env is not None else fake_env(tmp_path, steps),
        backend=None,
        model=model,
    )


def record(tmp_path: Path) -> dict[str, Any]:
    """What the fake recorded about itself: argv, pid, pgid, env names, cwd."""
    data: dict[str, Any] = json.loads((tmp_path / "record.json").read_text(encoding="utf-8"))
    return data


def group_gone(pgid: int, within_s: float = 60.0) -> bool:
    """True once no process of group ``pgid`` exists (killed members can linger as zombies
    until init reaps them, so this waits: up to a minute, a hang guard on a busy machine)."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False
