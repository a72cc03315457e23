"""The backstop's per-item work: the adapter's directory (which a timeout's stack dump puts
first) is resolved once per adapter class and session, not for every item."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_ghxbench.attempt import backstop
from pytest_ghxbench.attempt.backstop import BackstopTimer


class Adapter:
    name = "here"


class OtherAdapter:
    name = "there"


def item(adapter: object) -> Any:
    return SimpleNamespace(ghx_session=SimpleNamespace(adapter=adapter))


def test_the_adapters_directory_is_resolved_once_per_adapter_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resolved: list[type] = []
    resolve = backstop._adapter_root

    def counted(adapter_type: type) -> str | None:
        resolved.append(adapter_type)
        return resolve(adapter_type)

    monkeypatch.setattr(backstop, "_adapter_root", counted)
    timer = BackstopTimer(SimpleNamespace)
    roots = {timer.adapter_root(item(Adapter())) for _ in range(100)}
    assert roots == {f"{Path(__file__).resolve().parent}/"}
    timer.adapter_root(item(OtherAdapter()))
    timer.adapter_root(item(Adapter()))
    assert resolved == [Adapter, OtherAdapter]
    # a new session (a new timer) resolves again: the file may have moved in between
    BackstopTimer(SimpleNamespace).adapter_root(item(Adapter()))
    assert resolved == [Adapter, OtherAdapter, Adapter]


def test_a_class_without_a_source_file_has_no_directory() -> None:
    built = type("Built", (), {"__module__": "no.such.module"})
    assert BackstopTimer(SimpleNamespace).adapter_root(item(built())) is None
