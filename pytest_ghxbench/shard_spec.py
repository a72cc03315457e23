"""The value of ``--ghx-shard=K/N``: which of N shares of a run's plan this session runs.

Parsed where the options are resolved (:mod:`pytest_ghxbench.options`); how a plan is split
into shares is :mod:`pytest_ghxbench.runs.shard`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ShardSpec", "ShardSpecError", "parse_shard"]

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardSpecError(ValueError):
    """A shard spec that is not ``K/N`` with ``1 <= K <= N``, or durations that cannot be read."""


@dataclass(frozen=True)
class ShardSpec:
    index: int
    """K: which share, from 1."""
    count: int
    """N: how many shares."""

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> ShardSpec:
    """``"2/4"`` as a :class:`ShardSpec`; :class:`ShardSpecError` says what is wrong."""
    match = _SPEC.match(text)
    if match is None:
        raise ShardSpecError(f"must be K/N with whole numbers, e.g. 2/4, got {text!r}")
    index, count = int(match[1]), int(match[2])
    if count < 1 or not 1 <= index <= count:
        raise ShardSpecError(
            f"must be K/N with 1 <= K <= N (shards are numbered from 1), got {text!r}"
        )
    return ShardSpec(index, count)
