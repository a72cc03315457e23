"""pytest-timeout's backstop for scenario items, with a stack dump that shows the adapter.

pytest-timeout's own signal handler writes every other thread's stack to the terminal (the row
writer's, pytest-rerunfailures' and xdist's threads among them) and then raises
``Failed: Timeout`` in the main thread. For scenario items this module arms the timer itself
through pytest-timeout's ``pytest_timeout_set_timer`` hook: the same ``SIGALRM``, the same
message, but no terminal dump. Instead the exception carries the stacks of the threads that
belong to the attempt (started while it ran, or running the adapter's code), and the attempt
keeps the traceback of the main thread from the adapter's ``run`` down to where it hung; the
item's failure shows both (:mod:`pytest_ghxbench.run.failures`).

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


def _adapter_root(item: Any) -> str | None:
    adapter = item.ghx_session.adapter
    module = sys.modules.get(type(adapter).__module__)
    path = getattr(module, "__file__", None)
    if not path:
        return None
    # the adapter's directory: its package, or the folder of the conftest that defines it
    return str(Path(path).resolve().parent) + os.sep


def attempt_stacks(before: set[int], adapter_root: str | None) -> list[tuple[str, str]]:
    """(thread title, formatted stack) of the threads other than this one that belong to the
    attempt: started after ``before`` was taken, or running code under ``adapter_root``."""
    current = threading.get_ident()
    names = {t.ident: t.name for t in threading.enumerate()}
    found: list[tuple[str, str]] = []
    for ident, frame in sys._current_frames().items():
        if ident == current:
            continue
        stack = traceback.extract_stack(frame)
        started = ident not in before
        runs_adapter = adapter_root is not None and any(
            entry.filename.startswith(adapter_root) for entry in stack
        )
        if not (started or runs_adapter):
            continue
        why = "started during the attempt" if started else "running the adapter's code"
        title = f"thread {names.get(ident, '<unknown>')!r} ({why})"
        found.append((title, "".join(traceback.format_list(stack))))
    return found


class BackstopTimer:
    """Implements pytest-timeout's timer hooks for scenario items (signal method only)."""

    def __init__(self, item_type: type) -> None:
        self.item_type = item_type

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_timeout_set_timer(self, item: pytest.Item, settings: Any) -> bool | None:
        if (
            not isinstance(item, self.item_type)
            or settings.method != "signal"
            or threading.current_thread() is not threading.main_thread()
        ):
            return None
        before = {t.ident for t in threading.enumerate() if t.ident is not None}
        root = _adapter_root(item)
        detect_debugger = not settings.disable_debugger_detection

        def handler(signum: int, frame: FrameType | None) -> None:
            __tracebackhide__ = True
            if detect_debugger and _debugging():
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
