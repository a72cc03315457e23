"""Fail rules of a comparison (``--ghx-compare-fail=METRIC:PCT``): which changes fail a run.

A rule ``METRIC:PCT`` fails every entry of that metric (per scenario x mode, and the suite
entries ``"*"``) whose change is a regression beyond the noise and larger than ``PCT``:

* ``tokens_active``, ``latency_ms``, ``tool_calls``, ``cost``: ``change_pct > PCT`` and the
  interval's lower bound > 0;
* ``success_rate``: a drop of more than ``PCT`` percentage points, ``change_pct < -PCT`` and the
  interval's upper bound < 0.

Each per-scenario entry is a separate 95 % test: among 100 unchanged scenario x mode pairs a
few are expected beyond the noise by chance, so with many scenarios the threshold (or a rule
read off the suite entries) is what keeps a rule from failing unchanged runs.

Aliases: ``tokens`` (tokens_active), ``latency`` (latency_ms), ``tools`` (tool_calls),
``cost_usd`` (cost), ``success`` (success_rate). Names are case-insensitive.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from pytest_ghxbench.compare.model import (
    ALL_METRICS,
    SUCCESS_RATE,
    Comparison,
    ComparisonEntry,
    Metric,
)
from pytest_ghxbench.compare.render import describe_entry
from pytest_ghxbench.metrics.gate import COMPARISON_TOLERANCE

__all__ = ["RULE_ALIASES", "FailRule", "breaks_rule", "failures", "parse_fail_rule"]

RULE_ALIASES: dict[str, Metric] = {
    "tokens": "tokens_active",
    "latency": "latency_ms",
    "tools": "tool_calls",
    "cost_usd": "cost",
    "success": "success_rate",
}

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class FailRule:
    """Fail on a regression of ``metric`` beyond the noise and beyond ``threshold_pct`` (percent
    of the base median; percentage points for ``success_rate``)."""

    metric: Metric
    threshold_pct: float

    def __post_init__(self) -> None:
        if self.metric not in get_args(Metric):
            raise ValueError(_problem(f"unknown metric {self.metric!r}"))
        if not math.isfinite(self.threshold_pct) or self.threshold_pct < 0:
            raise ValueError(
                _problem(f"the threshold must be a finite number >= 0, not {self.threshold_pct!r}")
            )

    def __str__(self) -> str:
        unit = " pp" if self.metric == SUCCESS_RATE else "%"
        return f"{self.metric}:{self.threshold_pct:g}{unit}"


def _problem(reason: str, text: str | None = None) -> str:
    aliases = ", ".join(f"{alias} = {name}" for alias, name in RULE_ALIASES.items())
    subject = f"invalid compare fail rule {text!r}" if text is not None else "invalid fail rule"
    return (
        f"{subject}: {reason}; expected METRIC:PCT (e.g. tokens_active:5%) with METRIC one of "
        f"{', '.join(ALL_METRICS)} (aliases: {aliases}) and PCT a number >= 0, "
        "optionally followed by %"
    )


def parse_fail_rule(text: str) -> FailRule:
    """The rule ``METRIC:PCT``, e.g. ``tokens_active:5%``, ``latency:10``, ``cost:2.5%``.

    Raises ``ValueError`` (naming the valid metrics and the expected form) for an unknown
    metric, a missing ``:``, or a threshold that is not a finite number >= 0.
    """
    name, colon, number = text.partition(":")
    if not colon:
        raise ValueError(_problem("no ':' between the metric and the threshold", text))
    key = name.strip().lower()
    metric: Metric | None = RULE_ALIASES.get(key)
    if metric is None:
        metric = next((known for known in ALL_METRICS if known == key), None)
    if metric is None:
        raise ValueError(_problem(f"unknown metric {name.strip()!r}", text))
    digits = number.strip().removesuffix("%").rstrip()
    if not _NUMBER.fullmatch(digits):
        raise ValueError(_problem(f"the threshold {number.strip()!r} is not a number", text))
    threshold = float(digits)
    if not math.isfinite(threshold) or threshold < 0:
        raise ValueError(
            _problem(f"the threshold must be a finite number >= 0, not {number.strip()!r}", text)
        )
    return FailRule(metric, threshold)


def breaks_rule(entry: ComparisonEntry, rule: FailRule) -> bool:
    """Whether ``entry`` is a regression of ``rule``'s metric beyond noise and threshold."""
    if entry.metric != rule.metric or not entry.regression or entry.change_pct is None:
        return False
    worsening = -entry.change_pct if entry.metric == SUCCESS_RATE else entry.change_pct
    return worsening > rule.threshold_pct + COMPARISON_TOLERANCE


def failures(comparison: Comparison, rules: Sequence[FailRule]) -> list[str]:
    """One line per entry (scenario x mode x metric, or a suite entry) that breaks a rule.

    Of several rules on one metric the strictest (lowest threshold) applies, so an entry gives
    at most one line. Lines follow the order of ``comparison.entries``.
    """
    strictest: dict[str, FailRule] = {}
    for rule in rules:
        known = strictest.get(rule.metric)
        if known is None or rule.threshold_pct < known.threshold_pct:
            strictest[rule.metric] = rule
    lines = []
    for entry in comparison.entries:
        strictest_rule = strictest.get(entry.metric)
        if strictest_rule is not None and breaks_rule(entry, strictest_rule):
            lines.append(f"{describe_entry(entry)} exceeds {strictest_rule}")
    return lines
