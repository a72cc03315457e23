"""Finding adapters and backends: hooks and the ``pytest_ghxbench.*`` entry points."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import entry_points
from typing import Any

import pytest

from pytest_ghxbench.api import Adapter, Backend, RunRequest, RunResult

ADAPTER_ENTRY_POINT_GROUP = "pytest_ghxbench.adapters"
BACKEND_ENTRY_POINT_GROUP = "pytest_ghxbench.backends"


class LazyAdapter:
    """An adapter whose implementation is imported only once it is used.

    Every benchmark session asks all hooks for their adapters to validate ``--ghx-adapter``;
    a runtime whose SDK is slow to import contributes one of these with its name and modes,
    and only the selected adapter ever loads its implementation."""

    def __init__(
        self,
        name: str,
        modes: Sequence[str],
        load: Callable[[], Adapter],
        kinds: Sequence[str] = ("cli", "mcp"),
    ) -> None:
        self.name = name
        self.modes = tuple(modes)
        self.kinds = tuple(kinds)
        """The kinds of declared modes the adapter drives (``docs/modes.md``)."""
        self._load = load
        self._adapter: Adapter | None = None

    def _target(self) -> Adapter:
        if self._adapter is None:
            self._adapter = self._load()
        return self._adapter

    def run(self, request: RunRequest) -> RunResult:
        return self._target().run(request)

    def __getattr__(self, attribute: str) -> Any:
        # preflight, close, model, tool_surface_tokens...: whatever the implementation offers
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        return getattr(self._target(), attribute)


def _from_entry_points(group: str, config: pytest.Config) -> list[Any]:
    found: list[Any] = []
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            target = ep.load()
        except Exception as exc:  # a broken third-party package must say which one
            raise pytest.UsageError(
                f"ghxbench: entry point {ep.name!r} in group {group} ({ep.value}) failed to load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        found.append(_instantiate(target, config))
    return found


def _instantiate(target: Any, config: pytest.Config) -> Any:
    """An entry point names an instance, a class (built without arguments), or a factory(config)."""
    if inspect.isclass(target):
        return target()
    if callable(target) and not hasattr(target, "run") and not hasattr(target, "open_session"):
        return target(config)
    return target


def _flatten(results: Iterable[Sequence[Any] | None]) -> list[Any]:
    out: list[Any] = []
    for result in results:
        if result:
            out.extend(result)
    return out


def _index(objects: Iterable[Any], kind: str) -> dict[str, Any]:
    by_name: dict[str, Any] = {}
    for obj in objects:
        name = getattr(obj, "name", None)
        if not isinstance(name, str) or not name:
            raise pytest.UsageError(f"ghxbench: a contributed {kind} has no 'name': {obj!r}")
        if name in by_name and by_name[name] is not obj:
            raise pytest.UsageError(f"ghxbench: two {kind}s are named {name!r}")
        by_name[name] = obj
    return by_name


def available_adapters(config: pytest.Config) -> dict[str, Adapter]:
    objects = _flatten(config.hook.pytest_ghxbench_adapters(config=config))
    objects += _from_entry_points(ADAPTER_ENTRY_POINT_GROUP, config)
    adapters = _index(objects, "adapter")
    for name, adapter in adapters.items():
        if not callable(getattr(adapter, "run", None)):
            raise pytest.UsageError(f"ghxbench: adapter {name!r} has no run(request) method")
        if isinstance(getattr(adapter, "modes", None), str) or not getattr(adapter, "modes", None):
            raise pytest.UsageError(
                f"ghxbench: adapter {name!r} must declare 'modes', a sequence of mode names"
            )
    return adapters


def available_backends(config: pytest.Config) -> dict[str, Backend]:
    objects = _flatten(config.hook.pytest_ghxbench_backends(config=config))
    objects += _from_entry_points(BACKEND_ENTRY_POINT_GROUP, config)
    return _index(objects, "backend")


def choose(kind: str, name: str, available: dict[str, Any], option: str) -> Any:
    if name not in available:
        choices = (
            ", ".join(sorted(available))
            or f"none registered (contribute one with the pytest_ghxbench_{kind}s hook)"
        )
        raise pytest.UsageError(f"ghxbench: unknown {kind} {name!r} for {option}; valid: {choices}")
    return available[name]
