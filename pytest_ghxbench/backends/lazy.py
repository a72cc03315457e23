"""Backends whose implementation loads only once a session uses them, and opening a backend's
session for an item."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_ghxbench.api import Backend, BackendSession

__all__ = ["LazyBackend", "open_backend_session"]


class LazyBackend:
    """A backend whose implementation is imported only once it is used (as
    :class:`~pytest_ghxbench.adapters.registry.LazyAdapter` is for adapters)."""

    def __init__(self, name: str, load: Callable[[], Backend]) -> None:
        self.name = name
        self._load = load
        self._backend: Backend | None = None

    def _target(self) -> Backend:
        if self._backend is None:
            self._backend = self._load()
        return self._backend

    def manifest(self) -> Mapping[str, Any] | None:
        return self._target().manifest()

    def open_session(self, item_id: str, workdir: Path, mode: str | None = None) -> BackendSession:
        return open_backend_session(self._target(), item_id, workdir, mode)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        return getattr(self._target(), attribute)


def open_backend_session(
    backend: Backend, item_id: str, workdir: Path, mode: str | None
) -> BackendSession:
    """``backend.open_session`` for an item of ``mode``: passed as ``mode=`` to backends whose
    ``open_session`` takes it (the built-in ones), left out for those written before it."""
    if mode is not None and _takes_mode(backend.open_session):
        return backend.open_session(item_id, workdir, mode=mode)  # type: ignore[call-arg]
    return backend.open_session(item_id, workdir)


_TAKES_MODE: dict[Any, bool] = {}


def _takes_mode(method: Callable[..., Any]) -> bool:
    # a bound method is a new object on every access: its function is the same
    key = getattr(method, "__func__", method)
    known = _TAKES_MODE.get(key)
    if known is None:
        try:
            parameters = inspect.signature(method).parameters
        except (TypeError, ValueError):
            known = False
        else:
            known = "mode" in parameters or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
            )
        _TAKES_MODE[key] = known
    return known
