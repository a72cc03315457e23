"""Run-over-run comparison (``ghxbench compare``, ``--ghx-compare``): how a run's per-scenario
medians and success rates changed against a base run, with bootstrap intervals, fail rules and
text renderings. Pure computation: reading runs from disk is the caller's business."""

from __future__ import annotations

from pytest_ghxbench.compare.compute import compare_runs
from pytest_ghxbench.compare.model import (
    ALL_METRICS,
    EFFICIENCY_METRICS,
    OVERALL,
    SUCCESS_RATE,
    Comparison,
    ComparisonEntry,
    Metric,
)
from pytest_ghxbench.compare.render import format_comparison, format_comparison_markdown
from pytest_ghxbench.compare.rules import (
    RULE_ALIASES,
    FailRule,
    breaks_rule,
    failures,
    parse_fail_rule,
)

__all__ = [
    "ALL_METRICS",
    "EFFICIENCY_METRICS",
    "OVERALL",
    "RULE_ALIASES",
    "SUCCESS_RATE",
    "Comparison",
    "ComparisonEntry",
    "FailRule",
    "Metric",
    "breaks_rule",
    "compare_runs",
    "failures",
    "format_comparison",
    "format_comparison_markdown",
    "parse_fail_rule",
]
