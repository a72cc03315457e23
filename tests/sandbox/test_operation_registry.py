"""The world operations' table: a clash is refused, a module imported anew is not a clash."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest

from pytest_ghxbench.sandbox.operations import registry


def test_a_second_handler_for_one_operation_is_refused() -> None:
    def first(world: Any, input: dict[str, Any]) -> None: ...

    def second(world: Any, input: dict[str, Any]) -> None: ...

    registry.operation("test.clash")(first)
    try:
        with pytest.raises(ValueError, match=r"'test\.clash' is registered twice"):
            registry.operation("test.clash")(second)
    finally:
        registry._OPERATIONS.pop("test.clash", None)


def test_an_operations_module_imported_anew_registers_again() -> None:
    """What a test run in process does: it drops the modules it imported, the table stays."""
    registry.perform  # noqa: B018  (the table is loaded)
    before = dict(registry._OPERATIONS)
    registry._load()
    module = sys.modules.pop("pytest_ghxbench.sandbox.operations.code")
    try:
        again = importlib.import_module("pytest_ghxbench.sandbox.operations.code")
        assert again is not module
        assert set(registry._OPERATIONS) >= set(before)
        assert registry._OPERATIONS["repo.branch.create"].__module__ == again.__name__
    finally:
        sys.modules["pytest_ghxbench.sandbox.operations.code"] = module
