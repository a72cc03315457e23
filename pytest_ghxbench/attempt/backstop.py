"""pytest-timeout's backstop for scenario items, with a stack dump that shows the adapter.

pytest-timeout's own signal handler writes every other thread's stack to the terminal (the row
writer's, pytest-rerunfailures' and xdist's threads among them) and then raises
``Failed: Timeout`` in the main thread. For scenario items this module arms the timer itself
through pytest-timeout's ``pytest_timeout_set_timer`` hook: the same ``SIGALRM``, the same
message, but no terminal dump. Instead the exception carries the stacks of the threads that
belong to the attempt (started while it ran, or running the adapter's code), and the attempt
keeps the traceback of the main thread from the adapter's ``run`` down to where it hung; the
item's failure shows both (:mod:`pytest_ghxbench.attempt.failures`). The harness's own helper
threads (the row writer's fsync thread, an agent process's output readers) are left out, and
threads running the adapter's code come first.

When the main thread is waiting on an agent process (:func:`~pytest_ghxbench.adapters.agent_process.
run_agent_process`), the timer does not raise: it asks the process to stop as at its deadline
(SIGTERM to its group, SIGKILL after the grace), so the adapter returns a timeout with the
usage and transcript gathered so far, and fires once more, raising, if it does not in time.

Other items, other methods (``thread``) and items run outside the main thread are left to
pytest-timeout.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from pytest_ghxbench.adapters.agent_process import stop_agent_process

# pytest-timeout's message, so the row and the summary read the same either way
FAILURE_MESSAGE = "Timeout (>%ss) from pytest-timeout."
STACKS_ATTR = "ghxbench_thread_stacks"
_CANCEL_ATTR = "ghxbench_cancel_backstop"


def is_backstop_timeout(exc: BaseException) -> bool:
    """Whether ``exc`` is pytest-timeout's (or this module's) ``Failed: Timeout``."""
    return isinstance(exc, pytest.fail.Exception) and str(exc).startswith("Timeout")


def _debugging() -> bool:
    try:
        from pytest_timeout import is_debugging
    except ImportError:  # pragma: no cover - the hook exists only with pytest-timeout
        return False
    return bool(is_debugging())


def _adapter_root(adapter_type: type) -> str | None:
    """The directory of the module defining ``adapter_type``: its package, or the folder of
    the conftest that defines it (``None`` for a class without a source file)."""
    module = sys.modules.get(adapter_type.__module__)
    path = getattr(module, "__file__", None)
    if not path:
        return None
    return str(Path(path).resolve().parent) + os.sep


_HARNESS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _harness_thread(thread: threading.Thread | None, adapter_root: str | None) -> bool:
    """A helper thread of the harness itself (the row writer's fsync thread, an agent
    process's output readers): its target is harness code outside the adapter's directory."""
    if thread is None:
        return False
    if thread.name.startswith("ghxbench-"):
        return True
    target = getattr(thread, "_target", None)
    module = sys.modules.get(getattr(target, "__module__", None) or "")
    path = os.path.abspath(getattr(module, "__file__", None) or "")
    in_adapter = adapter_root is not None and path.startswith(adapter_root)
    return path.startswith(_HARNESS_DIR) and not in_adapter


def _adapter_file(filename: str, adapter_root: str | None) -> bool:
    """Whether ``filename`` is the adapter's own code: under its directory, but neither the
    harness nor an installed package (a project's ``.venv`` may sit under that directory)."""
    if adapter_root is None or not filename.startswith(adapter_root):
        return False
    rest = filename[len(adapter_root) :]
    if "site-packages" in rest.split(os.sep):
        return False
    return adapter_root.startswith(_HARNESS_DIR) or not filename.startswith(_HARNESS_DIR)


def attempt_stacks(before: set[int], adapter_root: str | None) -> list[tuple[str, str]]:
    """(thread title, formatted stack) of the threads other than this one that belong to the
    attempt: those running code under ``adapter_root`` first, then the others started after
    ``before`` was taken. The harness's own helper threads are left out."""
    current = threading.get_ident()
    threads = {t.ident: t for t in threading.enumerate()}
    running: list[tuple[str, str]] = []
    started: list[tuple[str, str]] = []
    for ident, frame in sys._current_frames().items():
        thread = threads.get(ident)
        if ident == current or _harness_thread(thread, adapter_root):
            continue
        stack = traceback.extract_stack(frame)
        runs_adapter = any(_adapter_file(entry.filename, adapter_root) for entry in stack)
        if not runs_adapter and ident in before:
            continue
        why = "started during the attempt" if ident not in before else "running the adapter's code"
        name = thread.name if thread is not None else "<unknown>"
        title = f"thread {name!r} ({why})"
        (running if runs_adapter else started).append(
            (title, "".join(traceback.format_list(stack)))
        )
    return running + started


class BackstopTimer:
    """Implements pytest-timeout's timer hooks for scenario items (signal method only)."""

    def __init__(self, item_type: type) -> None:
        self.item_type = item_type
        self._roots: dict[type, str | None] = {}
        """Each adapter class's directory, resolved once per session (not for every item)."""

    def adapter_root(self, item: Any) -> str | None:
        """The directory of the code of ``item``'s adapter (see :func:`attempt_stacks`)."""
        adapter_type = type(item.ghx_session.adapter)
        if adapter_type not in self._roots:
            self._roots[adapter_type] = _adapter_root(adapter_type)
        return self._roots[adapter_type]

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_timeout_set_timer(self, item: pytest.Item, settings: Any) -> bool | None:
        if (
            not isinstance(item, self.item_type)
            or settings.method != "signal"
            or threading.current_thread() is not threading.main_thread()
        ):
            return None
        before = {t.ident for t in threading.enumerate() if t.ident is not None}
        root = self.adapter_root(item)
        detect_debugger = not settings.disable_debugger_detection

        def handler(signum: int, frame: FrameType | None) -> None:
            __tracebackhide__ = True
            if detect_debugger and _debugging():
                return
            wait_s = stop_agent_process("pytest-timeout's backstop")
            if wait_s is not None:
                # An agent process is running: it is stopped (its group killed, what it
                # reported kept) and the adapter returns; if it does not in time, this fires
                # again and raises.
                signal.setitimer(signal.ITIMER_REAL, wait_s)
                return
            exc = pytest.fail.Exception(FAILURE_MESSAGE % settings.timeout)
            setattr(exc, STACKS_ATTR, attempt_stacks(before, root))
            raise exc

        def cancel() -> None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)

        setattr(item, _CANCEL_ATTR, cancel)
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, settings.timeout)
        return True

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_timeout_cancel_timer(self, item: pytest.Item) -> bool | None:
        cancel = getattr(item, _CANCEL_ATTR, None)
        if cancel is None:
            return None
        delattr(item, _CANCEL_ATTR)
        cancel()
        return True
