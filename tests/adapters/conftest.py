"""The sandbox item fixtures of ``tests/sandbox/api`` (one backend per module, an item of the
module's ``ITEM_MODE``), for the oracle's plan tests that run real clients."""

from __future__ import annotations

from tests.sandbox.api.conftest import backend, item

__all__ = ["backend", "item"]
