"""Running one command after another in an item's jail, which is started once.

Tools that run one process per call (the openai loop's ``bash`` tool, the oracle's gh
commands) would otherwise pay a jail's start on every call, inside the item's latency. A
:class:`JailShell` starts the jail when the item starts (startup) with a small shell loop as
its process, which says ``ready`` once the jail's bridge is up; each call writes the command to a
file in the jail's directory and its number to the loop, which runs it (stdin from
``/dev/null``, stdout and stderr to files, under ``timeout``) and answers with the exit status.
What a command leaves running lives until the item's jail ends.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import select
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_ghxbench.isolation.jail import JAIL_DIR, ItemJail, JailError, jail_failure

__all__ = ["JailShell", "ShellResult"]

_LOOP = f"""
x={JAIL_DIR}/exec
echo ready
while IFS= read -r id; do
  ( . "$x/$id.sh" ) </dev/null >"$x/$id.out" 2>"$x/$id.err"
  echo "$id $?"
done
"""
_GRACE_S = 5.0
_START_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ShellResult:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False


class JailShell:
    """A jailed shell loop for one item; :meth:`run` runs one command in it."""

    def __init__(
        self, jail: ItemJail, env: Mapping[str, str], cwd: Path, read_only: Sequence[Path] = ()
    ) -> None:
        self._dir = jail.run_dir / "exec"
        self._dir.mkdir(parents=True, exist_ok=True)
        self._cwd = cwd
        self._ids = itertools.count(1)
        self._pending = b""
        self._log = jail.run_dir / "shell.log"
        argv = jail.command(["/bin/sh", "-c", _LOOP], cwd=cwd, read_only=read_only)
        with open(self._log, "wb") as log:
            self._process = subprocess.Popen(
                argv,
                env=dict(env),
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                bufsize=0,  # status lines are read as they come (select on the descriptor)
                start_new_session=True,
            )
        if self._line(lambda words: words == ["ready"], _START_TIMEOUT_S) is None:
            self.close()
            detail = self._log.read_text(encoding="utf-8", errors="replace")
            raise JailError(
                jail_failure(detail) or f"the item's jail failed to start: {detail.strip()[:500]}"
            )

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def run(self, argv: Sequence[str], timeout_s: float) -> ShellResult:
        """Run ``argv`` in the jail's shell, in the item's working directory, stopped (with
        everything it started in its process group) after ``timeout_s``."""
        if not self.alive or self._process.stdin is None:
            return ShellResult(None, "", "the item's jail has ended\n")
        number = next(self._ids)
        limit = f"{max(timeout_s, 0.001):.3f}"
        script = f"cd {shlex.quote(str(self._cwd))} || exit 126\n"
        script += f"exec timeout -k 1 {limit} {shlex.join(argv)}\n"
        (self._dir / f"{number}.sh").write_text(script, encoding="utf-8")
        try:
            self._process.stdin.write(f"{number}\n".encode())
            self._process.stdin.flush()
        except OSError:
            return ShellResult(None, "", "the item's jail has ended\n")
        started = time.monotonic()
        status = self._status(number, timeout_s + _GRACE_S)
        out, err = (self._take(number, suffix) for suffix in ("out", "err"))
        (self._dir / f"{number}.sh").unlink(missing_ok=True)
        if status is None:
            self.close()  # the loop no longer answers: the jail goes with its item
            return ShellResult(None, out, err, timed_out=True)
        # timeout(1) exits 124, or 137 when the command outlived the SIGTERM as well
        late = status == 124 or (status == 137 and time.monotonic() - started >= timeout_s)
        return ShellResult(None if late else status, out, err, timed_out=late)

    def _status(self, number: int, timeout_s: float) -> int | None:
        words = self._line(
            lambda words: len(words) == 2 and words[0] == str(number) and words[1].isdigit(),
            timeout_s,
        )
        return None if words is None else int(words[1])

    def _line(self, wanted: Callable[[list[str]], bool], timeout_s: float) -> list[str] | None:
        """The words of the loop's next line that is ``wanted`` (``None``: none came in time,
        or the loop ended)."""
        stdout = self._process.stdout
        assert stdout is not None
        deadline = time.monotonic() + timeout_s
        while True:
            while b"\n" in self._pending:
                line, _, self._pending = self._pending.partition(b"\n")
                words = line.decode("ascii", errors="replace").split()
                if wanted(words):
                    return words
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([stdout], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(stdout.fileno(), 4096)
            if not chunk:
                return None  # the loop ended
            self._pending += chunk

    def _take(self, number: int, suffix: str) -> str:
        path = self._dir / f"{number}.{suffix}"
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        finally:
            path.unlink(missing_ok=True)

    def close(self) -> None:
        """End the jail and everything in it."""
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
